"""A CustomResourceDefinition's validation (apiextensions validation.go): its name, group, names, scope,
versions, printer columns, subresources and each version's structural schema, with Kubernetes' messages."""
from __future__ import annotations

from api.crdschema import rules
from api.crdschema.structural import schema_causes
from api.gojson import go_quote
from api.names import dns1035_errors, subdomain_errors
from api.status import Cause

SCOPES = ("Cluster", "Namespaced")
COLUMN_TYPES = ("boolean", "date", "integer", "number", "string")
COLUMN_FORMATS = ("byte", "date", "date-time", "double", "float", "int32", "int64", "password")


def _required(path: str, detail: str = "") -> Cause:
    return Cause(path, "Required value" + (f": {detail}" if detail else ""), "FieldValueRequired")


def _invalid(path: str, value, detail: str) -> Cause:
    shown = go_quote(value) if isinstance(value, str) else "..."
    return Cause(path, f"Invalid value: {shown}: {detail}")


def validate_crd(crd: dict) -> list[Cause]:
    spec = crd.get("spec") or {}
    causes = _name_causes(crd, spec)
    causes += _group_causes(spec.get("group") or "")
    scope = spec.get("scope") or ""
    if not scope:
        causes.append(_required("spec.scope"))
    elif scope not in SCOPES:
        causes.append(Cause("spec.scope", f'Unsupported value: {go_quote(scope)}: supported values: '
                                          f'"Cluster", "Namespaced"', "FieldValueNotSupported"))
    causes += _versions_causes(spec.get("versions") or [])
    causes += names_causes(spec.get("names") or {}, "spec.names", required=True)
    if spec.get("preserveUnknownFields"):
        causes.append(_invalid("spec.preserveUnknownFields", "true", "cannot set to true, set "
                               "x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
    strategy = (spec.get("conversion") or {}).get("strategy")
    if strategy not in ("None", "Webhook"):
        causes.append(Cause("spec.conversion.strategy", f'Unsupported value: {go_quote(str(strategy))}: supported '
                                                        f'values: "None", "Webhook"', "FieldValueNotSupported"))
    return causes


def _name_causes(crd: dict, spec: dict) -> list[Cause]:
    name = (crd.get("metadata") or {}).get("name") or ""
    plural, group = (spec.get("names") or {}).get("plural") or "", spec.get("group") or ""
    if name != f"{plural}.{group}":
        return [_invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group')]
    return []


def _group_causes(group: str) -> list[Cause]:
    if not group:
        return [_required("spec.group")]
    errors = subdomain_errors(group)
    if errors:
        return [_invalid("spec.group", group, ",".join(errors))]
    if "." not in group:
        return [_invalid("spec.group", group, "should be a domain with at least one dot")]
    return []


def _versions_causes(versions: list[dict]) -> list[Cause]:
    if not versions:
        return [_required("spec.versions", "must have exactly one version marked as storage version")]
    causes = []
    for i, version in enumerate(versions):
        path, name = f"spec.versions[{i}]", version.get("name") or ""
        errors = dns1035_errors(name)
        if errors:
            causes.append(_invalid(f"{path}.name", name, ",".join(errors)))
        causes += _version_causes(version, path)
    names = [v.get("name") for v in versions]
    if len(set(names)) != len(names):
        causes.append(_invalid("spec.versions", None, "must contain unique version names"))
    if sum(1 for v in versions if v.get("storage")) != 1:
        causes.append(_invalid("spec.versions", None, "must have exactly one version marked as storage version"))
    return causes


def _version_causes(version: dict, path: str) -> list[Cause]:
    subresources = version.get("subresources") or {}
    schema = (version.get("schema") or {}).get("openAPIV3Schema")
    causes = []
    if schema is None:
        causes.append(_required(f"{path}.schema.openAPIV3Schema", "schemas are required"))
    else:
        causes += schema_causes(schema, f"{path}.schema.openAPIV3Schema", "status" in subresources)
        causes += rules.rule_causes(schema, f"{path}.schema.openAPIV3Schema")
    for j, column in enumerate(version.get("additionalPrinterColumns") or []):
        causes += _column_causes(column, f"{path}.additionalPrinterColumns[{j}]")
    scale = subresources.get("scale")
    if isinstance(scale, dict):
        causes += _scale_causes(scale, f"{path}.subresources.scale")
    return causes


def _column_causes(column: dict, path: str) -> list[Cause]:
    causes = []
    if not column.get("name"):
        causes.append(_required(f"{path}.name"))
    kind, types = column.get("type") or "", ",".join(COLUMN_TYPES)
    if not kind:
        causes.append(_required(f"{path}.type", f"must be one of {types}"))
    elif kind not in COLUMN_TYPES:
        causes.append(_invalid(f"{path}.type", kind, f"must be one of {types}"))
    if column.get("format") and column["format"] not in COLUMN_FORMATS:
        causes.append(_invalid(f"{path}.format", column["format"], f"must be one of {','.join(COLUMN_FORMATS)}"))
    json_path = column.get("jsonPath") or ""
    if not json_path:
        causes.append(_required(f"{path}.jsonPath"))
    elif not json_path.startswith("."):
        causes.append(_invalid(f"{path}.jsonPath", json_path, "must be a simple json path starting with ."))
    return causes


def _scale_causes(scale: dict, path: str) -> list[Cause]:
    causes = []
    for field, under in (("specReplicasPath", ".spec."), ("statusReplicasPath", ".status.")):
        value = scale.get(field) or ""
        if not value:
            causes.append(_required(f"{path}.{field}"))
        elif not value.startswith(under):
            causes.append(_invalid(f"{path}.{field}", value, f"should be a json path under {under[:-1]}"))
    selector = scale.get("labelSelectorPath")
    if selector and not selector.startswith((".spec.", ".status.")):
        causes.append(_invalid(f"{path}.labelSelectorPath", selector, "should be a json path under either .spec "
                                                                      "or .status"))
    return causes


def names_causes(names: dict, path: str, required: bool = False) -> list[Cause]:
    """ValidateCustomResourceDefinitionNames (and the spec's required names)."""
    causes = []
    if required:
        causes += [_required(f"{path}.{field}") for field in ("plural", "singular", "kind", "listKind")
                   if not names.get(field)]
    for field in ("plural", "singular"):
        value = names.get(field) or ""
        if value and dns1035_errors(value):
            causes.append(_invalid(f"{path}.{field}", value, ",".join(dns1035_errors(value))))
    for field in ("kind", "listKind"):
        value = names.get(field) or ""
        if value and dns1035_errors(value.lower()):
            causes.append(_invalid(f"{path}.{field}", value, "may have mixed case, but should otherwise match: "
                                   + ",".join(dns1035_errors(value.lower()))))
    for field in ("shortNames", "categories"):
        for i, value in enumerate(names.get(field) or []):
            if dns1035_errors(value):
                causes.append(_invalid(f"{path}.{field}[{i}]", value, ",".join(dns1035_errors(value))))
    if names.get("kind") and names.get("kind") == names.get("listKind"):
        causes.append(_invalid(f"{path}.listKind", names["listKind"], "kind and listKind may not be the same"))
    return causes


def update_causes(old: dict, new: dict) -> list[Cause]:
    """ValidateCustomResourceDefinitionSpecUpdate: group and plural never change; scope and kind once
    Established."""
    from api.apiextensions import is_true
    before, after = old.get("spec") or {}, new.get("spec") or {}
    fields = [("spec.group", before.get("group"), after.get("group")),
              ("spec.names.plural", (before.get("names") or {}).get("plural"),
               (after.get("names") or {}).get("plural"))]
    if is_true(old, "Established"):
        fields += [("spec.scope", before.get("scope"), after.get("scope")),
                   ("spec.names.kind", (before.get("names") or {}).get("kind"), (after.get("names") or {}).get("kind"))]
    return [_invalid(path, new_value, "field is immutable") for path, old_value, new_value in fields
            if old_value != new_value]

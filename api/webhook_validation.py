"""Mutating/ValidatingWebhookConfiguration validation (Kubernetes' admissionregistration
validation.go), with its paths and messages. matchConditions are CEL, compiled here in the environment
the webhook plugins evaluate them in (`CONDITION_VARIABLES`): a bad one is refused at write, as
`compilation failed: …`."""
from __future__ import annotations

from urllib.parse import urlsplit

from api.admissionpolicy_validation import compiled
from api.gojson import go_quote
from api.names import qualified_name_errors, subdomain_errors
from api.status import Cause

OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
SCOPES = ("*", "Cluster", "Namespaced")
REVIEW_VERSIONS = ("v1", "v1beta1")
SIDE_EFFECTS = ("None", "NoneOnDryRun")
CONDITION_VARIABLES = ("object", "oldObject", "request", "authorizer")  # no params, no namespaceObject
MAX_CONDITIONS = 64


def _required(path: str, detail: str = "") -> Cause:
    return Cause(path, "Required value" + (f": {detail}" if detail else ""), "FieldValueRequired")


def _invalid(path: str, value, detail: str) -> Cause:
    shown = go_quote(value) if isinstance(value, str) else str(value)
    return Cause(path, f"Invalid value: {shown}: {detail}")


def _unsupported(path: str, value, supported: tuple[str, ...]) -> Cause:
    listed = ", ".join(go_quote(s) for s in supported)
    return Cause(path, f"Unsupported value: {go_quote(str(value))}: supported values: {listed}",
                 "FieldValueNotSupported")


def validate_validating(obj: dict) -> list[Cause]:
    return _configuration(obj, mutating=False)


def validate_mutating(obj: dict) -> list[Cause]:
    return _configuration(obj, mutating=True)


def _configuration(obj: dict, mutating: bool) -> list[Cause]:
    causes: list[Cause] = []
    seen: set[str] = set()
    for i, hook in enumerate(obj.get("webhooks") or ()):
        path = f"webhooks[{i}]"
        causes += _webhook(path, hook, mutating)
        name = hook.get("name") or ""
        if name and name in seen:
            causes.append(Cause(f"{path}.name", f"Duplicate value: {go_quote(name)}", "FieldValueDuplicate"))
        seen.add(name)
    return causes


def _webhook(path: str, hook: dict, mutating: bool) -> list[Cause]:
    causes = _name(f"{path}.name", hook.get("name") or "")
    for j, rule in enumerate(hook.get("rules") or ()):
        causes += _rule(f"{path}.rules[{j}]", rule)
    causes += _choice(f"{path}.failurePolicy", hook.get("failurePolicy"), ("Fail", "Ignore"))
    causes += _choice(f"{path}.matchPolicy", hook.get("matchPolicy"), ("Equivalent", "Exact"))
    if mutating:
        causes += _choice(f"{path}.reinvocationPolicy", hook.get("reinvocationPolicy"), ("IfNeeded", "Never"))
    side = hook.get("sideEffects")
    if side is None:
        causes.append(_required(f"{path}.sideEffects", "must specify one of None, NoneOnDryRun"))
    else:
        causes += _choice(f"{path}.sideEffects", side, SIDE_EFFECTS)
    timeout = hook.get("timeoutSeconds")
    if timeout is not None and not 1 <= timeout <= 30:
        causes.append(_invalid(f"{path}.timeoutSeconds", timeout, "the timeout value must be between 1 and 30 seconds"))
    causes += _review_versions(f"{path}.admissionReviewVersions", hook.get("admissionReviewVersions") or [])
    causes += _client_config(f"{path}.clientConfig", hook.get("clientConfig") or {})
    return causes + match_conditions(f"{path}.matchConditions", hook.get("matchConditions") or [])


def match_conditions(path: str, conditions: list[dict]) -> list[Cause]:
    """At most 64, each named (a qualified name, unique) with an expression that compiles to a bool."""
    causes = []
    if len(conditions) > MAX_CONDITIONS:
        causes.append(Cause(path, f"Too many: {len(conditions)}: must have at most {MAX_CONDITIONS} items",
                            "FieldValueTooMany"))
    seen: set[str] = set()
    for i, cond in enumerate(conditions):
        where, name = f"{path}[{i}]", cond.get("name") or ""
        expression = (cond.get("expression") or "").strip()
        causes += compiled(expression, CONDITION_VARIABLES, f"{where}.expression", "bool") if expression \
            else [_required(f"{where}.expression")]
        if not name:
            causes.append(_required(f"{where}.name"))
        else:
            causes += [_invalid(f"{where}.name", name, e) for e in qualified_name_errors(name)]
            if name in seen:
                causes.append(Cause(f"{where}.name", f"Duplicate value: {go_quote(name)}", "FieldValueDuplicate"))
            seen.add(name)
    return causes


def _choice(path: str, value, supported: tuple[str, ...]) -> list[Cause]:
    return [] if value is None or value in supported else [_unsupported(path, value, supported)]


def _name(path: str, name: str) -> list[Cause]:
    if not name:
        return [_required(path)]
    errors = subdomain_errors(name)
    if errors:
        return [_invalid(path, name, ",".join(errors))]
    if len(name.split(".")) < 3:
        return [_invalid(path, name, "should be a domain with at least three segments separated by dots")]
    return []


def _review_versions(path: str, versions: list[str]) -> list[Cause]:
    if not versions:
        return [_required(path, "must specify one of v1, v1beta1")]
    if not any(v in REVIEW_VERSIONS for v in versions):
        shown = "[]string{" + ", ".join(go_quote(v) for v in versions) + "}"
        return [Cause(path, f"Invalid value: {shown}: must include at least one of v1, v1beta1")]
    return []


def _rule(path: str, rule: dict) -> list[Cause]:
    causes: list[Cause] = []
    for field, allowed, noun in (("operations", OPERATIONS, "operations"), ("apiGroups", None, "API groups"),
                                 ("apiVersions", None, "API versions")):
        values = rule.get(field) or []
        if not values:
            causes.append(_required(f"{path}.{field}"))
        elif "*" in values and len(values) > 1:
            causes.append(_invalid(f"{path}.{field}", "[" + " ".join(values) + "]",
                                   f"if '*' is present, must not specify other {noun}"))
        for k, value in enumerate(values):
            if allowed and value not in allowed:
                causes.append(_unsupported(f"{path}.{field}[{k}]", value, allowed))
    causes += _resources(f"{path}.resources", rule.get("resources") or [])
    causes += _choice(f"{path}.scope", rule.get("scope"), SCOPES)
    return causes


def _resources(path: str, resources: list[str]) -> list[Cause]:
    if not resources:
        return [_required(path)]
    causes = []
    if "*/*" in resources and len(resources) > 1:
        causes.append(_invalid(path, "[" + " ".join(resources) + "]",
                               "if '*/*' is present, must not specify other resources"))
    if "*" in resources and any("/" not in r and r != "*" for r in resources):
        causes.append(_invalid(path, "[" + " ".join(resources) + "]",
                               "if '*' is present, must not specify other resources without subresources"))
    for k, resource in enumerate(resources):
        if not resource:
            causes.append(_required(f"{path}[{k}]"))
    return causes


def _client_config(path: str, config: dict) -> list[Cause]:
    url, service = config.get("url"), config.get("service")
    if (url is None) == (service is None):
        return [_required(path, "exactly one of url or service is required")]
    return _url(f"{path}.url", url) if url is not None else _service(f"{path}.service", service)


def _url(path: str, url: str) -> list[Cause]:
    parts = urlsplit(url)
    if parts.scheme != "https":
        return [_invalid(path, url, "'https' is the only allowed URL scheme; desired format: https://host[/path]")]
    for present, detail in ((not parts.hostname, "host must be specified"),
                            (parts.username is not None, "user information is not permitted in the URL"),
                            (bool(parts.fragment) or url.endswith("#"), "fragments are not permitted in the URL"),
                            (bool(parts.query) or "?" in url, "query parameters are not permitted in the URL")):
        if present:
            return [_invalid(path, url, detail)]
    return []


def _service(path: str, service: dict) -> list[Cause]:
    causes = []
    if not service.get("name"):
        causes.append(_required(f"{path}.name", "service name is required"))
    if not service.get("namespace"):
        causes.append(_required(f"{path}.namespace", "service namespace is required"))
    svc_path = service.get("path")
    if svc_path is not None and not svc_path.startswith("/"):
        causes.append(_invalid(f"{path}.path", svc_path, "must start with a '/'"))
    port = service.get("port")
    if port is not None and not 1 <= port <= 65535:
        causes.append(_invalid(f"{path}.port", port, "port is not valid: must be between 1 and 65535, inclusive"))
    return causes

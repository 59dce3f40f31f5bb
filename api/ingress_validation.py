"""Ingress and IngressClass validation with Kubernetes' wording (`pkg/apis/networking/validation`),
and the DefaultIngressClass admission plugin's choice of class for a new Ingress."""
from __future__ import annotations

import ipaddress

from api import names
from api.service_validation import forbidden, invalid, required, unsupported
from api.status import Cause

CLASS_ANNOTATION = "kubernetes.io/ingress.class"
DEFAULT_CLASS_ANNOTATION = "ingressclass.kubernetes.io/is-default-class"
PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")
BAD_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
BAD_SUFFIXES = ("/..", "/.")


def validate_ingress(obj: dict) -> list[Cause]:
    spec = obj.get("spec") or {}
    causes: list[Cause] = []
    annotated = (obj["metadata"].get("annotations") or {}).get(CLASS_ANNOTATION)
    if annotated and spec.get("ingressClassName") and annotated != spec["ingressClassName"]:
        causes.append(invalid(f"metadata.annotations.{CLASS_ANNOTATION}", annotated,
                              "must match `ingressClassName` when both are specified"))
    if not spec.get("rules") and not spec.get("defaultBackend"):
        causes.append(Cause("spec", "Invalid value: null: either `defaultBackend` or `rules` must be specified"))
    if spec.get("defaultBackend"):
        causes += _backend("spec.defaultBackend", spec["defaultBackend"])
    for i, rule in enumerate(spec.get("rules") or []):
        causes += _rule(f"spec.rules[{i}]", rule)
    return causes


def _rule(path: str, rule: dict) -> list[Cause]:
    causes = _host(f"{path}.host", rule["host"]) if rule.get("host") else []
    http = rule.get("http")
    if http is None:
        return causes
    if not http.get("paths"):
        return causes + [required(f"{path}.http.paths")]
    for j, item in enumerate(http["paths"]):
        causes += _path(f"{path}.http.paths[{j}]", item)
    return causes


def _host(path: str, host: str) -> list[Cause]:
    try:
        ipaddress.ip_address(host)
        return [invalid(path, host, "must be a DNS name, not an IP address")]
    except ValueError:
        pass
    if host.startswith("*."):
        return [invalid(path, host, e) for e in names.subdomain_errors(host[2:])]
    return [invalid(path, host, e) for e in names.subdomain_errors(host)]


def _path(path: str, item: dict) -> list[Cause]:
    kind, value = item.get("pathType"), item.get("path") or ""
    if not kind:
        return [Cause(f"{path}.pathType", "Required value: pathType must be specified", "FieldValueRequired")]
    if kind not in PATH_TYPES:
        return [unsupported(f"{path}.pathType", kind, PATH_TYPES)]
    causes = _backend(f"{path}.backend", item.get("backend") or {})
    if kind == "ImplementationSpecific" and not value:
        return causes
    if not value.startswith("/"):
        return causes + [invalid(f"{path}.path", value, "must be an absolute path")]
    bad = next((s for s in BAD_SEQUENCES if s in value), None)
    if bad:
        return causes + [invalid(f"{path}.path", value, f"must not contain '{bad}'")]
    end = next((s for s in BAD_SUFFIXES if value.endswith(s)), None)
    return causes + ([invalid(f"{path}.path", value, f"cannot end with '{end}'")] if end else [])


def _backend(path: str, backend: dict) -> list[Cause]:
    service, resource = backend.get("service"), backend.get("resource")
    if service and resource:
        return [invalid(path, "", "cannot set both resource and service backends")]
    if not service and not resource:
        return [invalid(path, "", "resource or service backend is required")]
    if resource:
        return []
    causes = [] if service.get("name") else [required(f"{path}.service.name")]
    port = service.get("port") or {}
    if port.get("name") and port.get("number"):
        causes.append(invalid(f"{path}.service.port", "", "cannot set both port name & port number"))
    elif not port.get("name") and not port.get("number"):
        causes.append(invalid(f"{path}.service.port", "", "port name or number is required"))
    return causes


def validate_ingress_class(obj: dict) -> list[Cause]:
    controller = (obj.get("spec") or {}).get("controller")
    if not controller:
        return [required("spec.controller")]
    if len(controller) > 250:
        return [Cause("spec.controller", "Too long: may not be more than 250 bytes", "FieldValueTooLong")]
    domain, slash, rest = controller.partition("/")
    if not slash or not rest:
        return [invalid("spec.controller", controller, "must be a domain-prefixed path (such as \"acme.io/foo\")")]
    return [invalid("spec.controller", controller, e) for e in names.subdomain_errors(domain)]


def ingress_class_update(old: dict, new: dict) -> list[Cause]:
    before, after = (old.get("spec") or {}).get("controller"), (new.get("spec") or {}).get("controller")
    return [forbidden("spec.controller", "field is immutable")] if before != after else []


def default_class(classes: list[dict]) -> str | None:
    """The class a new Ingress without one gets: of those marked default, the newest (lowest name on a tie)."""
    marked = [c for c in classes
              if (c["metadata"].get("annotations") or {}).get(DEFAULT_CLASS_ANNOTATION) == "true"]
    if not marked:
        return None
    newest = max(c["metadata"].get("creationTimestamp") or "" for c in marked)
    return min(c["metadata"]["name"] for c in marked if (c["metadata"].get("creationTimestamp") or "") == newest)

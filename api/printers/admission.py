"""kubectl's columns for ValidatingAdmissionPolicies and their bindings (Kubernetes' printers.go)."""
from __future__ import annotations

from api.printers.workloads import age, selector_text


def policy(p: dict, wide: bool) -> list[str]:
    spec = p.get("spec") or {}
    kind = spec.get("paramKind")
    shown = f"{kind.get('apiVersion', '')}/{kind.get('kind', '')}" if kind else "<unset>"
    return [p["metadata"]["name"], str(len(spec.get("validations") or [])), shown,
            age(p["metadata"].get("creationTimestamp"))]


def binding(b: dict, wide: bool) -> list[str]:
    spec = b.get("spec") or {}
    ref = spec.get("paramRef")
    shown = "<unset>"
    if ref and ref.get("name"):
        shown = f"{ref['namespace']}/{ref['name']}" if ref.get("namespace") else ref["name"]
    elif ref and ref.get("selector") is not None:
        shown = f"{ref.get('namespace') or '*'}/{selector_text(ref['selector']) or '*'}"
    return [b["metadata"]["name"], spec.get("policyName", ""), shown, age(b["metadata"].get("creationTimestamp"))]


COLUMNS = {
    "ValidatingAdmissionPolicy": (["NAME", "VALIDATIONS", "PARAMKIND", "AGE"], [], policy),
    "ValidatingAdmissionPolicyBinding": (["NAME", "POLICYNAME", "PARAMREF", "AGE"], [], binding),
}

"""DefaultIngressClass: a new Ingress that names no class (neither `spec.ingressClassName` nor the
old annotation) gets the default IngressClass, the one annotated
`ingressclass.kubernetes.io/is-default-class: "true"` (the newest, if several are)."""
from __future__ import annotations

from api.ingress_validation import CLASS_ANNOTATION, default_class


class DefaultIngressClass:
    name = "DefaultIngressClass"

    def mutate(self, a) -> None:
        if a.kind != "Ingress" or a.operation != "CREATE" or a.subresource:
            return
        spec = a.obj.setdefault("spec", {})
        if spec.get("ingressClassName") or (a.obj["metadata"].get("annotations") or {}).get(CLASS_ANNOTATION):
            return
        chosen = default_class(a.cache.list("IngressClass"))
        if chosen:
            spec["ingressClassName"] = chosen

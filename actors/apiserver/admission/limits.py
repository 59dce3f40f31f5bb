"""LimitRanger: a namespace's LimitRanges default a new pod's requests and limits, then bound them."""
from __future__ import annotations

from api import limitranger


class LimitRanger:
    name = "LimitRanger"

    def mutate(self, a) -> None:
        ranges = a.cache.list("LimitRange", a.namespace) if a.pod_create else None
        if ranges:
            a.obj = limitranger.default(a.obj, ranges)

    def validate(self, a) -> None:
        ranges = a.cache.list("LimitRange", a.namespace) if a.pod_create else None
        if ranges:
            limitranger.validate(a.obj, ranges)

"""Resource paths: `/api/v1/[namespaces/{ns}/]{plural}[/{name}]` and the same under
`/apis/{group}/{version}`, mapped to a kind of the registry."""
from __future__ import annotations

from dataclasses import dataclass

from api.registry import KINDS, KindInfo

BY_PLURAL: dict[tuple[str, str], KindInfo] = {(info.api_version, info.plural): info for info in KINDS.values()}


@dataclass(frozen=True)
class Target:
    info: KindInfo
    namespace: str | None
    name: str | None


def split(path: str) -> tuple[str, list[str]] | None:
    """(apiVersion, the segments after it) for a path under `/api/v1` or `/apis/g/v`, else None."""
    parts = [p for p in path.split("/") if p]
    if parts[:2] == ["api", "v1"]:
        return "v1", parts[2:]
    if parts[:1] == ["apis"] and len(parts) >= 3:
        return f"{parts[1]}/{parts[2]}", parts[3:]
    return None


def target(api_version: str, rest: list[str]) -> Target | None:
    """The kind, namespace and name a resource path names; None when it names none we serve
    (subresources included, for now)."""
    namespace = None
    if len(rest) >= 3 and rest[0] == "namespaces":
        namespace, rest = rest[1], rest[2:]
    if not 1 <= len(rest) <= 2:
        return None
    info = BY_PLURAL.get((api_version, rest[0]))
    if info is None or (namespace is not None and not info.namespaced):
        return None
    return Target(info, namespace, rest[1] if len(rest) == 2 else None)

"""Resource paths: `/api/v1/[namespaces/{ns}/]{plural}[/{name}[/{subresource}]]` and the same under
`/apis/{group}/{version}`, mapped to a kind of the registry (or to an access review)."""
from __future__ import annotations

from dataclasses import dataclass

from api.autoscalingv1 import OTHER_VERSIONS
from api.registry import CUSTOM, KINDS, REVIEWS, KindInfo

BY_PLURAL: dict[tuple[str, str], KindInfo] = {(info.api_version, info.plural): info for info in KINDS.values()}
BY_PLURAL.update({(api_version, KINDS[kind].plural): KINDS[kind] for kind, api_version in OTHER_VERSIONS})
REVIEW_PATHS = {(f"{group}/v1", plural): kind for kind, (group, plural) in REVIEWS.items()}
SUBRESOURCES = {"status", "scale", "binding", "log", "eviction", "token", "exec", "attach", "portforward"}


@dataclass(frozen=True)
class Target:
    info: KindInfo
    namespace: str | None
    name: str | None
    subresource: str | None = None
    api_version: str = ""  # as the path names it (a custom kind in each of its served versions, a built-in
    # one in its own and those of api/autoscalingv1.OTHER_VERSIONS)


def split(path: str) -> tuple[str, list[str]] | None:
    """(apiVersion, the segments after it) for a path under `/api/v1` or `/apis/g/v`, else None."""
    parts = [p for p in path.split("/") if p]
    if parts[:2] == ["api", "v1"]:
        return "v1", parts[2:]
    if parts[:1] == ["apis"] and len(parts) >= 3:
        return f"{parts[1]}/{parts[2]}", parts[3:]
    return None


def target(api_version: str, rest: list[str]) -> Target | None:
    """The kind, namespace, name and subresource a resource path names; None when it names none we
    serve (`namespaces/{ns}` alone names the Namespace `ns`)."""
    namespace = None
    if len(rest) >= 3 and rest[0] == "namespaces":
        namespace, rest = rest[1], rest[2:]
    elif len(rest) in (2, 3) and rest[0] == "namespaces":
        return _target(api_version, rest, None)
    if not 1 <= len(rest) <= 3:
        return None
    found = _target(api_version, rest, namespace)
    if found is None or (namespace is not None and not found.info.namespaced):
        return None
    return found


def by_plural(api_version: str, plural: str) -> KindInfo | None:
    """A built-in kind, or a custom one served in that version."""
    info = BY_PLURAL.get((api_version, plural))
    if info is not None:
        return info
    group, _, version = api_version.rpartition("/")
    return next((i for i in CUSTOM.values() if i.plural == plural and i.group == group
                 and version in getattr(i, "versions", ())), None)


def _target(api_version: str, rest: list[str], namespace: str | None) -> Target | None:
    info = by_plural(api_version, rest[0])
    subresource = rest[2] if len(rest) == 3 else None
    if info is None or (subresource is not None and subresource not in SUBRESOURCES):
        return None
    return Target(info, namespace, rest[1] if len(rest) >= 2 else None, subresource, api_version)


def review_kind(api_version: str, rest: list[str]) -> str | None:
    """`SelfSubjectAccessReview` for `/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, …"""
    return REVIEW_PATHS.get((api_version, rest[0])) if len(rest) == 1 else None


def converters(target: Target):
    """(out of storage, into it) when the path names a built-in kind in another version than its own."""
    return OTHER_VERSIONS.get((target.info.kind, target.api_version))

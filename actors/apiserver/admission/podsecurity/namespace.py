"""Pod Security on a namespace update that tightens enforce (ValidateNamespace,
EvaluatePodsInNamespace): the existing pods are dry-run against the new level, never refused."""
from __future__ import annotations

from typing import Callable

from actors.apiserver.admission.podsecurity import checks as c
from actors.apiserver.admission.podsecurity.checks import PRIVILEGED, go_quote
from actors.apiserver.admission.podsecurity.policy import (MAX_PODS_TO_CHECK, LevelVersion, _run, compare_levels,
                                                           parse_policy, reasons)


def namespace_warnings(new_labels: dict | None, old_labels: dict | None, pods: list[dict] | None, *,
                       namespace: str | None = None, max_pods: int = MAX_PODS_TO_CHECK,
                       out_of_time: Callable[[], bool] | None = None) -> list[str]:
    """Warnings for a namespace update whose new enforce level is stricter: the existing pods are
    dry-run against it, never refused. `pods` None means they could not be listed; `namespace`
    defaults to the pods' own; `out_of_time` is asked after each pod (upstream allows 1 s)."""
    new, old = parse_policy(new_labels)[0].enforce, parse_policy(old_labels)[0].enforce
    if not tightens(new, old):
        return []
    if pods is None:
        return ["failed to list pods while checking new PodSecurity enforce level"]
    if namespace is None:
        namespace = next((c.dig(p, "metadata", "namespace") or "" for p in pods), "")
    return _dry_run(namespace, new, _prioritize(pods), max_pods, out_of_time or (lambda: False))


def tightens(new: LevelVersion, old: LevelVersion) -> bool:
    """Not privileged, and a stricter level at the same version or any other version."""
    if new == old or new.level == PRIVILEGED:
        return False
    return new.version != old.version or compare_levels(new.level, old.level) > 0


def _prioritize(pods: list[dict]) -> list[dict]:
    """One pod per controller first, so a namespace of big ReplicaSets still samples each one."""
    first, repeats, seen = [], [], set()
    for pod in pods:
        owner = next((r.get("uid") for r in c.dig(pod, "metadata", "ownerReferences") or []
                      if r.get("controller") is True), None)
        (repeats if owner is not None and owner in seen else first).append(pod)
        if owner is not None:
            seen.add(owner)
    return first + repeats


def _dry_run(namespace: str, enforce: LevelVersion, pods: list[dict], max_pods: int,
             out_of_time: Callable[[], bool]) -> list[str]:
    total, pods = len(pods), pods[:max_pods]
    checked, groups = len(pods), {}
    for i, pod in enumerate(pods):
        if found := _run(enforce, pod.get("metadata") or {}, pod.get("spec") or {}):
            groups.setdefault(reasons(found), []).append(c.dig(pod, "metadata", "name") or "")
        if out_of_time():
            checked = i + 1
            break
    warnings = [f"new PodSecurity enforce level only checked against the first {checked} of {total} existing pods"
                ] if checked < total else []
    if groups:
        warnings.append(f"existing pods in namespace {go_quote(namespace)} violate the new PodSecurity enforce level "
                        f"{go_quote(str(enforce))}")
    return warnings + sorted(_pod_line(reason, names) for reason, names in groups.items())


def _pod_line(reason: str, names: list[str]) -> str:
    """`<first name>: <reasons>`, with `(and N other pod(s))` when more pods share the reasons."""
    others = len(names) - 1
    more = "" if not others else " (and 1 other pod)" if others == 1 else f" (and {others} other pods)"
    return f"{min(names)}{more}: {reason}"

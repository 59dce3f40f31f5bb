"""The CRD naming and establishing decisions (apiextensions' naming controller and establishing
controller), pure: which names a CRD is given, and its NamesAccepted / Established conditions."""
from __future__ import annotations

from api.apiextensions import condition, storage_version
from api.registry import KINDS

NAME_FIELDS = (("plural", "PluralConflict"), ("singular", "SingularConflict"))


def _taken(others: list[dict], group: str) -> tuple[set[str], set[str]]:
    """Resource names (plural, singular, short) of the group's other CRDs, and kinds of every CRD (kubus
    keys objects by kind, so a kind is one cluster-wide) and the built-in ones."""
    resources, kinds = set(), {k for k in KINDS} | {i.model.KIND + "List" for i in KINDS.values()}
    for crd in others:
        names = (crd.get("status") or {}).get("acceptedNames") or {}
        if crd["spec"].get("group") == group:
            resources |= {names.get("plural"), names.get("singular"), *(names.get("shortNames") or [])}
        kinds |= {names.get("kind"), names.get("listKind")}
    return resources - {None, ""}, kinds - {None, ""}


def names_verdict(crd: dict, others: list[dict]) -> tuple[dict, str, str]:
    """(accepted names, reason, message): NoConflicts, or the first conflict Kubernetes reports."""
    names = crd["spec"]["names"]
    resources, kinds = _taken(others, crd["spec"]["group"])
    for field, reason in NAME_FIELDS:
        if names.get(field) in resources:
            return _old(crd), reason, f'"{names[field]}" is already in use'
    for short in names.get("shortNames") or []:
        if short in resources:
            return _old(crd), "ShortNamesConflict", f'"{short}" is already in use'
    for field, reason in (("kind", "KindConflict"), ("listKind", "ListKindConflict")):
        if names.get(field) in kinds:
            return _old(crd), reason, f'"{names[field]}" is already in use'
    return dict(names), "NoConflicts", "no conflicts found"


def _old(crd: dict) -> dict:
    return dict((crd.get("status") or {}).get("acceptedNames") or {"plural": "", "kind": ""})


def desired_status(crd: dict, others: list[dict], now: str) -> dict:
    """The CRD's status as the naming and establishing controllers leave it."""
    status = dict(crd.get("status") or {})
    accepted, reason, message = names_verdict(crd, others)
    status["acceptedNames"] = accepted
    ok = reason == "NoConflicts"
    conditions = [c for c in status.get("conditions") or [] if c.get("type") not in ("NamesAccepted", "Established")]
    conditions.append(_cond(crd, "NamesAccepted", ok, reason, message, now))
    established = condition(crd, "Established")
    if established and established.get("status") == "True":
        conditions.append(established)  # Established never goes back
    elif ok:
        conditions.append(_cond(crd, "Established", True, "InitialNamesAccepted", "the initial names have been "
                                                                                  "accepted", now))
    else:
        conditions.append(_cond(crd, "Established", False, "NotAccepted", "not all names are accepted", now))
    status["conditions"] = conditions
    stored = list(status.get("storedVersions") or [])
    if storage_version(crd) and storage_version(crd) not in stored:
        stored.append(storage_version(crd))
    status["storedVersions"] = stored
    return status


def _cond(crd: dict, type_: str, ok: bool, reason: str, message: str, now: str) -> dict:
    old = condition(crd, type_) or {}
    value = "True" if ok else "False"
    since = old.get("lastTransitionTime") if old.get("status") == value else now
    return {"type": type_, "status": value, "lastTransitionTime": since or now, "reason": reason, "message": message}

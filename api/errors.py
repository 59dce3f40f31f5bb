"""The API errors that name a kind, as apimachinery's NewNotFound, NewAlreadyExists, NewConflict,
NewInvalid and NewForbidden word them: the plural resource and group come from the registry (the
errors that name no kind are `api/status.py`, which imports nothing of kubus)."""
from __future__ import annotations

from api.registry import known, lookup
from api.status import Cause, StatusError


def resource(kind: str) -> str:
    """The lower-case plural a Kubernetes message names ('pods', 'replicasets.apps')."""
    return lookup(kind).resource


def _about(kind: str, name: str) -> dict[str, str]:
    """Details as apimachinery's NewNotFound & co. give them: the group and the plural resource."""
    info = lookup(kind)
    return {"name": name, **({"group": info.group} if info.group else {}), "kind": info.plural}


def not_found(kind: str, name: str) -> StatusError:
    return StatusError("NotFound", f'{resource(kind)} "{name}" not found', details=_about(kind, name))


def already_exists(kind: str, name: str) -> StatusError:
    return StatusError("AlreadyExists", f'{resource(kind)} "{name}" already exists', details=_about(kind, name))


def conflict(kind: str, name: str, why: str | None = None) -> StatusError:
    text = why or ("the object has been modified; please apply your changes to the latest version "
                   "and try again")
    return StatusError("Conflict", f'Operation cannot be fulfilled on {resource(kind)} "{name}": {text}',
                       details=_about(kind, name))


def invalid(kind: str, name: str, causes: list[Cause]) -> StatusError:
    """apimachinery `NewInvalid`: `Deployment.apps "web" is invalid: <error>`, or `[e1, e2]` for several."""
    group = lookup(kind).group if known(kind) else ""
    errors = list(dict.fromkeys(f"{c.field}: {c.message}" for c in causes))
    text = errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"
    details = {"name": name, "kind": kind, **({"group": group} if group else {})}
    return StatusError("Invalid", f'{f"{kind}.{group}" if group else kind} "{name}" is invalid: {text}', causes,
                       details=details)


def forbidden(kind: str, name: str, why: str) -> StatusError:
    return StatusError("Forbidden", f'{resource(kind)} "{name}" is forbidden: {why}',
                       details={"name": name, "kind": kind})


def admission_forbidden(kind: str, obj: dict | None, why: str) -> StatusError:
    """An admission plugin's Forbidden, named as kube-apiserver names it: the object's name, else its
    generateName (a create before the name is made), else "Unknown"."""
    meta = (obj or {}).get("metadata") or {}
    return forbidden(kind, meta.get("name") or meta.get("generateName") or "Unknown", why)

"""`fieldValidation` (Strict, Warn — the default —, Ignore): the fields of a request body that
Kubernetes does not know, and the fields a JSON body gives twice, named as kube-apiserver names them
(`unknown field "spec.containers[0].imagePullPolice"`, `duplicate field "metadata.name"`), in the
body's order. Known is what Kubernetes' types have (`k8s_fields.json`, written from k8s.io/api by
`scripts/k8s_fields.py`), not what kubus models: kubus keeps the fields it does not model, as they came.
Strict refuses with 400 BadRequest, Warn answers with a warning each, Ignore says nothing."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from api.status import StatusError, bad_request

MODES = ("Strict", "Warn", "Ignore")
SCHEMA = json.loads((Path(__file__).with_name("k8s_fields.json")).read_text())


class Pairs(list):
    """A JSON object as its (key, value) pairs in order, a key given twice kept twice."""


def loads_pairs(raw: bytes | str) -> Any:
    """JSON with every object as Pairs (for the duplicate check)."""
    return json.loads(raw, object_pairs_hook=Pairs)


def plain(value: Any) -> Any:
    """Pairs as dicts (the last of a duplicate wins, as in Kubernetes), all the way down."""
    if isinstance(value, Pairs):
        return {key: plain(item) for key, item in value}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def mode_of(text: str | None) -> str:
    """The query's mode; unset is Warn, as in Kubernetes; anything else is its 400."""
    if text in (None, ""):
        return "Warn"
    if text not in MODES:
        raise bad_request(f'fieldValidation: Unsupported value: "{text}": supported values: '
                          f'"Ignore", "Strict", "Warn"')
    return text


def problems(kind: str, body: Any) -> list[str]:
    """`unknown field "…"` and `duplicate field "…"` for a body of `kind` (dicts or Pairs), in its order."""
    found: list[str] = []
    _walk(body, SCHEMA["kinds"].get(kind), "", found)
    return found


def checked(kind: str, body: Any, mode: str, refusal: str = "", unknown: list[str] = ()) -> list[str]:
    """The warnings a write answers with (Warn), none (Ignore), or the Strict 400: `refusal` prefixed,
    as a create or an update says which kind could not be read. `unknown`: a custom kind's unknown
    fields, found by its schema's pruning (k8s_fields.json knows only built-in kinds)."""
    if mode == "Ignore":
        return []
    found = [*unknown, *problems(kind, body)]
    if found and mode == "Strict":
        raise StatusError("BadRequest", f"{refusal}strict decoding error: {', '.join(found)}")
    return found


def _walk(value: Any, ref: str | None, path: str, found: list[str]) -> None:
    if ref is not None and ref[0] == "[":
        for i, item in enumerate(value if isinstance(value, list) else ()):
            _walk(item, ref[1:-1], f"{path}[{i}]", found)
        return
    if not isinstance(value, (dict, Pairs)):
        if isinstance(value, list):  # a free-form list: duplicates inside it still count
            for i, item in enumerate(value):
                _walk(item, None, f"{path}[{i}]", found)
        return
    fields = SCHEMA["types"].get(ref) if ref is not None and ref[0] != "{" else None
    seen: set[str] = set()
    for key, item in (value if isinstance(value, Pairs) else value.items()):
        where = f"{path}.{key}" if path else key
        if key in seen:
            found.append(f'duplicate field "{where}"')
        elif fields is not None and key not in fields and not key.startswith("$"):  # `$patch` & co.: SMP's
            found.append(f'unknown field "{where}"')
        seen.add(key)
        inner = ref[1:-1] if ref is not None and ref[0] == "{" else (fields or {}).get(key)
        _walk(item, inner, where, found)

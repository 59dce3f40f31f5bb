"""Server-side printing: a `meta.k8s.io/v1` Table of a list or one object, with the columns the
`kubus` CLI prints (wide-only columns at priority 1, which kubectl shows with `-o wide`)."""
from __future__ import annotations

from api.printers import columns as printers

TABLE_CONTENT_TYPE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def wants_table(accept: str | None) -> bool:
    return any("as=Table" in part and "g=meta.k8s.io" in part and "v=v1" in part.replace("v1beta1", "")
               for part in (accept or "").split(","))


def table(kind: str, items: list[dict], rev: str, include_object: str | None) -> dict:
    base, wide, _ = printers.COLUMNS.get(kind, printers.GENERIC)
    columns = [_column(name, 0) for name in base] + [_column(name, 1) for name in wide]
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": rev},
            "columnDefinitions": columns,
            "rows": [{"cells": printers.row(kind, obj, True, False), "object": _object(obj, include_object)}
                     for obj in items]}


def _column(name: str, priority: int) -> dict:
    return {"name": name.title(), "type": "string", "format": "name" if name == "NAME" else "",
            "description": "", "priority": priority}


def _object(obj: dict, include_object: str | None) -> dict | None:
    """`Metadata` (the default): PartialObjectMetadata, which kubectl reads for NAMESPACE and
    `--show-labels`; `Object`: the whole object (for `--sort-by`); `None`: nothing."""
    if include_object == "None":
        return None
    if include_object == "Object":
        return obj
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj.get("metadata") or {}}

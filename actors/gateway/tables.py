"""Server-side printing: a `meta.k8s.io/v1` Table of a list or one object, with the columns the
`kubus` CLI prints (wide-only columns at priority 1, which kubectl shows with `-o wide`). A kind with
no columns of its own gets kube-apiserver's default table convertor (`registry/rest/table.go`): Name
and Created At, as Kubernetes answers for any resource — never 406."""
from __future__ import annotations

from api.customkinds import custom
from api.printers import columns as printers
from api.printers import customcolumns

TABLE_CONTENT_TYPE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def wants_table(accept: str | None) -> bool:
    return any("as=Table" in part and "g=meta.k8s.io" in part and "v=v1" in part.replace("v1beta1", "")
               for part in (accept or "").split(","))


DEFAULT_COLUMNS = [
    {"name": "Name", "type": "string", "format": "name", "priority": 0,
     "description": "Name must be unique within a namespace. Is required when creating resources, although some "
                    "resources may allow a client to request the generation of an appropriate name automatically. "
                    "Name is primarily intended for creation idempotence and configuration definition. Cannot be "
                    "updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"},
    {"name": "Created At", "type": "date", "format": "", "priority": 0,
     "description": "CreationTimestamp is a timestamp representing the server time when this object was created."}]


def table(kind: str, items: list[dict], rev: str, include_object: str | None) -> dict:
    info = custom(kind)
    if info is not None:
        columns = customcolumns.definitions(info.columns)
        cells = [customcolumns.cells(info.columns, obj) for obj in items]
    elif kind in printers.COLUMNS:
        base, wide, _ = printers.COLUMNS[kind]
        columns = [_column(name, 0) for name in base] + [_column(name, 1) for name in wide]
        cells = [printers.row(kind, obj, True, False) for obj in items]
    else:
        columns = DEFAULT_COLUMNS
        cells = [[(obj.get("metadata") or {}).get("name", ""), (obj.get("metadata") or {}).get("creationTimestamp", "")]
                 for obj in items]
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": rev},
            "columnDefinitions": columns,
            "rows": [{"cells": row, "object": _object(obj, include_object)} for row, obj in zip(cells, items)]}


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

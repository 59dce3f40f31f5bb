"""Tables like kubectl's: one row per object, columns per kind (`workloads.py`, `networking.py`,
`config.py`, `batch.py`, `apps.py`, `replication.py`, `policy.py`, `storage.py`, `admission.py`,
`autoscaling.py`), wide adds more."""
from __future__ import annotations

from api.printers import (admission, apps, autoscaling, batch, config, networking, policy, replication, storage,
                          workloads)
from api.printers.workloads import Row, named

COLUMNS: dict[str, tuple[list[str], list[str], Row]] = {**workloads.COLUMNS, **networking.COLUMNS,
                                                         **config.COLUMNS, **batch.COLUMNS,
                                                         **replication.COLUMNS, **policy.COLUMNS,
                                                         **storage.COLUMNS, **apps.COLUMNS, **admission.COLUMNS,
                                                         **autoscaling.COLUMNS}
GENERIC = (["NAME", "AGE"], [], named)  # a kind without columns of its own


def header(kind: str, wide: bool, namespaced_all: bool, labels: bool = False) -> list[str]:
    base, extra, _ = COLUMNS.get(kind, GENERIC)
    return (["NAMESPACE"] if namespaced_all else []) + base + (extra if wide else []) + (["LABELS"] if labels else [])


def row(kind: str, obj: dict, wide: bool, namespaced_all: bool, labels: bool = False) -> list[str]:
    cells = COLUMNS.get(kind, GENERIC)[2](obj, wide)
    shown = [",".join(f"{k}={v}" for k, v in sorted((obj["metadata"].get("labels") or {}).items())) or "<none>"]
    return ([obj["metadata"].get("namespace", "")] if namespaced_all else []) + cells + (shown if labels else [])


def table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("   ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)

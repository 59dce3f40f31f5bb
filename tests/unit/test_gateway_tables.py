"""A Table asked of a kind: its own columns, or kube-apiserver's default table convertor (Name, Created At)
for a kind that has none — Kubernetes answers a Table for any resource, never 406."""
from __future__ import annotations

from actors.gateway.tables import table

OBJ = {"metadata": {"name": "one", "creationTimestamp": "2026-01-02T03:04:05Z"}}


def test_a_kind_without_columns_gets_name_and_created_at():
    answer = table("Widget", [OBJ], "7", None)
    assert [(c["name"], c["type"], c["format"]) for c in answer["columnDefinitions"]] == [
        ("Name", "string", "name"), ("Created At", "date", "")]
    assert answer["rows"][0]["cells"] == ["one", "2026-01-02T03:04:05Z"]
    assert answer["rows"][0]["object"]["kind"] == "PartialObjectMetadata"


def test_a_kind_with_columns_keeps_them():
    answer = table("Namespace", [{**OBJ, "status": {"phase": "Active"}}], "7", "None")
    assert [c["name"] for c in answer["columnDefinitions"]][:2] == ["Name", "Status"]
    assert answer["rows"][0]["object"] is None

"""kubectl's output templates over jsonpath-ng: -o jsonpath, -o custom-columns, --sort-by."""
from __future__ import annotations

import pytest

from cli.jsonpath import TemplateError, custom_columns, render, sort_by

PODS = [{"metadata": {"name": "web-2", "labels": {"app": "web"}}, "spec": {"nodeName": "n2", "priority": 10},
         "status": {"conditions": [{"type": "Ready", "status": "True"}]}},
        {"metadata": {"name": "web-1"}, "spec": {"priority": 2}}]
LIST = {"apiVersion": "v1", "kind": "List", "items": PODS}


@pytest.mark.parametrize("template, expected", [
    pytest.param("{.items[*].metadata.name}", "web-2 web-1", id="a-list"),
    pytest.param('{range .items[*]}{.metadata.name}{"\\t"}{.spec.nodeName}{"\\n"}{end}', "web-2\tn2\nweb-1\t\n",
                 id="range"),
    pytest.param("name={.items[0].metadata.name}", "name=web-2", id="text-around"),
    pytest.param('{.items[0].status.conditions[?(@.type=="Ready")].status}', "True", id="filter"),
    pytest.param("{.items[0].metadata.labels}", '{"app":"web"}', id="a-map-as-json"),
    pytest.param("{.kind}", "List", id="top-level"),
])
def test_jsonpath_templates_print_as_kubectl(template, expected):
    assert render(template, LIST) == expected


def test_a_range_that_is_not_closed_is_an_error():
    with pytest.raises(TemplateError):
        render("{range .items[*]}{.metadata.name}", LIST)


def test_custom_columns_and_sort_by():
    assert custom_columns("NAME:.metadata.name,NODE:.spec.nodeName", PODS) == \
        [["NAME", "NODE"], ["web-2", "n2"], ["web-1", "<none>"]]
    assert [p["metadata"]["name"] for p in sort_by(".spec.priority", PODS)] == ["web-1", "web-2"]
    assert [p["metadata"]["name"] for p in sort_by("{.spec.nodeName}", PODS)] == ["web-1", "web-2"]
    with pytest.raises(TemplateError):
        custom_columns("NAME", PODS)

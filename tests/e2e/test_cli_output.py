"""`kubus get` with kubectl's templates against a running cluster: -o jsonpath, -o custom-columns, --sort-by."""
from __future__ import annotations

from tests.e2e.test_cli import kubus
from tests.integration.test_crud import pod


def test_get_prints_templates_and_sorts(cluster, procs):
    for name, node in (("b", "n1"), ("c", None), ("a", "n2")):
        cluster.create(pod(name, **({"nodeName": node} if node else {})))
    names = kubus(procs, "get", "pods", "--sort-by", ".metadata.name", "-o", "jsonpath={.items[*].metadata.name}")
    assert names.stdout == "a b c", names.stderr
    one = kubus(procs, "get", "pod", "a", "-o", 'jsonpath={.metadata.name}{"\\t"}{.spec.nodeName}')
    assert one.stdout == "a\tn2"
    columns = kubus(procs, "get", "pods", "--sort-by", "{.metadata.name}", "-o",
                    "custom-columns=NAME:.metadata.name,NODE:.spec.nodeName")
    assert [line.split() for line in columns.stdout.splitlines()] == \
        [["NAME", "NODE"], ["a", "n2"], ["b", "n1"], ["c", "<none>"]]
    bad = kubus(procs, "get", "pods", "-o", "table")
    assert bad.returncode != 0 and "unable to match a printer suitable for the output format 'table'" in bad.stderr

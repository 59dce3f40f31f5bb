"""`kubus get` with kubectl's templates against a running cluster: -o jsonpath, -o custom-columns, --sort-by;
managedFields left out of -o json|yaml unless --show-managed-fields, each `fieldsV1` its JSON object."""
from __future__ import annotations

import json

import yaml

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


def test_get_shows_managed_fields_as_kubectl_does(cluster, procs):
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "default"},
                    "data": {"a": "1"}})
    tree = {"f:data": {".": {}, "f:a": {}}}
    assert json.loads(cluster.get("ConfigMap", "cfg", "default")["metadata"]["managedFields"][0]["fieldsV1"]) == tree
    plain = kubus(procs, "get", "configmap", "cfg", "-o", "yaml")
    assert plain.returncode == 0 and "managedFields" not in plain.stdout, plain.stderr
    shown = json.loads(kubus(procs, "get", "configmap", "cfg", "-o", "json", "--show-managed-fields").stdout)
    assert shown["metadata"]["managedFields"][0]["fieldsV1"] == tree
    as_yaml = yaml.safe_load(kubus(procs, "get", "configmap", "cfg", "-o", "yaml", "--show-managed-fields").stdout)
    assert as_yaml["metadata"]["managedFields"][0]["fieldsV1"] == tree
    path = kubus(procs, "get", "configmap", "cfg", "-o", "jsonpath={.metadata.managedFields[0].fieldsV1}")
    assert json.loads(path.stdout) == tree

"""The `kubus` command against a running cluster: apply, get, describe, delete. A test marked
`shared_plane` runs on the module's one control plane, in a namespace of its own (each command given
`-n` of it); those that apply examples/ (Namespace `shop`) or need no apiserver keep a cluster of their own."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from runtime.spawn import ROOT
from testkit import cli


def kubus(procs, *args: str) -> subprocess.CompletedProcess:
    return cli.kubus(*args, env=procs.env)


def test_apply_reports_each_document_and_keeps_going(cluster, procs):
    first = kubus(procs, "apply", "-f", "examples/")
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines() == ["namespace/shop created", "pod/hello created", "deployment/ticker created"]
    docs = kubus(procs, "apply", "-f", "examples/kubernetes-docs/")
    assert docs.stdout.splitlines() == ["deployment/nginx-deployment created", "replicaset/frontend created"]
    again = kubus(procs, "apply", "-f", "examples/")
    assert again.stdout.splitlines() == ["namespace/shop unchanged", "pod/hello unchanged", "deployment/ticker unchanged"]
    bad = kubus(procs, "apply", "-f", "examples/invalid/bad.yaml")
    assert bad.returncode == 1
    assert bad.stdout.splitlines() == ["pod/fine created"]
    errors = bad.stderr.splitlines()
    assert len(errors) == 2
    assert "metadata.name: Invalid value" in errors[0] and "spec.restartPolicy: Unsupported value" in errors[0]
    assert "spec.replicas: Invalid value: -1: must be greater than or equal to 0" in errors[1]


def test_get_describe_delete(cluster, procs):
    kubus(procs, "apply", "-f", "examples/")
    table = kubus(procs, "get", "pods", "-A").stdout.splitlines()
    assert table[0].split() == ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert table[1].split()[:4] == ["default", "hello", "0/1", "Pending"]
    listed = json.loads(kubus(procs, "get", "deploy", "-n", "shop", "-o", "json").stdout)
    assert listed["metadata"]["name"] == "ticker" and listed["spec"]["replicas"] == 3
    assert kubus(procs, "get", "pods", "-l", "app=nobody").stderr.strip() == "No resources found."
    described = kubus(procs, "describe", "pod", "hello").stdout
    assert "Name:         hello" in described and "Image:    busybox:1.35" in described
    assert "last-applied-configuration" not in described  # kept on the object, not shown (as kubectl)
    assert kubus(procs, "delete", "pod", "hello").stdout.strip() == 'pod "hello" deleted'
    missing = kubus(procs, "get", "pod", "hello")
    assert missing.returncode == 1 and 'pods "hello" not found (NotFound)' in missing.stderr


@pytest.mark.shared_plane
def test_unknown_kind_is_a_usage_error(cluster, procs):
    result = kubus(procs, "get", "gadgets")
    assert result.returncode == 2 and "gadgets" in result.stderr


@pytest.mark.shared_plane
def test_get_watch_prints_each_change(cluster, procs):
    from tests.e2e.test_supervisor import Output
    from tests.helpers import wait_until
    from tests.integration.test_crud import pod

    cluster.create(pod("first"))
    watcher = subprocess.Popen([sys.executable, "-m", "cli.main", "get", "pods", "-w", "-n", cluster.namespace],
                               cwd=ROOT, env=procs.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = Output(watcher)
    try:
        wait_until(lambda: any(line.startswith("first") for line in out.lines), what="the initial list")
        cluster.create(pod("second"))
        cluster.delete("Pod", "first")
        wait_until(lambda: any(line.startswith("second") for line in out.lines), what="the new pod's line")
        wait_until(lambda: sum(line.startswith("first") for line in out.lines) >= 2, what="the deletion's line")
        assert out.lines[0].split()[:2] == ["NAME", "READY"]
    finally:
        watcher.terminate()
        watcher.wait(10)


def test_get_several_kinds(cluster, procs):
    kubus(procs, "apply", "-f", "examples/")
    out = kubus(procs, "get", "deployments,replicasets,pods", "-n", "shop")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].split() == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    assert "ticker" in out.stdout
    everything = kubus(procs, "get", "all", "-n", "shop")  # `all`: the workload kinds
    assert everything.returncode == 0 and not everything.stdout.startswith("\n")
    names = lambda text: sorted(line.split()[0] for line in text.splitlines() if line)  # noqa: E731
    assert names(everything.stdout) == names(out.stdout)


@pytest.mark.shared_plane
def test_reapply_merges_three_ways_and_pod_specs_stay_immutable(cluster, procs, tmp_path):
    manifest = yaml.safe_load((ROOT / "examples/10-pod.yaml").read_text())
    path = tmp_path / "pod.yaml"

    def apply(doc: dict) -> subprocess.CompletedProcess:
        path.write_text(yaml.safe_dump(doc))
        return kubus(procs, "apply", "-f", str(path), "-n", cluster.namespace)

    assert apply(manifest).stdout.strip() == "pod/hello created"
    cluster.bind("hello", "node-7")  # as the scheduler would: a field no manifest sets
    assert apply(manifest).stdout.strip() == "pod/hello unchanged"
    del manifest["metadata"]["labels"]["app"]
    manifest["spec"]["containers"][0]["image"] = "busybox:1.37"
    assert apply(manifest).stdout.strip() == "pod/hello configured"
    pod = cluster.get("Pod", "hello")
    assert pod["spec"]["nodeName"] == "node-7" and "app" not in pod["metadata"].get("labels", {})
    assert pod["spec"]["containers"][0]["image"] == "busybox:1.37"
    manifest["spec"]["containers"][0]["command"] = ["sleep", "1"]
    refused = apply(manifest)
    assert refused.returncode == 1
    assert "spec: Forbidden: pod updates may not change fields other than" in refused.stderr
    assert "changed: spec.containers" in refused.stderr and "(Invalid)" in refused.stderr


def test_lists_sorted_labels_shown_and_scale_by_kind_and_name(cluster, procs):
    from tests.integration.test_crud import pod

    for name in ("web-b", "web-a", "web-c"):
        cluster.create(pod(name))
    table = kubus(procs, "get", "pods", "--show-labels").stdout.splitlines()
    assert table[0].split()[-1] == "LABELS"
    assert [line.split()[0] for line in table[1:]] == ["web-a", "web-b", "web-c"]
    labels = cluster.get("Pod", "web-a")["metadata"].get("labels") or {}
    assert table[1].split()[-1] == (",".join(f"{k}={v}" for k, v in sorted(labels.items())) or "<none>")
    assert kubus(procs, "apply", "-f", "examples/").returncode == 0
    scaled = kubus(procs, "scale", "deployment", "ticker", "--replicas", "5", "-n", "shop")
    assert scaled.returncode == 0, scaled.stderr
    assert cluster.get("Deployment", "ticker", "shop")["spec"]["replicas"] == 5
    wrong = kubus(procs, "scale", "pod/web-a", "--replicas", "2")
    assert wrong.returncode == 2 and "only deployments, replicasets, replicationcontrollers and statefulsets scale" in wrong.stderr


def test_no_apiserver_is_said_plainly(procs):
    result = kubus(procs, "get", "pods")
    assert result.returncode == 1
    assert f"no apiserver serves cluster '{procs.env['KUBUS_CLUSTER']}'" in result.stderr


@pytest.mark.shared_plane
def test_label_and_annotate(cluster, procs):
    from tests.integration.test_crud import pod

    ns = ("-n", cluster.namespace)
    cluster.create(pod("web"))
    assert kubus(procs, "label", "pod", "web", "env=prod", "tier=front", *ns).stdout.strip() == "pod/web labeled"
    taken = kubus(procs, "label", "pod", "web", "env=dev", *ns)
    assert taken.returncode == 1 and "'env' already has a value (prod), and --overwrite is false" in taken.stderr
    assert kubus(procs, "label", "pod", "web", "env=dev", "tier-", "--overwrite", *ns).returncode == 0
    labels = cluster.get("Pod", "web")["metadata"]["labels"]
    assert labels["env"] == "dev" and "tier" not in labels
    bad = kubus(procs, "label", "pod", "web", "env=not ok!", "--overwrite", *ns)
    assert bad.returncode == 1 and "metadata.labels[env]: Invalid value" in bad.stderr
    assert kubus(procs, "annotate", "pod", "web", "note=hi", *ns).stdout.strip() == "pod/web annotated"
    assert cluster.get("Pod", "web")["metadata"]["annotations"]["note"] == "hi"

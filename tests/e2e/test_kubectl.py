"""kubectl at the versions the dispatcher carries, through the gateway, over hollow nodes and one
process-runtime node: the Kubernetes documentation's Deployment and Pod applied with kubectl's own
validation, read, watched, described, scaled, rolled out and back, patched, waited on, diffed,
drained and deleted — the flow of k8s-rest-api.md §6.1. 1.33 runs by default, 1.27 and 1.31 are slow."""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
import yaml

from tests.conftest import control_plane
from testkit.people import as_person, token_of
from tests.e2e.conftest import kubectl_for, running_gateway
from tests.e2e.test_supervisor import Output
from runtime.spawn import ROOT
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl on the PATH")
TAINT = "kubus.io/process=true:NoSchedule"  # keeps the nginx pods (no command) off the process node
DOCS_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nginx"},  # pods/simple-pod.yaml
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.14.2", "ports": [{"containerPort": 80}]}]}}
HELLO = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "hello", "labels": {"app": "hello"}},
         "spec": {"nodeSelector": {"kubernetes.io/hostname": "node-1"},
                  "tolerations": [{"key": "kubus.io/process", "operator": "Exists", "effect": "NoSchedule"}],
                  "containers": [{"name": "hello", "image": "busybox:1.36",
                                  "command": ["sh", "-c", "i=0; while true; do i=$((i+1)); echo line $i; sleep 0.2; done"]}]}}


def binary(version: str) -> str:
    return os.path.join(os.path.dirname(os.path.realpath(shutil.which("kubectl"))), f"kubectl.{version}")


@pytest.fixture
def kube(procs, settings, tmp_path):
    """(a client, kubectl's argv builder for admin) on a cluster of three hollow nodes and node-1."""
    client = control_plane(procs, settings)
    procs.start("actors.scheduler")
    procs.start("actors.kubelet", "--hollow", "3", "--capacity", "cpu=32,memory=64Gi,pods=110")
    procs.start("actors.kubelet", "--node", "node-1", "--taints", TAINT, label="kubelet")
    procs.start("actors.controllers", "replicaset", label="rs-controller")
    procs.start("actors.controllers", "deployment", label="deploy-controller")
    wait_until(lambda: len(client.list("Node").items) == 4, 30, what="four nodes")
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        yield client, url, ca
    client.close()


def kubectl_at(version: str, tmp_path, url, ca, token, namespace: str | None = None):
    """kubectl of that version for a person's token (its context in `namespace`, if given)."""
    (tmp_path / version).mkdir(parents=True)
    own = kubectl_for(tmp_path / version, url, ca, token, namespace)

    def argv(*args: str) -> list[str]:
        return [binary(version), *own.argv(*args)[1:]]

    def kubectl(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(argv(*args), input=stdin, capture_output=True, text=True, timeout=90, cwd=ROOT)
    kubectl.argv = argv
    return kubectl


def ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def streaming(kubectl, *args: str):
    return subprocess.Popen(kubectl.argv(*args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def lines_until(proc: subprocess.Popen, done, what: str, timeout: float = 30) -> list[str]:
    out = Output(proc)
    try:
        wait_until(lambda: done(out.lines), timeout, what=what)
        return list(out.lines)
    except AssertionError as exc:
        state = "running" if proc.poll() is None else f"exited {proc.returncode}"
        raise AssertionError(f"{exc}; kubectl {state}, its last lines: {list(out.lines)[-20:]}") from None
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("version", ["1.33", pytest.param("1.31", marks=pytest.mark.slow),
                                     pytest.param("1.27", marks=pytest.mark.slow)])
def test_kubectl_flow(kube, settings, tmp_path, version):
    client, url, ca = kube
    kubectl = kubectl_at(version, tmp_path, url, ca, token_of(settings, "admin"))
    pod_file, hello_file = tmp_path / "pod.yaml", tmp_path / "hello.yaml"
    pod_file.write_text(yaml.safe_dump(DOCS_POD))
    hello_file.write_text(yaml.safe_dump(HELLO))

    assert "v1.35.4-kubus" in json.loads(ok(kubectl("version", "-o", "json")))["serverVersion"]["gitVersion"]
    pods = next(line for line in ok(kubectl("api-resources", "-o", "wide")).splitlines() if line.startswith("pods "))
    assert pods.split()[:5] == ["pods", "po", "v1", "true", "Pod"] and "watch" in pods

    applied = ok(kubectl("apply", "-f", "examples/00-namespace.yaml", "-f", "examples/kubernetes-docs/",
                         "-f", str(pod_file), "-f", str(hello_file)))
    assert applied.splitlines() == ["namespace/shop created", "deployment.apps/nginx-deployment created",
                                    "replicaset.apps/frontend created", "pod/nginx created", "pod/hello created"]
    assert ok(kubectl("apply", "-f", str(pod_file))).strip() == "pod/nginx unchanged"
    ok(kubectl("rollout", "status", "deployment/nginx-deployment", "-n", "shop", "--timeout=60s"))
    _unknown_field(kubectl, tmp_path)
    _reads(kubectl)
    _watch_and_scale(kubectl)
    _logs(kubectl)
    _rollouts(kubectl, client)
    _labels_patches_wait_diff(kubectl, pod_file)
    _auth(kubectl, settings, tmp_path, version, url, ca)
    assert ok(kubectl("delete", "-f", str(pod_file))).strip() == 'pod "nginx" deleted'
    gone = kubectl("get", "pod", "nginx")
    assert gone.returncode == 1 and 'Error from server (NotFound): pods "nginx" not found' in gone.stderr
    _drain(kubectl, client)


def _unknown_field(kubectl, tmp_path) -> None:
    """kubectl validates through the server (fieldValidation=Strict): a field Kubernetes does not know is
    refused as kube-apiserver refuses it; under `--validate=warn` it is a warning (docs/gateway.md)."""
    typo = {**DOCS_POD, "metadata": {"name": "typo"},
            "spec": {"containers": [{"name": "c", "image": "nginx", "imagePullPolice": "Always"}]}}
    (tmp_path / "typo.yaml").write_text(yaml.safe_dump(typo))
    refused = kubectl("apply", "-f", str(tmp_path / "typo.yaml"))
    assert refused.returncode == 1 and 'Pod in version "v1" cannot be handled as a Pod: strict decoding error: ' \
        'unknown field "spec.containers[0].imagePullPolice"' in refused.stderr, refused.stderr
    applied = kubectl("apply", "--validate=warn", "-f", str(tmp_path / "typo.yaml"))
    assert applied.returncode == 0 and applied.stdout.strip() == "pod/typo created", applied.stderr
    assert 'Warning: unknown field "spec.containers[0].imagePullPolice"' in applied.stderr
    ok(kubectl("delete", "pod", "typo", "--wait=false"))


def _reads(kubectl) -> None:
    wide = ok(kubectl("get", "pods", "-n", "shop", "-o", "wide", "-l", "app=nginx")).splitlines()
    assert wide[0].split()[:9] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED", "NODE"]
    assert len(wide) == 4 and all(row.split()[1:3] == ["1/1", "Running"] for row in wide[1:])
    deployment = yaml.safe_load(ok(kubectl("get", "deploy", "nginx-deployment", "-n", "shop", "-o", "yaml")))
    assert deployment["status"]["readyReplicas"] == 3 and deployment["spec"]["template"]["spec"]["containers"][0][
        "image"] == "nginx:1.22"  # examples/kubernetes-docs: the tag kubus builds
    listed = json.loads(ok(kubectl("get", "pods", "-n", "shop", "-o", "json")))
    assert listed["kind"] == "List" and len(listed["items"]) == 6
    ok(kubectl("wait", "--for=condition=Ready", "pod/nginx", "--timeout=60s"))
    described = ok(kubectl("describe", "pod", "nginx"))
    assert field(described, "Image") == "nginx:1.14.2" and field(described, "Status") == "Running"
    assert field(ok(kubectl("describe", "deployment", "nginx-deployment", "-n", "shop")), "Replicas") == \
        "3 desired | 3 updated | 3 total | 3 available | 0 unavailable"


def field(described: str, name: str) -> str:
    """The first `Name:   value` of kubectl describe's output, at any indentation."""
    return next(line.split(":", 1)[1].strip() for line in described.splitlines()
                if line.strip().startswith(f"{name}:"))


def _watch_and_scale(kubectl) -> None:
    watcher = streaming(kubectl, "get", "pods", "-n", "shop", "-l", "app=nginx", "-w")
    names = lambda lines: {line.split()[0] for line in lines[1:] if line.strip()}  # noqa: E731
    started = Output(watcher)
    try:
        wait_until(lambda: len(names(started.lines)) == 3, 30, what="the watch's first list")
        assert ok(kubectl("scale", "deployment/nginx-deployment", "-n", "shop", "--replicas=5")).strip() == \
            "deployment.apps/nginx-deployment scaled"
        wait_until(lambda: len(names(started.lines)) == 5, 30, what="two new pods in the watch")
        assert started.lines[0].split()[:3] == ["NAME", "READY", "STATUS"]
    finally:
        watcher.terminate()
        watcher.wait(10)
    ok(kubectl("rollout", "status", "deployment/nginx-deployment", "-n", "shop", "--timeout=60s"))


def _logs(kubectl) -> None:
    ok(kubectl("wait", "--for=condition=Ready", "pod/hello", "--timeout=60s"))
    assert ok(kubectl("logs", "hello", "--tail=1")).strip().startswith("line ")
    follow = streaming(kubectl, "logs", "-f", "hello", "--tail=1")
    lines = lines_until(follow, lambda got: len(got) >= 3, "three followed log lines")
    numbers = [int(line.split()[1]) for line in lines[:3]]
    assert numbers == sorted(numbers) and len(set(numbers)) == 3


def _rollouts(kubectl, client) -> None:
    ns = ("-n", "shop")
    image = lambda: client.get("Deployment", "nginx-deployment", "shop")["spec"]["template"]["spec"][  # noqa: E731
        "containers"][0]["image"]
    ok(kubectl("set", "image", "deployment/nginx-deployment", "nginx=nginx:1.16.1", *ns))
    ok(kubectl("rollout", "status", "deployment/nginx-deployment", *ns, "--timeout=60s"))
    assert image() == "nginx:1.16.1"
    assert "rolled back" in ok(kubectl("rollout", "undo", "deployment/nginx-deployment", *ns))
    ok(kubectl("rollout", "status", "deployment/nginx-deployment", *ns, "--timeout=60s"))
    assert image() == "nginx:1.22"
    assert "restarted" in ok(kubectl("rollout", "restart", "deployment/nginx-deployment", *ns))
    ok(kubectl("rollout", "status", "deployment/nginx-deployment", *ns, "--timeout=60s"))
    template = client.get("Deployment", "nginx-deployment", "shop")["spec"]["template"]
    assert "kubectl.kubernetes.io/restartedAt" in template["metadata"]["annotations"]


def _labels_patches_wait_diff(kubectl, pod_file) -> None:
    assert ok(kubectl("label", "pod", "nginx", "env=prod")).strip() == "pod/nginx labeled"
    assert "env=prod" in ok(kubectl("get", "pod", "nginx", "--show-labels"))
    ok(kubectl("patch", "pod", "nginx", "--type=json", "-p", '[{"op":"add","path":"/metadata/labels/j","value":"1"}]'))
    ok(kubectl("patch", "pod", "nginx", "-p", '{"spec":{"containers":[{"name":"nginx","image":"nginx:1.16.1"}]}}'))
    ok(kubectl("wait", "--for=condition=Ready", "pod/nginx", "--timeout=60s"))
    changed = kubectl("diff", "-f", str(pod_file))  # the manifest's image against the patched one
    assert changed.returncode == 1, changed.stderr
    assert {"-  - image: nginx:1.16.1", "+  - image: nginx:1.14.2"} <= set(changed.stdout.splitlines())
    ok(kubectl("apply", "-f", str(pod_file)))
    assert kubectl("diff", "-f", str(pod_file)).returncode == 0


def _auth(kubectl, settings, tmp_path, version, url, ca) -> None:
    assert ok(kubectl("auth", "can-i", "create", "pods")).strip() == "yes"
    as_person(settings, "bob")
    bob = kubectl_at(version, tmp_path / "bob", url, ca, token_of(settings, "bob"))
    refused = bob("auth", "can-i", "create", "pods")
    assert (refused.returncode, refused.stdout.strip()) == (1, "no")
    explained = ok(kubectl("explain", "pod.spec.containers"))
    assert "KIND:       Pod" in explained or "KIND:     Pod" in explained
    assert "image\t<string>" in explained or "image" in explained.split()


def _drain(kubectl, client) -> None:
    node = next(p["spec"]["nodeName"] for p in client.list("Pod", "shop").items if p["metadata"]["labels"].get("app")
                == "nginx")
    assert ok(kubectl("cordon", node)).strip() == f"node/{node} cordoned"
    assert "SchedulingDisabled" in ok(kubectl("get", "node", node))
    drained = kubectl("drain", node, "--ignore-daemonsets", "--force", "--timeout=60s")
    assert drained.returncode == 0, drained.stderr
    assert "evicting pod shop/" in drained.stderr + drained.stdout and f"node/{node} drained" in drained.stdout
    wait_until(lambda: not [p for p in client.list("Pod", "shop").items if p["spec"].get("nodeName") == node], 30,
               what="the drained node to hold no shop pods")
    assert ok(kubectl("uncordon", node)).strip() == f"node/{node} uncordoned"
    ok(kubectl("rollout", "status", "deployment/nginx-deployment", "-n", "shop", "--timeout=60s"))

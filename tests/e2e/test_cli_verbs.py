"""kubectl's everyday verbs against a running cluster: create, run, set image, patch, wait,
events, api-resources — their output lines and what they did to the objects. A test marked
`shared_plane` runs on the module's one control plane, in a namespace of its own (each command given
`-n` of it, any namespace it makes named after it)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from api.times import now
from bus.topology import Names
from tests.e2e.test_cli import kubus
from runtime.spawn import ROOT
from bus.testkit import cluster_queues
from testkit.waiting import wait_until
from tests.helpers import management_answers


@pytest.mark.shared_plane
def test_create_namespace_and_deployment(cluster, procs):
    shop = f"{cluster.namespace}-shop"  # cluster-scoped: named after the test's namespace
    assert kubus(procs, "create", "namespace", shop).stdout == f"namespace/{shop} created\n"
    assert cluster.get("Namespace", shop)["metadata"]["name"] == shop
    made = kubus(procs, "create", "deployment", "web", "--image=nginx:1.25", "--replicas=2", "-n", shop)
    assert made.stdout == "deployment.apps/web created\n", made.stderr
    d = cluster.get("Deployment", "web", shop)
    assert d["metadata"]["labels"] == {"app": "web"} and d["spec"]["selector"]["matchLabels"] == {"app": "web"}
    assert d["spec"]["template"]["metadata"]["labels"] == {"app": "web"} and d["spec"]["replicas"] == 2
    assert [(c["name"], c["image"]) for c in d["spec"]["template"]["spec"]["containers"]] == [("nginx", "nginx:1.25")]
    again = kubus(procs, "create", "ns", shop)
    assert again.returncode == 1 and f'namespaces "{shop}" already exists (AlreadyExists)' in again.stderr
    cluster.delete("Namespace", shop)


def test_create_from_files_refuses_what_exists(cluster, procs):  # its own cluster: examples/ make `shop`
    first = kubus(procs, "create", "-f", "examples/")
    assert first.stdout.splitlines() == ["namespace/shop created", "pod/hello created",
                                         "deployment.apps/ticker created"], first.stderr
    again = kubus(procs, "create", "-f", "examples/")
    assert (again.returncode, again.stdout) == (1, "")
    assert again.stderr.splitlines() == [
        'Error from server (AlreadyExists): error when creating "examples/00-namespace.yaml": '
        'namespaces "shop" already exists',
        'Error from server (AlreadyExists): error when creating "examples/10-pod.yaml": pods "hello" already exists',
        'Error from server (AlreadyExists): error when creating "examples/20-ticker.yaml": '
        'deployments.apps "ticker" already exists']


@pytest.mark.parametrize("args, labels, container", [
    pytest.param(["--restart=Never", "--env", "K=V", "--", "sleep", "100"], {"run": "x"},
                 {"name": "x", "image": "busybox:1.36", "args": ["sleep", "100"], "env": [{"name": "K", "value": "V"}]},
                 id="args-and-env"),
    pytest.param(["--labels", "a=b,c=d", "--command", "--", "sleep", "1"], {"a": "b", "c": "d"},
                 {"name": "x", "image": "busybox:1.36", "command": ["sleep", "1"]}, id="labels-and-command"),
])
@pytest.mark.shared_plane
def test_run_creates_a_pod_as_kubectl_run(cluster, procs, args, labels, container):
    made = kubus(procs, "run", "x", "--image=busybox:1.36", "-n", cluster.namespace, *args)
    assert made.stdout == "pod/x created\n", made.stderr
    pod = cluster.get("Pod", "x")
    assert pod["metadata"]["labels"] == labels
    assert {k: v for k, v in pod["spec"]["containers"][0].items() if k in container} == container
    assert pod["spec"]["restartPolicy"] == ("Never" if "--restart=Never" in args else "Always")


@pytest.mark.shared_plane
def test_set_image(cluster, procs):
    ns = ("-n", cluster.namespace)
    kubus(procs, "create", "deployment", "web", "--image=nginx:1.25", *ns)
    out = kubus(procs, "set", "image", "deployment/web", "nginx=nginx:1.26", *ns)
    assert out.stdout == "deployment.apps/web image updated\n", out.stderr
    assert cluster.get("Deployment", "web")["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.26"
    same = kubus(procs, "set", "image", "deployment/web", "nginx=nginx:1.26", *ns)
    assert (same.returncode, same.stdout) == (0, "")  # nothing changed: nothing to say, as kubectl
    missing = kubus(procs, "set", "image", "deployment/web", "nope=x:1", *ns)
    assert missing.returncode == 1 and missing.stderr.strip() == 'error: unable to find container named "nope"'
    kubus(procs, "run", "p", "--image=busybox:1.36", *ns)
    assert kubus(procs, "set", "image", "pod", "p", "*=busybox:1.37", *ns).stdout == "pod/p image updated\n"
    assert cluster.get("Pod", "p")["spec"]["containers"][0]["image"] == "busybox:1.37"


@pytest.mark.shared_plane
def test_patch_merge_and_json(cluster, procs):
    ns = ("-n", cluster.namespace)
    kubus(procs, "run", "p", "--image=busybox:1.36", *ns)
    merge = ["patch", "pod", "p", "-p", '{"metadata":{"labels":{"tier":"front"}}}', *ns]
    assert kubus(procs, *merge).stdout == "pod/p patched\n"
    assert cluster.get("Pod", "p")["metadata"]["labels"] == {"run": "p", "tier": "front"}
    assert kubus(procs, *merge).stdout == "pod/p patched (no change)\n"
    ops = [{"op": "test", "path": "/metadata/labels/tier", "value": "front"},
           {"op": "replace", "path": "/spec/containers/0/image", "value": "busybox:1.37"},
           {"op": "remove", "path": "/metadata/labels/run"}]
    out = kubus(procs, "patch", "pod/p", "--type", "json", "-p", json.dumps(ops), *ns)
    assert out.stdout == "pod/p patched\n", out.stderr
    pod = cluster.get("Pod", "p")
    assert pod["spec"]["containers"][0]["image"] == "busybox:1.37" and pod["metadata"]["labels"] == {"tier": "front"}
    failed = kubus(procs, "patch", "pod/p", "--type", "json", "-p",
                   '[{"op": "test", "path": "/metadata/labels/tier", "value": "back"}]', *ns)
    assert failed.returncode == 1 and "testing value /metadata/labels/tier failed" in failed.stderr
    kubus(procs, "create", "deployment", "web", "--image=nginx:1.25", *ns)
    scaled = kubus(procs, "patch", "deploy", "web", "-p", "spec: {replicas: 3}", *ns)
    assert scaled.stdout == "deployment.apps/web patched\n"
    assert cluster.get("Deployment", "web")["spec"]["replicas"] == 3


def _waiter(procs, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cli.main", "wait", *args], cwd=ROOT, env=procs.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _watching(settings) -> None:
    """Until the CLI consumes its watch queue (when the management API can say so): it does once it has
    loaded its snapshot, so what the test changes next is a change it sees, not its starting state."""
    if management_answers(settings.admin_url):
        prefix = Names(settings.cluster).watch_prefix("admin")
        wait_until(lambda: any(q.startswith(prefix) for q in cluster_queues(settings.admin_url, settings.cluster,
                                                                           consumed=True)),
                   what="kubus wait's watch")


def _ready(cluster, name: str) -> None:
    pod = cluster.get("Pod", name)
    cluster.update_status({**pod, "status": {"phase": "Running", "conditions": [
        {"type": "Ready", "status": "True", "lastTransitionTime": now()}]}})


@pytest.mark.shared_plane
def test_wait_for_a_condition_follows_the_watch(cluster, procs, settings):
    ns = ("-n", cluster.namespace)
    kubus(procs, "run", "p", "--image=busybox:1.36", *ns)
    waiter = _waiter(procs, "--for=condition=Ready", "pod/p", "--timeout=30s", *ns)
    _watching(settings)
    _ready(cluster, "p")
    out, err = waiter.communicate(timeout=60)
    assert (waiter.returncode, out) == (0, "pod/p condition met\n"), err
    already = kubus(procs, "wait", "--for=condition=ready", "pods", "p", *ns)
    assert already.stdout == "pod/p condition met\n"


@pytest.mark.shared_plane
def test_wait_times_out_and_finds_nothing(cluster, procs):
    ns = ("-n", cluster.namespace)
    kubus(procs, "run", "p", "--image=busybox:1.36", *ns)
    late = kubus(procs, "wait", "--for=condition=Ready", "pod/p", "--timeout=1s", *ns)
    assert late.returncode == 1 and "timed out waiting for the condition on pods/p" in late.stderr
    once = kubus(procs, "wait", "--for=condition=Ready", "pod/p", "--timeout=0", *ns)
    assert once.returncode == 1 and "condition not met for pods/p" in once.stderr
    ghost = kubus(procs, "wait", "--for=condition=Ready", "pod/ghost", *ns)
    assert ghost.returncode == 1 and 'pods "ghost" not found (NotFound)' in ghost.stderr
    gone = kubus(procs, "wait", "--for=delete", "pod/ghost", *ns)
    assert (gone.returncode, gone.stdout) == (0, "")  # nothing to wait for, as kubectl


@pytest.mark.shared_plane
def test_wait_for_delete(cluster, procs, settings):
    ns = ("-n", cluster.namespace)
    kubus(procs, "run", "p", "--image=busybox:1.36", *ns)
    waiter = _waiter(procs, "--for=delete", "pod/p", *ns)
    _watching(settings)
    cluster.delete("Pod", "p")
    out, err = waiter.communicate(timeout=60)
    assert (waiter.returncode, out) == (0, "pod/p condition met\n"), err


def _event(name: str, reason: str, last: str, ns: str = "default", kind: str = "Pod") -> dict:
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": ns},
            "involvedObject": {"kind": kind, "name": "web", "namespace": ns}, "reason": reason,
            "message": f"{reason} web", "type": "Normal", "count": 1, "firstTimestamp": last, "lastTimestamp": last}


def test_events_oldest_first(cluster, procs):  # its own cluster: `events -A` lists every namespace's
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})
    cluster.create(_event("b", "Started", "2024-01-01T00:00:02Z"))
    cluster.create(_event("a", "Scheduled", "2024-01-01T00:00:01Z", kind="Deployment"))
    cluster.create(_event("c", "Pulled", "2024-01-01T00:00:03Z", ns="shop"))
    rows = [line.split() for line in kubus(procs, "events").stdout.splitlines()]
    assert rows[0] == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert [r[2:] for r in rows[1:]] == [["Scheduled", "Deployment/web", "Scheduled", "web"],
                                         ["Started", "Pod/web", "Started", "web"]]
    everywhere = [line.split() for line in kubus(procs, "events", "-A").stdout.splitlines()]
    assert [(r[0], r[3]) for r in everywhere[1:]] == [("default", "Scheduled"), ("default", "Started"),
                                                      ("shop", "Pulled")]
    about = [line.split() for line in kubus(procs, "events", "--for", "pod/web").stdout.splitlines()]
    assert [r[2] for r in about[1:]] == ["Started"]
    empty = kubus(procs, "events", "-n", "kube-public")
    assert (empty.stdout, empty.stderr) == ("", "No events found in kube-public namespace.\n")


@pytest.mark.shared_plane
def test_api_resources(cluster, procs):
    rows = [line.split() for line in kubus(procs, "api-resources").stdout.splitlines()]
    assert rows[0] == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    assert ["deployments", "deploy", "apps/v1", "true", "Deployment"] in rows
    assert ["leases", "coordination.k8s.io/v1", "true", "Lease"] in rows  # no short name: an empty cell
    names = kubus(procs, "api-resources", "--namespaced=false", "-o", "name").stdout.split()
    assert "namespaces" in names and "clusterroles.rbac.authorization.k8s.io" in names and "pods" not in names

"""kubectl's verbs through the gateway, each asserted as kubectl prints it against a Kubernetes
apiserver (the expected lines are kubectl's own format strings: `<resource>.<group>/<name> <verb>`
from its PrintFlags' operations, the describers' labels, the tables' headers, written from
kubectl's source and Kubernetes' documentation). One cluster (two hollow nodes, the workload
controllers) serves the whole module. 1.33 runs by default; 1.31 and 1.27 are slow."""
from __future__ import annotations

import json
import os
import re
import stat
import subprocess

from concurrent.futures import ThreadPoolExecutor

import pytest
import yaml

from api.registry import KINDS
from runtime.client import Client
from testkit.people import token_of
from testkit.waiting import wait_until
from tests.conftest import module_cluster, wait_serving
from tests.e2e.conftest import running_gateway
from tests.e2e.conformance import ownership_cycle, watch_from_a_lists_version
from tests.e2e.explaining import explain_cases
from tests.e2e.test_kubectl import binary, kubectl_at, lines_until, ok, streaming

NS = "verbs"
CONTROLLERS = ("replicaset", "deployment", "job", "gc", "namespace", "disruption")
VERSIONS = ["1.33", pytest.param("1.31", marks=pytest.mark.slow), pytest.param("1.27", marks=pytest.mark.slow)]
pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")


@pytest.fixture(scope="module", params=VERSIONS)
def kube(request, amqp_url, tmp_path_factory):
    """(kubectl of the version as admin, a client, the working directory) over one cluster a module."""
    with module_cluster(amqp_url, tmp_path_factory, request, f"verbs-{request.param}") as (settings, procs, tmp):
        procs.start("store")
        procs.start("actors.apiserver")
        client = Client(settings, name="test")
        wait_serving(client)
        procs.start("actors.scheduler")
        procs.start("actors.kubelet", "--hollow", "2", "--capacity", "cpu=32,memory=64Gi,pods=110")
        for name in CONTROLLERS:
            procs.start("actors.controllers", name, label=name)
        wait_until(lambda: len(client.list("Node").items) == 2, 30, what="two nodes")
        with running_gateway(procs, settings, tmp) as (url, ca):
            kubectl = kubectl_at(request.param, tmp, url, ca, token_of(settings, "admin"))
            kubectl.version = request.param
            assert ok(kubectl("create", "namespace", NS)).strip() == "namespace/verbs created"
            yield kubectl, client, tmp
        client.close()


CREATES = [  # (kubectl create …, what kubectl prints)
    (("deployment", "web", "--image=nginx", "--replicas=2", "--port=80"), "deployment.apps/web created"),
    (("service", "clusterip", "web", "--tcp=80:80"), "service/web created"),
    (("service", "nodeport", "edge", "--tcp=80:8080"), "service/edge created"),
    (("role", "reader", "--verb=get,list", "--resource=pods"), "role.rbac.authorization.k8s.io/reader created"),
    (("rolebinding", "reader", "--role=reader", "--user=alice"),
     "rolebinding.rbac.authorization.k8s.io/reader created"),
    (("clusterrole", "verbs-nodes", "--verb=get", "--resource=nodes"),
     "clusterrole.rbac.authorization.k8s.io/verbs-nodes created"),
    (("clusterrolebinding", "verbs-nodes", "--clusterrole=verbs-nodes", "--group=ops"),
     "clusterrolebinding.rbac.authorization.k8s.io/verbs-nodes created"),
    (("serviceaccount", "robot"), "serviceaccount/robot created"),
    (("quota", "small", "--hard=pods=20,cpu=16"), "resourcequota/small created"),
    (("priorityclass", "verbs-high", "--value=1000"), "priorityclass.scheduling.k8s.io/verbs-high created"),
    (("ingress", "web", "--rule=shop.example/=web:80"), "ingress.networking.k8s.io/web created"),
    (("configmap", "cfg", "--from-literal=colour=blue"), "configmap/cfg created"),
    (("secret", "generic", "creds", "--from-literal=password=s3cret"), "secret/creds created"),
    (("job", "once", "--image=busybox", "--", "echo", "hi"), "job.batch/once created"),
    (("cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *", "--", "date"), "cronjob.batch/tick created"),
    (("poddisruptionbudget", "web", "--selector=app=web", "--min-available=1"),
     "poddisruptionbudget.policy/web created"),
]


def test_create_family(kube):
    kubectl, client, _ = kube
    for args, printed in CREATES:
        namespaced = () if args[0] in ("clusterrole", "clusterrolebinding", "priorityclass") else ("-n", NS)
        assert ok(kubectl("create", *namespaced, *args)).strip() == printed, args
    token = ok(kubectl("create", "token", "robot", "-n", NS, "--duration=10m")).strip()
    assert re.fullmatch(r"[\w-]+\.[\w-]+\.[\w-]+", token), token  # a JWT, alone on its line
    assert client.get("Secret", "creds", NS)["type"] == "Opaque"
    assert client.get("CronJob", "tick", NS)["spec"]["schedule"] == "*/5 * * * *"
    again = kubectl("create", "configmap", "cfg", "-n", NS)
    assert (again.returncode, again.stderr.strip()) == (
        1, 'error: failed to create configmap: configmaps "cfg" already exists')


def test_run_expose_set_label_annotate(kube):
    kubectl, client, _ = kube
    ns = ("-n", NS)
    assert ok(kubectl("run", "solo", "--image=nginx", "--labels=app=solo", *ns)).strip() == "pod/solo created"
    assert ok(kubectl("expose", "pod", "solo", "--port=80", *ns)).strip() == "service/solo exposed"
    assert client.get("Service", "solo", NS)["spec"]["selector"] == {"app": "solo"}
    ok(kubectl("create", "deployment", "api", "--image=nginx", *ns))
    assert ok(kubectl("expose", "deployment", "api", "--port=8080", "--target-port=80", *ns)).strip() == \
        "service/api exposed"
    sets = [(("env", "deployment/api", "MODE=fast"), "deployment.apps/api env updated"),
            (("resources", "deployment", "api", "--limits=cpu=200m,memory=128Mi"),
             "deployment.apps/api resource requirements updated"),
            (("serviceaccount", "deployment", "api", "default"), "deployment.apps/api serviceaccount updated"),
            (("image", "deployment/api", "nginx=nginx:1.25"), "deployment.apps/api image updated")]
    for args, printed in sets:
        assert ok(kubectl("set", *args, *ns)).strip() == printed, args
    container = client.get("Deployment", "api", NS)["spec"]["template"]["spec"]["containers"][0]
    assert container["env"] == [{"name": "MODE", "value": "fast"}] and container["image"] == "nginx:1.25"
    assert container["resources"]["limits"] == {"cpu": "200m", "memory": "128Mi"}
    assert ok(kubectl("label", "pod", "solo", "tier=front", *ns)).strip() == "pod/solo labeled"
    assert ok(kubectl("label", "pod", "solo", "tier-", *ns)).strip() == "pod/solo unlabeled"
    annotated = "annotate" if kubectl.version == "1.27" else "annotated"  # kubectl 1.27's own word (fixed in 1.28)
    assert ok(kubectl("annotate", "pod", "solo", "note=hello", *ns)).strip() == f"pod/solo {annotated}"
    taken = kubectl("label", "pod", "solo", "app=other", *ns)
    assert taken.returncode == 1 and "'app' already has a value (solo), and --overwrite is false" in taken.stderr


def test_describe_events_logs_wait(kube):
    kubectl, client, _ = kube
    ns = ("-n", NS)
    ok(kubectl("run", "talker", "--image=busybox", *ns, "--", "sh", "-c", "echo hello"))
    assert ok(kubectl("wait", "--for=condition=Ready", "pod/talker", "--timeout=60s", *ns)).strip() == \
        "pod/talker condition met"
    described = ok(kubectl("describe", "pod", "talker", *ns))
    for label, value in [("Name", "talker"), ("Namespace", NS), ("Status", "Running"), ("QoS Class", "BestEffort")]:
        assert field(described, label) == value, label
    assert "Events:" in described and "Scheduled" in described
    events = ok(kubectl("events", *ns, "--for=pod/talker")).splitlines()
    assert events[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert any(line.split()[1:4] == ["Normal", "Scheduled", "Pod/talker"] for line in events[1:]), events
    logs = kubectl("logs", "talker", *ns)  # a simulated container's log: empty, and there
    assert (logs.returncode, logs.stdout, logs.stderr) == (0, "", "")
    ok(kubectl("delete", "pod", "talker", "--wait=false", *ns))
    gone = ok(kubectl("wait", "--for=delete", "pod/talker", "--timeout=60s", *ns)).strip()
    assert gone in ("pod/talker condition met", "")  # nothing printed when it was gone before the wait began


def test_scale_rollout_watch(kube):
    kubectl, client, _ = kube
    ns = ("-n", NS)
    ok(kubectl("create", "deployment", "roll", "--image=nginx:1.24", *ns))
    assert ok(kubectl("rollout", "status", "deployment/roll", "--timeout=60s", *ns)).strip().endswith(
        'deployment "roll" successfully rolled out')
    watch = streaming(kubectl, "get", "deployments", "roll", "-w", "--no-headers", *ns)
    assert ok(kubectl("scale", "deployment", "roll", "--replicas=3", *ns)).strip() == "deployment.apps/roll scaled"
    seen = lines_until(watch, lambda lines: any(line.split()[1:2] == ["3/3"] for line in lines), "3/3 in the watch",
                       60)  # two new pods on hollow nodes, Ready: as long as the rollouts' 60 s under a loaded machine
    assert all(line.split()[0] == "roll" for line in seen if line.strip())
    ok(kubectl("set", "image", "deployment/roll", "nginx=nginx:1.25", *ns))
    ok(kubectl("rollout", "status", "deployment/roll", "--timeout=60s", *ns))
    history = ok(kubectl("rollout", "history", "deployment/roll", *ns)).splitlines()
    assert history[0].strip() == "deployment.apps/roll" and history[1].split() == ["REVISION", "CHANGE-CAUSE"]
    assert [row.split() for row in history[2:] if row.strip()] == [["1", "<none>"], ["2", "<none>"]]
    assert ok(kubectl("rollout", "undo", "deployment/roll", *ns)).strip() == "deployment.apps/roll rolled back"
    ok(kubectl("rollout", "status", "deployment/roll", "--timeout=60s", *ns))
    assert ok(kubectl("rollout", "pause", "deployment/roll", *ns)).strip() == "deployment.apps/roll paused"
    assert ok(kubectl("rollout", "resume", "deployment/roll", *ns)).strip() == "deployment.apps/roll resumed"
    assert ok(kubectl("rollout", "restart", "deployment/roll", *ns)).strip() == "deployment.apps/roll restarted"
    assert ok(kubectl("wait", "--for=condition=Available", "deployment/roll", "--timeout=60s", *ns)).strip() == \
        "deployment.apps/roll condition met"
    top = kubectl("top", "pods", *ns)  # metrics.k8s.io served, no metrics-server behind it (test_kubectl_autoscaling)
    assert (top.returncode, top.stderr.strip()) == (
        1, "Error from server (ServiceUnavailable): the server is currently unable to handle the request "
           "(get pods.metrics.k8s.io)")


def test_autoscale(kube):
    kubectl, client, _ = kube
    ok(kubectl("create", "deployment", "scaled", "--image=nginx", "-n", NS))
    made = kubectl("autoscale", "deployment", "scaled", "--min=1", "--max=3", "--cpu-percent=70", "-n", NS)
    assert ok(made).strip() == "horizontalpodautoscaler.autoscaling/scaled autoscaled"  # < 1.32 posts v1
    stored = client.get("HorizontalPodAutoscaler", "scaled", NS)
    assert stored["spec"]["maxReplicas"] == 3
    assert stored["spec"]["metrics"] == [{"type": "Resource", "resource": {
        "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}]
    v1 = json.loads(ok(kubectl("get", "--raw", f"/apis/autoscaling/v1/namespaces/{NS}/horizontalpodautoscalers/scaled")))
    assert (v1["apiVersion"], v1["spec"]["targetCPUUtilizationPercentage"]) == ("autoscaling/v1", 70)


def test_edit_diff_replace_apply_prune(kube):
    kubectl, client, tmp = kube
    ns = ("-n", NS)
    ok(kubectl("create", "configmap", "edited", "--from-literal=colour=blue", *ns))
    editor = tmp / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/colour: blue/colour: green/' \"$1\"\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    edited = _edit(kubectl, str(editor), "configmap", "edited", *ns)
    assert edited.stdout.strip() == "configmap/edited edited", edited.stderr
    assert client.get("ConfigMap", "edited", NS)["data"] == {"colour": "green"}
    unchanged = _edit(kubectl, "true", "configmap", "edited", *ns)
    assert unchanged.returncode == 0 and unchanged.stderr.strip() == "Edit cancelled, no changes made."
    manifest = yaml.safe_load(ok(kubectl("get", "configmap", "edited", "-o", "yaml", *ns)))
    manifest["data"]["colour"] = "red"
    path = tmp / "edited.yaml"
    path.write_text(yaml.safe_dump(manifest))
    changed = kubectl("diff", "-f", str(path))
    assert changed.returncode == 1, changed.stderr
    assert {"-  colour: green", "+  colour: red"} <= set(changed.stdout.splitlines())
    assert ok(kubectl("replace", "-f", str(path))).strip() == "configmap/edited replaced"
    assert kubectl("diff", "-f", str(path)).returncode == 0
    pruned = _prune_manifests(tmp)  # kubectl's default allowlist: every kind it names is served
    apply = ("apply", "--prune", "-l", "set=pruned", "-f", str(pruned))
    assert sorted(ok(kubectl(*apply)).splitlines()) == ["configmap/p1 created", "configmap/p2 created"]
    (pruned / "p2.yaml").unlink()
    assert ok(kubectl(*apply)).splitlines() == [
        "configmap/p1 unchanged", "configmap/p2 pruned"]


def _edit(kubectl, editor: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(kubectl.argv("edit", *args), capture_output=True, text=True, timeout=90,
                          env={**os.environ, "EDITOR": editor, "KUBE_EDITOR": editor})


def _prune_manifests(tmp):
    folder = tmp / "pruned"
    folder.mkdir()
    for name in ("p1", "p2"):
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(
            {"apiVersion": "v1", "kind": "ConfigMap", "data": {"n": name},
             "metadata": {"name": name, "namespace": NS, "labels": {"set": "pruned"}}}))
    return folder


def test_discovery_explain_auth(kube):
    kubectl, client, _ = kube
    resources = ok(kubectl("api-resources")).splitlines()
    assert resources[0].split() == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    assert ["deployments", "deploy", "apps/v1", "true", "Deployment"] in [row.split() for row in resources]
    versions = ok(kubectl("api-versions")).splitlines()
    assert {"v1", "apps/v1", "batch/v1", "rbac.authorization.k8s.io/v1", "policy/v1"} <= set(versions)
    assert versions == sorted(versions)
    explained = ok(kubectl("explain", "deployment.spec.replicas"))
    assert explained.splitlines()[:2] == ["GROUP:      apps", "KIND:       Deployment"]
    assert "FIELD: replicas <integer>" in explained and "Number of desired pods." in explained
    assert ok(kubectl("auth", "can-i", "create", "deployments", "-n", NS)).strip() == "yes"
    refused = kubectl("auth", "can-i", "delete", "nodes", "--as=nobody")
    assert (refused.returncode, refused.stdout.strip()) == (1, "no")
    if kubectl.version < "1.28":  # it asks v1alpha1/v1beta1 only (off by default: new betas are); v1 is served
        refused = kubectl("auth", "whoami")
        assert (refused.returncode, refused.stderr.splitlines()[0]) == (
            1, "error: the selfsubjectreviews API is not enabled in the cluster")
        return
    whoami = ok(kubectl("auth", "whoami")).splitlines()
    assert whoami[0].split() == ["ATTRIBUTE", "VALUE"] and whoami[1].split() == ["Username", "admin"]
    assert whoami[2].split(None, 1) == ["Groups", "[system:masters system:authenticated]"]


def test_nodes_cordon_taint_drain(kube):
    kubectl, client, _ = kube
    node = "hollow-0"
    assert ok(kubectl("cordon", node)).strip() == f"node/{node} cordoned"
    assert ok(kubectl("cordon", node)).strip() == f"node/{node} already cordoned"
    assert ok(kubectl("taint", "nodes", node, "dedicated=ops:NoSchedule")).strip() == f"node/{node} tainted"
    assert ok(kubectl("taint", "nodes", node, "dedicated=ops:NoSchedule-")).strip() == f"node/{node} untainted"
    drained = kubectl("drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=60s")
    assert drained.returncode == 0, drained.stderr
    assert drained.stdout.splitlines()[0] == f"node/{node} already cordoned"
    assert drained.stdout.splitlines()[-1] == f"node/{node} drained"
    assert ok(kubectl("uncordon", node)).strip() == f"node/{node} uncordoned"


def test_delete_by_label_and_all(kube):
    kubectl, client, _ = kube
    ns = ("-n", NS)
    for name in ("d1", "d2"):
        ok(kubectl("create", "configmap", name, *ns))
        ok(kubectl("label", "configmap", name, "doomed=yes", *ns))
    assert sorted(ok(kubectl("delete", "configmap", "-l", "doomed=yes", *ns)).splitlines()) == [
        'configmap "d1" deleted', 'configmap "d2" deleted']
    ok(kubectl("create", "secret", "generic", "s1", "--from-literal=a=b", *ns))
    gone = ok(kubectl("delete", "secrets", "--all", *ns)).splitlines()
    assert 'secret "s1" deleted' in gone
    nothing = kubectl("get", "configmaps", "-l", "doomed=yes", *ns)
    assert nothing.stderr.strip() == f"No resources found in {NS} namespace."


def test_explain_every_kind(kube):
    """`kubectl explain <resource>` and one nested field of each kind kubus serves, with the
    descriptions Kubernetes' OpenAPI carries (read here from the official client's models)."""
    kubectl, _, _ = kube
    with ThreadPoolExecutor(4) as pool:
        answers = pool.map(lambda case: (case, kubectl("explain", case[1])), [
            case for info in KINDS.values() for case in explain_cases(info)])
    for (kind, path, expected), answer in answers:
        assert answer.returncode == 0, (path, answer.stderr)
        assert f"KIND:       {kind}" in answer.stdout, (path, answer.stdout)
        assert expected in " ".join(answer.stdout.split()), (path, expected, answer.stdout)


def test_what_the_conformance_suite_tripped_on(kube):
    """Issue 40 §2, as the suite meets them: its setup's node list, a new pod's status, a watch from
    a list's version, a foreground delete of an ownership cycle, what kube-system holds."""
    kubectl, client, _ = kube
    ns = ("-n", NS)
    assert ok(kubectl("get", "nodes", "--field-selector=spec.unschedulable=false", "-o", "name")).split() == [
        "node/hollow-0", "node/hollow-1"]
    made = json.loads(ok(kubectl("run", "fresh", "--image=nginx", "-o", "json", *ns,
                                 '--overrides={"spec": {"nodeSelector": {"nowhere": "x"}}}')))
    assert (made["status"]["phase"], made["status"]["qosClass"]) == ("Pending", "BestEffort")
    watch_from_a_lists_version(kubectl, NS, f"/api/v1/namespaces/{NS}/configmaps", "one")
    ok(kubectl("create", "namespace", "watched"))  # listed across namespaces, watched in one not watched before
    watch_from_a_lists_version(kubectl, "watched", "/api/v1/configmaps", "two")
    ownership_cycle(kubectl, client, NS)
    none = kubectl("get", "pods", "-n", "kube-system")  # kubus's system parts are actors, not pods
    assert (none.returncode, none.stderr.strip()) == (0, "No resources found in kube-system namespace.")


def field(described: str, name: str) -> str:
    return next(line.split(":", 1)[1].strip() for line in described.splitlines() if line.startswith(f"{name}:"))

"""ConfigMaps, Secrets and volumes in real containers: env from a ConfigMap and a Secret, a missing
key's CreateContainerConfigError and the recovery once it exists, a configMap volume's files and
modes and an edit reaching the mounted file (not a subPath one), a secret on tmpfs, an emptyDir two
containers share, a Memory emptyDir, a downwardAPI labels file, the termination message, and
nothing left on the node once the pod is gone. One cri cluster for the module (`node`): each test's
pods, ConfigMaps and Secrets have names of their own; the kubelet's restart keeps a cluster of its own."""
from __future__ import annotations

import base64

import pytest

from tests.integration.cri.test_cri_pods import BUSYBOX, state, status
from testkit.waiting import wait_until


def configmap(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def secret(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name},
            "data": {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}}


def pod(name: str, containers: list[dict], volumes: list[dict] = (), policy: str = "Never", **meta) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **meta},
            "spec": {"restartPolicy": policy, "terminationGracePeriodSeconds": 1, "volumes": list(volumes),
                     "containers": containers}}


def sh(name: str, script: str, **more) -> dict:
    return {"name": name, "image": BUSYBOX, "command": ["sh", "-c", script], **more}


def finished(client, name: str, which: int = 0) -> dict:
    def done():
        statuses = status(client, name).get("containerStatuses") or []
        return len(statuses) > which and (statuses[which].get("state") or {}).get("terminated")
    return wait_until(done, 90, what=f"{name} to finish")


@pytest.fixture
def node(cri_module):
    """The module's cri cluster's client (`cri_module.settings` its settings)."""
    return cri_module.client


def test_env_from_a_configmap_and_a_secret(node):
    node.create(configmap("app", MODE="fast", level="3"))
    node.create(secret("db", password="s3cr3t"))
    env = [{"name": "M", "valueFrom": {"configMapKeyRef": {"name": "app", "key": "MODE"}}},
           {"name": "P", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
           {"name": "L", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['tier']"}}},
           {"name": "BOTH", "value": "$(M)-$(P)"},
           {"name": "IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}]
    node.create(pod("envs", [sh("main", 'echo "$M|$P|$L|$BOTH|$APP_level|$password|$IP"', env=env,
                                       envFrom=[{"configMapRef": {"name": "app"}, "prefix": "APP_"},
                                                {"secretRef": {"name": "db"}}])], labels={"tier": "web"}))
    assert finished(node, "envs")["exitCode"] == 0
    ip = status(node, "envs")["podIP"]
    assert node.logs("envs")["text"] == f"fast|s3cr3t|web|fast-s3cr3t|3|s3cr3t|{ip}\n"


def test_a_missing_key_is_create_container_config_error_until_it_exists(node):
    env = [{"name": "K", "valueFrom": {"configMapKeyRef": {"name": "later", "key": "k"}}}]
    node.create(pod("waits", [sh("main", 'echo "k=$K"', env=env)]))
    waiting = wait_until(lambda: state(node, "waits", "waiting").get("reason") == "CreateContainerConfigError"
                         and state(node, "waits", "waiting"), 60, what="CreateContainerConfigError")
    assert waiting["message"] == 'configmap "later" not found'
    node.create(configmap("later", other="x"))
    wait_until(lambda: state(node, "waits", "waiting").get("message")
               == "couldn't find key k in ConfigMap default/later", 30, what="the key's message")
    current = node.get("ConfigMap", "later")
    node.update({**current, "data": {"k": "found"}})
    assert finished(node, "waits")["exitCode"] == 0
    assert node.logs("waits")["text"] == "k=found\n"


def test_a_configmap_volume_its_modes_and_an_edit_reaching_the_file_but_not_a_subpath(node):
    node.create(configmap("files", **{"a.conf": "one", "b": "bee"}))
    volumes = [{"name": "cfg", "configMap": {"name": "files", "defaultMode": 0o440,
                                             "items": [{"key": "a.conf", "path": "a.conf"},
                                                       {"key": "b", "path": "sub/b", "mode": 0o400}]}}]
    mounts = [{"name": "cfg", "mountPath": "/cfg"}, {"name": "cfg", "mountPath": "/pinned.conf", "subPath": "a.conf"}]
    script = ("stat -L -c '%a %n' /cfg/a.conf /cfg/sub/b; touch /cfg/x 2>/dev/null || echo read-only; "
              "while true; do echo \"now $(cat /cfg/a.conf) $(cat /pinned.conf)\"; sleep 0.3; done")
    node.create(pod("mounted", [sh("main", script, volumeMounts=mounts)], volumes))
    wait_until(lambda: "now one one" in node.logs("mounted")["text"], 90, what="the files read")
    head = node.logs("mounted")["text"].splitlines()[:3]
    assert head == ["440 /cfg/a.conf", "400 /cfg/sub/b", "read-only"], head
    current = node.get("ConfigMap", "files")
    node.update({**current, "data": {"a.conf": "two", "b": "bee"}})
    wait_until(lambda: "now two one" in node.logs("mounted", tail=1)["text"], 60,
               what="the edit in the mounted file, the subPath one as it was")


def test_secret_on_tmpfs_shared_and_memory_emptydirs_downward_labels_and_the_termination_message(
        node, cri_module):
    node.create(secret("token", value="hush"))
    volumes = [{"name": "sec", "secret": {"secretName": "token", "defaultMode": 0o400}},
               {"name": "shared", "emptyDir": {}},
               {"name": "mem", "emptyDir": {"medium": "Memory", "sizeLimit": "16Mi"}},
               {"name": "info", "downwardAPI": {"items": [{"path": "labels",
                                                           "fieldRef": {"fieldPath": "metadata.labels"}}]}}]
    writer = sh("writer", "echo hello > /shared/note; grep -E ' /(sec|mem) ' /proc/mounts | cut -d' ' -f1-3,4 "
                          "| sed 's/,.*size=/ size=/; s/,.*//'; stat -L -c %a /sec/value; cat /sec/value; echo; "
                          "cat /info/labels; echo; echo 'all done' > /dev/termination-log",
                volumeMounts=[{"name": "sec", "mountPath": "/sec"}, {"name": "shared", "mountPath": "/shared"},
                              {"name": "mem", "mountPath": "/mem"}, {"name": "info", "mountPath": "/info"}])
    reader = sh("reader", "until [ -s /shared/note ]; do sleep 0.2; done; cat /shared/note",
                volumeMounts=[{"name": "shared", "mountPath": "/shared", "readOnly": True}])
    node.create(pod("volumes", [writer, reader], volumes, labels={"app": "v", "tier": "x"}))
    done = finished(node, "volumes", 0)
    assert (done["exitCode"], done.get("message")) == (0, "all done\n"), done
    assert finished(node, "volumes", 1)["exitCode"] == 0
    lines = node.logs("volumes", container="writer")["text"].splitlines()
    assert sorted(lines[:2]) == ["tmpfs /mem tmpfs rw size=16384k", "tmpfs /sec tmpfs ro"], lines
    assert lines[2:6] == ["400", "hush", 'app="v"', 'tier="x"'], lines
    assert node.logs("volumes", container="reader")["text"] == "hello\n"
    pods_root = cri_module.settings.data_dir / "kubelet" / "node-1" / "pods"
    uid = node.get("Pod", "volumes")["metadata"]["uid"]
    assert (pods_root / uid / "volumes").is_dir()
    node.delete("Pod", "volumes")
    wait_until(lambda: not (pods_root / uid).exists(), 60, what="the pod's folder removed")
    with open("/proc/self/mounts", encoding="utf-8") as f:  # the module's other pods have theirs
        assert f"{pods_root.resolve()}/{uid}" not in f.read()


def test_a_failed_container_without_a_message_gets_its_logs_tail_when_its_policy_says_so(node):
    node.create(pod("quiet", [sh("main", "echo never said; exit 2")]))
    node.create(pod("fallback", [sh("main", "echo first; echo last words; exit 3",
                                           terminationMessagePolicy="FallbackToLogsOnError")]))
    quiet, fallback = finished(node, "quiet"), finished(node, "fallback")
    assert quiet["exitCode"] == 2 and "message" not in quiet, quiet
    assert (fallback["exitCode"], fallback.get("message")) == (3, "first\nlast words\n"), fallback


def test_a_projected_volume_follows_an_edit_made_after_the_kubelet_restarted(cri_cluster, procs):
    cri_cluster.create(configmap("proj", greeting="hello"))
    cri_cluster.create(secret("proj-s", key="k1"))
    volumes = [{"name": "all", "projected": {"defaultMode": 0o444, "sources": [
        {"configMap": {"name": "proj"}}, {"secret": {"name": "proj-s", "items": [{"key": "key", "path": "s/key"}]}},
        {"downwardAPI": {"items": [{"path": "name", "fieldRef": {"fieldPath": "metadata.name"}}]}}]}}]
    script = "while true; do echo \"$(cat /p/greeting) $(cat /p/s/key) $(cat /p/name)\"; sleep 0.3; done"
    cri_cluster.create(pod("projected", [sh("main", script, volumeMounts=[{"name": "all", "mountPath": "/p"}])],
                           volumes, policy="Always"))
    wait_until(lambda: "hello k1 projected" in cri_cluster.logs("projected", tail=1)["text"], 90, what="the files")
    procs.kubelet.kill()
    procs.kubelet.wait(10)
    procs.kubelet = procs.start("actors.kubelet", "--node", "node-1", "--runtime", "cri", label="kubelet-again")
    wait_until(lambda: cri_cluster.get("Lease", "node-1", "kube-node-lease"), 30, what="the lease")
    cri_cluster.update({**cri_cluster.get("ConfigMap", "proj"), "data": {"greeting": "bye"}})
    wait_until(lambda: "bye k1 projected" in cri_cluster.logs("projected", tail=1)["text"], 60,
               what="the edit in the projected file after the restart")
    assert container_restarts(cri_cluster, "projected") == 0
    cri_cluster.delete("Pod", "projected")


def container_restarts(client, name: str) -> int:
    return (status(client, name).get("containerStatuses") or [{}])[0].get("restartCount", 0)

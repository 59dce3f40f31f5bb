"""The regexes, read as RabbitMQ reads them: an unanchored search of a name."""
import re

import pytest

from bus.permissions import ROLES, kubelet_keys, permissions, watch_queue
from bus.topology import Names, segment

N = Names("c1")
LONG_NODE = "n" * 120 + ".example.com"
ACTORS = [("store", None), ("apiserver", None), ("scheduler", None), ("controller", "replicaset"),
          ("controller", "clusterrole-aggregation"), ("node", "node-1"), ("node", LONG_NODE), ("hollow", None)]
CLIENTS = [("user", "alice"), ("user", "ann.lee"), ("sa", "team-a.builder")]
SHARED = ["c1.api", "c1.store", "c1.events", "c1.dead", "c1.apiserver", "amq.default", "amq.topic"]


def allows(regex: str, name: str) -> bool:
    return re.search(regex, name) is not None


def perm(role: str, name: str | None, kind: str, nodes: tuple[str, ...] = ()) -> str:
    p = permissions(N, role, name, nodes)
    return p.topics[N.events][("write", "read").index(kind[6:])] if kind.startswith("topic-") else getattr(p, kind)


CASES = [
    # the store: the only writer of events, the only consumer of `{c}.store`, the only taker of its lock
    ("store", None, "configure", "c1.store.lock", True),
    ("store", None, "configure", "c1.store", False),
    ("store", None, "write", "c1.events", True),
    ("store", None, "write", "amq.default", True),
    ("store", None, "write", "c1.api", False),
    ("store", None, "read", "c1.store", True),
    ("store", None, "read", "c1.apiserver", False),
    ("store", None, "topic-write", "pod.default.node-1", True),
    ("store", None, "topic-read", "pod.#", False),
    # apiservers: write `{c}.store`, consume `{c}.apiserver`, own cache queues, declare watch queues
    ("apiserver", None, "write", "c1.store", True),
    ("apiserver", None, "write", "c1.events", False),
    ("apiserver", None, "read", "c1.apiserver", True),
    ("apiserver", None, "read", "c1.store", False),
    ("apiserver", None, "configure", "c1.apiserver", False),
    ("apiserver", None, "configure", "c1.apiserver.cache.3f2a", True),
    ("apiserver", None, "configure", "c1.apiserver.cache.a.b", False),
    ("apiserver", None, "configure", watch_queue(N, "alice", "3f2a"), True),
    ("apiserver", None, "configure", watch_queue(N, "system:node:n1.example.com", "3f.2a"), True),
    ("apiserver", None, "configure", "c1.watch.x", False),
    ("apiserver", None, "configure", "c1.store.lock", False),
    ("apiserver", None, "topic-read", "#", True),
    ("apiserver", None, "topic-write", "pod.a.b", False),
    # singletons: their queue and lock; read every event key
    ("scheduler", None, "configure", "c1.scheduler", True),
    ("scheduler", None, "configure", "c1.scheduler.lock", True),
    ("scheduler", None, "configure", "c1.scheduler2", False),
    ("scheduler", None, "configure", "c1.scheduler-b", True),  # `--name scheduler-b`
    ("scheduler", None, "configure", "c1.scheduler-b.lock", True),
    ("scheduler", None, "configure", "c1.scheduler-b.x", False),
    ("scheduler", None, "configure", "c1.store.lock", False),
    ("scheduler", None, "write", "c1.api", True),
    ("scheduler", None, "write", "c1.store", False),
    ("scheduler", None, "write", "c1.events", False),
    ("scheduler", None, "write", "amq.default", False),
    ("scheduler", None, "read", "c1.events", True),
    ("scheduler", None, "topic-read", "pod.#", True),
    ("controller", "replicaset", "configure", "c1.controller.replicaset.lock", True),
    ("controller", "replicaset", "configure", "c1.controller.deployment", False),
    ("controller", "replicaset", "read", "c1.controller.replicaset", True),
    # a kubelet: its own queues, its own node's keys
    ("node", "node-1", "configure", "c1.kubelet.node-1", True),
    ("node", "node-1", "configure", "c1.kubelet.node-1.logs", True),
    ("node", "node-1", "configure", "c1.kubelet.node-1.lock", True),
    ("node", "node-1", "configure", "c1.kubelet.node-10", False),
    ("node", "node-1", "configure", "c1.kubelet.node-2", False),
    ("node", "node-1", "read", "c1.kubelet.node-2.logs", False),
    ("node", "node-1", "read", "c1.api", False),
    ("node", "node-1", "write", "amq.default", True),
    ("node", "node-1", "write", "c1.store", False),
    ("node", "node-1", "topic-read", "pod.*.node-1", True),
    ("node", "node-1", "topic-read", "node.-.node-1", True),
    ("node", "node-1", "topic-read", "pod.*.node-2", False),
    ("node", "node-1", "topic-read", "pod.*.node-10", False),
    ("node", "node-1", "topic-read", "pod.#", False),
    ("node", "node-1", "topic-read", "#", False),
    ("node", "node-1", "topic-read", "pod.*.*", False),
    ("node", "node-1", "topic-read", "node.-.*", False),
    ("node", "n1.example.com", "configure", "c1.kubelet.n1.example.com", True),
    ("node", "n1.example.com", "topic-read", "pod.*.n1_example_com", True),
    ("node", "n1.example.com", "topic-read", "pod.*.n1.example.com", False),
    ("node", LONG_NODE, "configure", f"c1.kubelet.{segment(LONG_NODE)}.lock", True),
    ("node", LONG_NODE, "topic-read", f"pod.*.{segment(LONG_NODE.replace('.', '_'))}", True),
    ("hollow", None, "configure", "c1.kubelet.hollow", True),
    ("hollow", None, "configure", "c1.kubelet.hollow.lock", True),
    ("hollow", None, "configure", "c1.kubelet", False),
    ("hollow", None, "configure", "c1.scheduler", False),
    ("hollow", None, "topic-read", "pod.*.hollow-17", True),
    ("hollow", None, "topic-read", "node.-.hollow-17", True),
    ("hollow", None, "topic-read", "pod.#", False),
    ("hollow", None, "topic-read", "pod.team-a.hollow-1", False),
    ("hollow", None, "topic-read", "#", False),
    # people and ServiceAccounts: write `{c}.api`, read their watch queues, nothing else
    ("user", "alice", "write", "c1.api", True),
    ("user", "alice", "write", "amq.default", False),
    ("user", "alice", "read", watch_queue(N, "alice", "3f2a"), True),
    ("user", "alice", "read", watch_queue(N, "alice", "3f.2a"), True),
    ("user", "alice", "read", watch_queue(N, "alice2", "3f2a"), False),
    ("user", "alice", "read", watch_queue(N, "bob", "3f2a"), False),
    ("user", "alice", "read", watch_queue(N, "alice.smith", "3f2a"), False),
    ("user", "alice", "read", watch_queue(N, "alice", "3f2a").replace("alice~", "alice~0"), False),
    ("user", "alice", "read", N.watch_prefix("alice"), False),
    ("user", "alice", "read", "c1.watch.alice.3f2a", False),
    ("user", "alice", "read", "c1.events", False),
    ("user", "ann.lee", "read", watch_queue(N, "ann.lee", "3f2a"), True),
    ("user", "ann.lee", "read", watch_queue(N, "ann_lee", "3f2a"), False),
    ("user", "a:b", "read", watch_queue(N, "a_b", "3f2a"), False),
    ("user", "alice", "topic-read", "pod.#", False),
    ("user", "alice", "topic-write", "pod.a.b", False),
    ("sa", "team-a.builder", "read", watch_queue(N, "system:serviceaccount:team-a:builder", "3f2a"), True),
    ("sa", "team-a.builder", "read", watch_queue(N, "system:serviceaccount:team-a:other", "3f2a"), False),
    ("sa", "team-a.builder", "write", "c1.api", True),
    ("sa", "team-a.builder", "configure", watch_queue(N, "system:serviceaccount:team-a:builder", "3f2a"), False),
]


@pytest.mark.parametrize("role,name,kind,target,ok", [
    pytest.param(*case, id=f"{case[0]}-{case[2]}-{case[3]}"[:90]) for case in CASES])
def test_grants(role, name, kind, target, ok):
    assert allows(perm(role, name, kind), target) is ok


@pytest.mark.parametrize("role,name", ACTORS + CLIENTS)
@pytest.mark.parametrize("shared", SHARED + ["c1.store.lock"])
def test_only_the_admin_configures_shared_names(role, name, shared):
    if (role, shared) == ("store", "c1.store.lock"):
        return
    assert not allows(perm(role, name, "configure"), shared)


@pytest.mark.parametrize("kind,name,writers", [
    pytest.param("write", "c1.events", {"store"}, id="events"),
    pytest.param("write", "c1.store", {"apiserver"}, id="store-exchange"),
    pytest.param("read", "c1.store", {"store"}, id="store-queue"),
    pytest.param("write", "amq.default", {"store", "apiserver", "node", "hollow"}, id="answerers"),
    pytest.param("read", "c1.apiserver", {"apiserver"}, id="apiserver-queue"),
])
def test_who_may(kind, name, writers):
    assert {role for role, n in ACTORS + CLIENTS if allows(perm(role, n, kind), name)} == writers


@pytest.mark.parametrize("role,name", ACTORS + CLIENTS)
def test_nothing_of_another_cluster(role, name):
    p = permissions(N, role, name)
    for regex in (p.configure, p.write, p.read):
        for other in ("c10.api", "c10.store", "xc1.store", "c1x.events", "c1.api.x", watch_queue(Names("c10"), "alice", "1")):
            assert not allows(regex, other), (regex, other)
    assert list(p.topics) == ["c1.events"]


def test_regexes_are_anchored_and_compile():
    for role in ROLES:
        p = permissions(N, role, "x.y" if role == "sa" else ("n" if role in ("node", "controller", "user") else None))
        for regex in (p.configure, p.write, p.read, *p.topics[N.events]):
            assert regex.startswith("^") and regex.endswith("$")
            re.compile(regex)


def test_nodes_list():
    both = perm("node", "a", "topic-read", nodes=("a", "b"))
    assert allows(both, "pod.*.b") and not allows(both, "pod.*.c")
    assert set(kubelet_keys(("a",))) == {"pod.*.a", "node.-.a", "service.#", "namespace.#"}  # env, Pod Security
    assert allows(both, "service.#") and not allows(both, "endpointslice.#")
    limited = perm("hollow", None, "topic-read", nodes=("hollow-0",))
    assert allows(limited, "node.-.hollow-0") and not allows(limited, "node.-.hollow-1")


def test_cluster_name_with_dashes():
    p = permissions(Names("a-b"), "scheduler")
    assert allows(p.configure, "a-b.scheduler") and not allows(p.configure, "a.scheduler")


def test_watch_queue_names():
    assert watch_queue(N, "system:serviceaccount:a:b", "1f") == N.watch_prefix("system:serviceaccount:a:b") + "1f"
    long_user = "u" * 150
    assert allows(perm("user", long_user, "read"), watch_queue(N, long_user, "1f"))
    assert allows(perm("apiserver", None, "configure"), watch_queue(N, long_user, "1f"))
    with pytest.raises(ValueError):
        watch_queue(N, "alice", "")



def test_unknown_role():
    with pytest.raises(ValueError):
        permissions(N, "admin")

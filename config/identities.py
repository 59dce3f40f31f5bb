"""Broker users and the Kubernetes identities they stand for (contract 5), both ways.

The broker validates a message's `user_id` (the broker user); the apiserver turns it into the
Kubernetes user name and groups RBAC sees. One table, `ROLES`, holds the mapping:

| role | broker user | Kubernetes user; groups |
|---|---|---|
| store | `{c}.store` | `system:kubus:store` |
| apiserver | `{c}.apiserver` | `system:apiserver`; `system:masters` |
| scheduler | `{c}.scheduler` | `system:kube-scheduler` |
| controller | `{c}.controller.<name>` | `system:serviceaccount:kube-system:<sa>` (`CONTROLLER_ACCOUNTS`) |
| node | `{c}.node.<node>` | `system:node:<node>`; `system:nodes` |
| hollow | `{c}.hollow` | `system:kubus:hollow-kubelet`; `system:masters` |
| dns | `{c}.dns` | `system:serviceaccount:kube-system:coredns` (as kubeadm runs CoreDNS) |
| proxy | `{c}.proxy` | `system:kube-proxy` |
| ingress | `{c}.ingress` | `system:serviceaccount:kube-system:ingress-controller` |
| user | `{c}.user.<name>` | `<name>`; the users file's groups |
| sa | `{c}.sa.<ns>.<name>` | `system:serviceaccount:<ns>:<name>`; `system:serviceaccounts`, `…:<ns>` |

Every identity also gets `system:authenticated`. An unknown broker user maps to None.

The cluster name is a DNS label and a role a word, neither with a dot: the first dot ends the cluster
and the second the role, so no two (cluster, role, name) share a broker user — `a.user.store` is the
person `store` of cluster `a`, `a-user.store` the store of cluster `a-user` — and `{c}.` starts the
users of cluster `c` alone.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
from typing import Callable, Mapping

AUTHENTICATED = "system:authenticated"
MASTERS = "system:masters"
SA_PREFIX = "system:serviceaccount:"
SA_GROUP = "system:serviceaccounts"
NODE_PREFIX = "system:node:"
NODES_GROUP = "system:nodes"
PASSWORD_CHARS = 32

CONTROLLER_ACCOUNTS = {  # controller -> its ServiceAccount in kube-system, as kube-controller-manager names them
    "replicaset": "replicaset-controller",
    "deployment": "deployment-controller",
    "job": "job-controller",
    "daemonset": "daemon-set-controller",
    "statefulset": "statefulset-controller",
    "ttlafterfinished": "ttl-after-finished-controller",
    "cronjob": "cronjob-controller",
    "replication": "replication-controller",
    "disruption": "disruption-controller",
    "hpa": "horizontal-pod-autoscaler",
    "persistentvolume": "persistent-volume-binder",  # it also runs the pvc- and pv-protection controllers' part
    "gc": "generic-garbage-collector",
    "namespace": "namespace-controller",
    "nodelifecycle": "node-controller",
    "serviceaccount": "service-account-controller",
    "resourcequota": "resourcequota-controller",
    "clusterrole-aggregation": "clusterrole-aggregation-controller",
    "nodeipam": "node-controller",  # kube-controller-manager's nodeipam runs as the node controller's account
    "endpointslice": "endpointslice-controller",
    "endpoints": "endpoint-controller",
    "root-ca-cert-publisher": "root-ca-cert-publisher",
    "crd": "apiextensions-controller",  # kube-apiserver runs these in process; kubus gives them an account
    "local-path-provisioner": "local-path-provisioner-service-account",  # actors.localpath, as rancher names it
    "metrics-server": "metrics-server",  # actors.metrics: metrics.k8s.io, as metrics-server's manifest names it
}

Identity = tuple[str, tuple[str, ...]]
People = Mapping[str, tuple[str, ...]]


def sa_username(namespace: str, name: str) -> str:
    return f"{SA_PREFIX}{namespace}:{name}"


def _sa(namespace: str, name: str) -> Identity:
    return sa_username(namespace, name), (SA_GROUP, f"{SA_GROUP}:{namespace}")


def _controller(name: str, _people: People) -> Identity | None:
    account = CONTROLLER_ACCOUNTS.get(name)
    return _sa("kube-system", account) if account else None


def _service_account(name: str, _people: People) -> Identity | None:
    namespace, dot, account = name.partition(".")
    return _sa(namespace, account) if dot and namespace and account else None


def _person(name: str, people: People) -> Identity | None:
    return (name, tuple(people[name])) if name in people else None


# role -> (takes a name, the identity of its name part). A fixed role ignores its name part.
ROLES: dict[str, tuple[bool, Callable[[str, People], Identity | None]]] = {
    "store": (False, lambda _n, _p: ("system:kubus:store", ())),
    "apiserver": (False, lambda _n, _p: ("system:apiserver", (MASTERS,))),
    "scheduler": (False, lambda _n, _p: ("system:kube-scheduler", ())),
    "hollow": (False, lambda _n, _p: ("system:kubus:hollow-kubelet", (MASTERS,))),
    "dns": (False, lambda _n, _p: _sa("kube-system", "coredns")),
    "proxy": (False, lambda _n, _p: ("system:kube-proxy", ())),
    "ingress": (False, lambda _n, _p: _sa("kube-system", "ingress-controller")),
    "controller": (True, _controller),
    "node": (True, lambda n, _p: (f"{NODE_PREFIX}{n}", (NODES_GROUP,))),
    "user": (True, _person),
    "sa": (True, _service_account),
}


def users_prefix(cluster: str) -> str:
    """What every broker user of `cluster`, and no other cluster's, starts with."""
    if "." in cluster or not cluster:
        raise ValueError(f"a cluster name is a DNS label, without dots: {cluster!r}")
    return f"{cluster}."


def broker_user_of(cluster: str, role: str, name: str | None = None) -> str:
    """The broker user of a role (`name`: the controller, node, person, or `<ns>.<name>` of a SA)."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; known: {', '.join(ROLES)}")
    named, _ = ROLES[role]
    if named != bool(name):
        raise ValueError(f"role {role!r} {'needs' if named else 'takes no'} name")
    return f"{users_prefix(cluster)}{role}.{name}" if named else f"{users_prefix(cluster)}{role}"


def sa_broker_user(cluster: str, namespace: str, name: str) -> str:
    return broker_user_of(cluster, "sa", f"{namespace}.{name}")


def role_of(cluster: str, broker_user: str) -> tuple[str, str | None] | None:
    """(role, name part) of a broker user of `cluster`, by its form alone; None if it has none."""
    match = re.fullmatch(rf"{re.escape(cluster)}\.({'|'.join(ROLES)})(?:\.(.+))?", broker_user, re.DOTALL)
    if match is None or ROLES[match[1]][0] != (match[2] is not None):
        return None
    return match[1], match[2]


def identity_of(cluster: str, broker_user: str, people: People) -> Identity | None:
    """The Kubernetes (user name, groups) of a broker user; None for an unknown one."""
    found = role_of(cluster, broker_user)
    if found is None:
        return None
    role, name = found
    identity = ROLES[role][1](name or "", people)
    if identity is None:
        return None
    user, groups = identity
    return user, tuple(dict.fromkeys((*groups, AUTHENTICATED)))


def kube_name_of(cluster: str, broker_user: str) -> str | None:
    """The Kubernetes user name of a broker user, groups aside (a person's name needs no users file)."""
    found = role_of(cluster, broker_user)
    if found is None:
        return None
    role, name = found
    identity = ROLES[role][1](name or "", {name: ()} if role == "user" else {})
    return identity[0] if identity else None


def password_for(secret: bytes, user: str, salt: str = "") -> str:
    """A broker user's password derived from the cluster's secret: the URL-safe base64 of
    HMAC-SHA256(secret, salt + NUL + user), cut to 32 characters (192 bits)."""
    digest = hmac.new(secret, f"{salt}\0{user}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode()[:PASSWORD_CHARS]

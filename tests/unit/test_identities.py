import pytest

from config.identities import (AUTHENTICATED, CONTROLLER_ACCOUNTS, broker_user_of, identity_of, password_for,
                               role_of, sa_broker_user, users_prefix)
from config.users import parse_users, people

C = "kubus"
PEOPLE = {"alice": ("team-a", "system:masters"), "bob": (), "ann.lee": ("x",)}
SA_GROUPS = ("system:serviceaccounts", "system:serviceaccounts:kube-system", AUTHENTICATED)


@pytest.mark.parametrize("role,name,user,identity", [
    pytest.param("store", None, "kubus.store", ("system:kubus:store", (AUTHENTICATED,)), id="store"),
    pytest.param("apiserver", None, "kubus.apiserver", ("system:apiserver", ("system:masters", AUTHENTICATED)),
                 id="apiserver"),
    pytest.param("scheduler", None, "kubus.scheduler", ("system:kube-scheduler", (AUTHENTICATED,)), id="scheduler"),
    pytest.param("controller", "gc", "kubus.controller.gc",
                 ("system:serviceaccount:kube-system:generic-garbage-collector", SA_GROUPS), id="gc"),
    pytest.param("controller", "clusterrole-aggregation", "kubus.controller.clusterrole-aggregation",
                 ("system:serviceaccount:kube-system:clusterrole-aggregation-controller", SA_GROUPS),
                 id="dashed-controller"),
    pytest.param("node", "node-1", "kubus.node.node-1", ("system:node:node-1", ("system:nodes", AUTHENTICATED)),
                 id="node"),
    pytest.param("node", "n.example.com", "kubus.node.n.example.com",
                 ("system:node:n.example.com", ("system:nodes", AUTHENTICATED)), id="dotted-node"),
    pytest.param("hollow", None, "kubus.hollow",
                 ("system:kubus:hollow-kubelet", ("system:masters", AUTHENTICATED)), id="hollow"),
    pytest.param("user", "alice", "kubus.user.alice", ("alice", ("team-a", "system:masters", AUTHENTICATED)),
                 id="person"),
    pytest.param("user", "ann.lee", "kubus.user.ann.lee", ("ann.lee", ("x", AUTHENTICATED)), id="dotted-person"),
    pytest.param("sa", "team-a.builder.v2", "kubus.sa.team-a.builder.v2",
                 ("system:serviceaccount:team-a:builder.v2",
                  ("system:serviceaccounts", "system:serviceaccounts:team-a", AUTHENTICATED)), id="sa"),
])
def test_both_ways(role, name, user, identity):
    assert broker_user_of(C, role, name) == user
    assert identity_of(C, user, PEOPLE) == identity


@pytest.mark.parametrize("user", [
    pytest.param("kubus.user.mallory", id="person-not-in-file"),
    pytest.param("kubus.controller.no-such-controller", id="unknown-controller"),
    pytest.param("kubus.store.2", id="fixed-role-with-name"),
    pytest.param("kubus.node", id="node-without-name"),
    pytest.param("kubus.user.", id="empty-name"),
    pytest.param("kubus.sa.nodot", id="sa-without-namespace"),
    pytest.param("kubus.sa..x", id="sa-empty-namespace"),
    pytest.param("other.store", id="other-cluster"),
    pytest.param("kubusx.store", id="prefix-of-cluster"),
    pytest.param("kubus.admin", id="unknown-role"),
    pytest.param("kubus-user-alice", id="the-old-dashed-form"),
    pytest.param("kubus-user.alice", id="of-cluster-kubus-user"),
    pytest.param("guest", id="broker-admin"),
    pytest.param("", id="empty"),
])
def test_unknown_users(user):
    assert identity_of(C, user, PEOPLE) is None


def test_names_do_not_collide_across_clusters():
    """Cluster names hold no dot: the person `store` of `a` is not the store of `a-user`, and
    the users of `a` are not those of `a-node`."""
    assert broker_user_of("a", "user", "store") != broker_user_of("a-user", "store")
    assert role_of("a", broker_user_of("a-user", "store")) is None
    assert role_of("a-user", broker_user_of("a", "user", "store")) is None
    assert not broker_user_of("a-node", "node", "x").startswith(users_prefix("a"))


@pytest.mark.parametrize("cluster", ["a.b", ""])
def test_a_cluster_name_with_a_dot_has_no_users(cluster):
    with pytest.raises(ValueError):
        broker_user_of(cluster, "store")


def test_every_controller_maps():
    for controller, account in CONTROLLER_ACCOUNTS.items():
        user = broker_user_of(C, "controller", controller)
        assert role_of(C, user) == ("controller", controller)
        assert identity_of(C, user, {})[0] == f"system:serviceaccount:kube-system:{account}"


@pytest.mark.parametrize("role,name", [("store", "x"), ("node", None), ("user", ""), ("admin", None)])
def test_broker_user_of_refuses(role, name):
    with pytest.raises(ValueError):
        broker_user_of(C, role, name)


def test_sa_broker_user():
    assert sa_broker_user(C, "default", "builder") == "kubus.sa.default.builder"


def test_passwords():
    secret = b"cluster secret"
    pw = password_for(secret, "kubus.store")
    assert len(pw) == 32 and pw == password_for(secret, "kubus.store")
    assert set(pw) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    others = {password_for(secret, "kubus.apiserver"), password_for(b"other", "kubus.store"),
              password_for(secret, "kubus.store", salt="2")}
    assert pw not in others and len(others) == 3


def test_users_file_feeds_identities():
    users = parse_users([{"name": "carol", "token": "tok-123456", "groups": ["ops", "ops"]}])
    assert users[0].secret == "tok-123456"
    assert identity_of(C, "kubus.user.carol", people(users)) == ("carol", ("ops", AUTHENTICATED))


@pytest.mark.parametrize("entries", [
    pytest.param([{"name": "system:admin", "password": "12345678"}], id="system-prefix"),
    pytest.param([{"name": "a", "password": "12345678"}, {"name": "a", "token": "12345678"}], id="duplicate"),
    pytest.param([{"name": "a"}], id="no-credential"),
    pytest.param([{"name": "a", "password": "12345678", "token": "12345678"}], id="two-credentials"),
    pytest.param([{"name": "a", "password": "short"}], id="short-password"),
    pytest.param([{"name": "a\nb", "password": "12345678"}], id="control-char"),
    pytest.param([{"name": "a", "password": "12345678", "groups": [""]}], id="empty-group"),
    pytest.param([{"name": "a", "password": "12345678", "uid": 1}], id="unknown-field"),
])
def test_users_file_refuses(entries):
    with pytest.raises(ValueError):
        parse_users(entries)


def test_empty_users_file():
    assert parse_users(None) == []

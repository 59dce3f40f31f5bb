"""Impersonation's pure parts: the headers the gateway reads, what the apiserver asks the authorizer
for, in Kubernetes' order, and the user a request then runs as."""
from __future__ import annotations

import pytest
from multidict import CIMultiDict, CIMultiDictProxy

from actors.apiserver.authz.rules import Decision, UserInfo
from actors.apiserver.impersonation import asked, impersonated
from actors.gateway.impersonation import requested
from api.status import StatusError
from bus.messages import Impersonate

ADMIN = UserInfo("admin", ("system:masters", "system:authenticated"))


def headers(*pairs: tuple[str, str]) -> CIMultiDictProxy:
    return CIMultiDictProxy(CIMultiDict(pairs))


@pytest.mark.parametrize("pairs, expected", [
    ((), None),
    ((("Accept", "application/json"),), None),
    ((("Impersonate-User", ""),), None),
    ((("impersonate-user", "jane"),), {"user": "jane"}),
    ((("Impersonate-User", "jane"), ("Impersonate-Group", "a"), ("Impersonate-Group", "b")),
     {"user": "jane", "groups": ["a", "b"]}),
    ((("Impersonate-User", "jane"), ("Impersonate-Uid", "42"), ("Impersonate-Extra-Acme.com%2Fproject", "x"),
      ("Impersonate-Extra-acme.com%2fproject", "y")),
     {"user": "jane", "uid": "42", "extra": {"acme.com/project": ["x", "y"]}}),
])
def test_the_headers_read(pairs, expected):
    assert requested(headers(*pairs)) == expected


@pytest.mark.parametrize("name", ["Impersonate-Users", "Impersonate-Extra-", "Impersonate-Uid-2"])
def test_an_impersonation_header_not_understood_is_refused(name):
    with pytest.raises(StatusError) as err:
        requested(headers((name, "x")))
    assert err.value.reason == "BadRequest" and name in err.value.message


@pytest.mark.parametrize("request_, asked_for", [
    ({"user": "jane"}, [("impersonate", "users", "", "", "", "jane")]),
    ({"user": "system:serviceaccount:ns:robot"}, [("impersonate", "serviceaccounts", "", "", "ns", "robot")]),
    ({"user": "system:serviceaccount:ns"}, [("impersonate", "users", "", "", "", "system:serviceaccount:ns")]),
    ({"user": "jane", "groups": ["g"], "uid": "7", "extra": {"k": ["v1", "v2"]}},
     [("impersonate", "users", "", "", "", "jane"), ("impersonate", "groups", "", "", "", "g"),
      ("impersonate", "userextras", "authentication.k8s.io", "k", "", "v1"),
      ("impersonate", "userextras", "authentication.k8s.io", "k", "", "v2"),
      ("impersonate", "uids", "authentication.k8s.io", "", "", "7")]),
])
def test_what_is_authorized(request_, asked_for):
    attrs = [item.attributes(ADMIN) for item in asked(Impersonate(**request_))]
    assert [(a.verb, a.resource, a.api_group, a.subresource, a.namespace, a.name) for a in attrs] == asked_for


@pytest.mark.parametrize("request_, message", [
    ({"groups": ["g"]}, "requested [{Group  g    }] without impersonating a user"),
    ({"extra": {"k": ["v"]}, "uid": "7"},
     "requested [{UserExtra  v  authentication.k8s.io/v1  k} {UID  7  authentication.k8s.io/v1  }] "
     "without impersonating a user"),
])
def test_a_user_is_needed(request_, message):
    with pytest.raises(StatusError) as err:
        asked(Impersonate(**request_))
    assert (err.value.reason, err.value.message) == ("BadRequest", message)


@pytest.mark.parametrize("request_, user", [
    ({"user": "jane"}, UserInfo("jane", ("system:authenticated",))),
    ({"user": "jane", "groups": ["system:unauthenticated"]}, UserInfo("jane", ("system:unauthenticated",))),
    ({"user": "system:anonymous"}, UserInfo("system:anonymous", ("system:unauthenticated",))),
    ({"user": "system:serviceaccount:ns:robot"},
     UserInfo("system:serviceaccount:ns:robot",
              ("system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"))),
    ({"user": "system:serviceaccount:ns:robot", "groups": ["g"]},
     UserInfo("system:serviceaccount:ns:robot", ("g", "system:authenticated"))),
    ({"user": "jane", "uid": "7", "extra": {"b": ["2"], "a": ["1"]}},
     UserInfo("jane", ("system:authenticated",), "7", (("a", ("1",)), ("b", ("2",))))),
])
def test_the_user_a_request_runs_as(request_, user):
    assert impersonated(ADMIN, Impersonate(**request_), lambda _attrs: Decision(True)) == user


def test_the_first_refusal_is_kubernetes_forbidden():
    denied = lambda attrs: Decision(attrs.resource != "groups")  # noqa: E731
    with pytest.raises(StatusError) as err:
        impersonated(UserInfo("bob"), Impersonate(user="jane", groups=["system:masters"]), denied)
    assert err.value.message == 'groups "system:masters" is forbidden: User "bob" cannot impersonate resource ' \
                                '"groups" in API group "" at the cluster scope'

"""CEL's `authorizer` for one write (apiserver `admission/plugin/cel` `OptionalVariableBindings.Authorizer`):
the authz library's checks (api/cel/authz.py) asked of this apiserver's own authorizer — the union of
system:masters, the node authorizer and RBAC over its cache, memoized — as the requester, at once and
locally. Its `requestResource` is the write's own group, resource, subresource, namespace and name."""
from __future__ import annotations

from actors.apiserver.authz.rules import Attributes, UserInfo
from api.cel.authz import Ask, Authorizer, Subject, Verdict, authorizer_for


def cel_authorizer(attempt) -> Authorizer | None:
    """None where no authorizer was handed to the attempt (then an expression using it fails)."""
    if attempt.authorize is None:
        return None
    user = attempt.user
    subject = Subject(user.name, tuple(user.groups), user.uid, user.extra)
    return authorizer_for(subject, _asking(attempt.authorize), attempt.info.group, attempt.info.plural,
                          attempt.subresource, attempt.namespace, attempt.name)


def _asking(decide):
    def ask(question: Ask) -> Verdict:
        who = question.subject
        attrs = Attributes(UserInfo(who.name, who.groups, who.uid, who.extra), question.verb, question.resource,
                           question.group, question.subresource, question.namespace, question.name, question.path)
        decision = decide(attrs)
        # The node authorizer's allow on condition (node_guard: the store checks the pod's node) cannot be
        # checked here: a CEL check is answered without the object, so it is no allow.
        return Verdict(decision.allowed and decision.node_guard is None, decision.reason)
    return ask

"""Impersonation (apiserver `filters/impersonation.go`): a request that asks to act as someone else
runs as them only if its caller may `impersonate` each thing asked for — the user (`users`, or
`serviceaccounts` in the account's namespace for `system:serviceaccount:<ns>:<name>`), every group
(`groups`), the uid (`uids`) and every extra value (`userextras/<key>`, authentication.k8s.io), the
resource name being the value. The first refusal is Kubernetes' 403; a group, uid or extra without a
user is its 400. The caller is checked here, by the apiserver: the gateway only carries the headers."""
from __future__ import annotations

from dataclasses import dataclass

from actors.apiserver.authz import forbidden
from actors.apiserver.authz.rules import Attributes, UserInfo
from api.status import bad_request
from bus.messages import Impersonate
from config.identities import SA_PREFIX

AUTHENTICATION = "authentication.k8s.io"
AUTHENTICATION_V1 = f"{AUTHENTICATION}/v1"
AUTHENTICATED, UNAUTHENTICATED, ANONYMOUS = "system:authenticated", "system:unauthenticated", "system:anonymous"


@dataclass(frozen=True)
class Asked:
    """One thing impersonated, as Kubernetes' filter lists it (a v1.ObjectReference)."""

    kind: str
    name: str
    namespace: str = ""
    api_version: str = ""
    field_path: str = ""

    def go(self) -> str:
        """Go's `%v` of the ObjectReference: its seven fields, space-separated, in braces."""
        return "{" + " ".join((self.kind, self.namespace, self.name, "", self.api_version, "", self.field_path)) + "}"

    def attributes(self, caller: UserInfo) -> Attributes:
        resource, group, sub = {"ServiceAccount": ("serviceaccounts", "", ""), "User": ("users", "", ""),
                                "Group": ("groups", "", ""), "UID": ("uids", AUTHENTICATION, ""),
                                "UserExtra": ("userextras", AUTHENTICATION, self.field_path)}[self.kind]
        return Attributes(caller, "impersonate", resource, group, sub, self.namespace, self.name)


def split_sa(user: str) -> tuple[str, str] | None:
    """(namespace, name) of `system:serviceaccount:<ns>:<name>`, else None."""
    if not user.startswith(SA_PREFIX):
        return None
    parts = user[len(SA_PREFIX):].split(":")
    return (parts[0], parts[1]) if len(parts) == 2 and all(parts) else None


def asked(request: Impersonate) -> list[Asked]:
    """Every thing impersonated, in Kubernetes' order (user, groups, extras, uid); 400 when a group, uid
    or extra comes without a user."""
    found = []
    if request.user:
        sa = split_sa(request.user)
        found.append(Asked("ServiceAccount", sa[1], sa[0]) if sa else Asked("User", request.user))
    found += [Asked("Group", group) for group in request.groups]
    found += [Asked("UserExtra", value, api_version=AUTHENTICATION_V1, field_path=key)
              for key in sorted(request.extra) for value in request.extra[key]]
    if request.uid:
        found.append(Asked("UID", request.uid, api_version=AUTHENTICATION_V1))
    if found and not request.user:
        raise bad_request(f"requested [{' '.join(a.go() for a in found)}] without impersonating a user")
    return found


def impersonated(caller: UserInfo, request: Impersonate, decide) -> UserInfo:
    """The user the request runs as, or the 403 of the first thing `caller` may not impersonate.
    `decide` is the authorizer's (Attributes → Decision)."""
    items = asked(request)
    for item in items:
        attrs = item.attributes(caller)
        decision = decide(attrs)
        if not decision.allowed:
            raise forbidden(attrs, decision.reason)
    sa = split_sa(request.user or "")
    groups = list(request.groups)
    if sa and not request.groups:
        groups = ["system:serviceaccounts", f"system:serviceaccounts:{sa[0]}"]
    everyone = UNAUTHENTICATED if request.user == ANONYMOUS else AUTHENTICATED
    if not ({everyone, UNAUTHENTICATED} & set(groups)):
        groups.append(everyone)
    extra = tuple((key, tuple(values)) for key, values in sorted(request.extra.items()))
    return UserInfo(request.user or "", tuple(groups), request.uid or "", extra)

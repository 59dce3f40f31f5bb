"""Authentication: the broker-validated `user_id` names the caller; the cluster's naming (contract 5)
and the users file give the Kubernetes user and groups. A ServiceAccount's identity lasts as long
as the ServiceAccount does."""
from __future__ import annotations

from actors.apiserver.authz.rules import UserInfo
from api.status import StatusError
from config.identities import SA_PREFIX, identity_of



def unauthorized(why: str = "Unauthorized") -> StatusError:
    return StatusError("Unauthorized", why)


class Authenticator:
    def __init__(self, cluster: str, people: dict[str, tuple[str, ...]], lister):
        self.cluster, self.people, self.lister = cluster, people, lister
        self._known: dict[str, UserInfo] = {}

    def user(self, broker_user: str | None) -> UserInfo:
        """The caller, or 401 Unauthorized: no user_id, a broker user that is none of this cluster's,
        or the account of a deleted ServiceAccount."""
        if not broker_user:
            raise unauthorized()
        info = self._known.get(broker_user)
        if info is None:
            found = identity_of(self.cluster, broker_user, self.people)
            if found is None:
                raise unauthorized()
            info = self._known[broker_user] = UserInfo(*found)  # system:authenticated included
        if info.name.startswith(SA_PREFIX):
            self._check_service_account(info.name)
        return info

    def _check_service_account(self, name: str) -> None:
        namespace, _, sa = name[len(SA_PREFIX):].partition(":")
        if namespace != "kube-system" and self.lister.get("ServiceAccount", namespace, sa) is None:
            raise unauthorized()

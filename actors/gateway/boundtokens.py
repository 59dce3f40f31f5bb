"""A bound ServiceAccount token (a JWT, config/satokens.py) at the gateway: checked here for this cluster's
signature and its expiry, so a forged one never reaches the broker; its account's broker credential is
derived as the apiserver derives it (the password tied to the account's uid: an account made again under
the same name refuses an old token); and once logged in as the account, the apiserver's TokenReview —
asked by the token's own subject — says whether the account and the bound pod still exist with their
uids. A login with such a token is trusted until the earlier of the gateway's login TTL and the token's
expiry; after that it is checked again, so a deleted pod's token is refused within the TTL."""
from __future__ import annotations

from dataclasses import dataclass

from actors.gateway.calls import call
from api.status import StatusError
from config import satokens
from config.credentials import read_secret
from config.identities import password_for, sa_broker_user
from config.settings import Settings
from runtime.client import Client


@dataclass(frozen=True)
class Bound:
    token: str
    user: str
    password: str
    expires: float  # the token's `exp` (wall clock)


def unauthorized() -> StatusError:
    return StatusError("Unauthorized", "Unauthorized")


class BoundTokens:
    def __init__(self, settings: Settings):
        self.settings = settings
        self._secret: bytes | None = None

    def _cluster_secret(self) -> bytes:
        if self._secret is None:
            try:
                self._secret = read_secret(self.settings)
            except SystemExit:
                raise unauthorized() from None
        return self._secret

    def parse(self, token: str) -> Bound:
        """The account a genuine, unexpired token names, with its broker credential; 401 otherwise."""
        secret = self._cluster_secret()
        try:
            claims = satokens.verify(token, satokens.signing_key(secret))
        except satokens.TokenError:
            raise unauthorized() from None
        namespace, name, uid = satokens.account_of(claims)
        user = sa_broker_user(self.settings.cluster, namespace, name)
        return Bound(token, user, password_for(secret, user, salt=uid), float(claims["exp"]))

    async def reviewed(self, client: Client, bound: Bound) -> bool:
        """The apiserver's word, asked as the account: the account and bound pod are still there."""
        review = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": bound.token}}
        try:
            answer = await call(client, "create", "TokenReview", obj=review)
        except StatusError as exc:
            if exc.code in (401, 403):
                return False
            raise
        return bool((answer["object"].get("status") or {}).get("authenticated"))

"""MutatingAdmissionWebhook and ValidatingAdmissionWebhook (Kubernetes' `plugin/webhook`). In the chain
each only *finds* the webhooks a request meets, from the configurations in the apiserver's policy
cache (`matching.py`); the calls themselves — each after its matchConditions, and refusing a dry run
the webhook cannot take (`conditions.py`) — go out after the chain's synchronous part, without
blocking the actor (`dispatch.py` over `client.py`, the AdmissionReview in `review.py`). Both plugins
are the last of their phase, as in Kubernetes' order, so calling them after the others is calling them
in their place."""
from __future__ import annotations

from actors.apiserver.admission.webhook.matching import hooks_for


class _Webhooks:
    configuration_kind = ""
    phase = ""

    def _plan(self, attempt) -> None:
        configurations = attempt.cache.list(self.configuration_kind)
        if not configurations:
            return
        namespace = attempt.cache.get("Namespace", None, attempt.namespace) if attempt.namespace else None
        labels = ((namespace or {}).get("metadata") or {}).get("labels") or {}
        hooks = hooks_for(configurations, attempt, labels)
        if hooks:
            attempt.webhooks[self.phase] = hooks


class MutatingAdmissionWebhook(_Webhooks):
    configuration_kind = "MutatingWebhookConfiguration"
    phase = "mutating"

    def mutate(self, attempt) -> None:
        self._plan(attempt)


class ValidatingAdmissionWebhook(_Webhooks):
    configuration_kind = "ValidatingWebhookConfiguration"
    phase = "validating"

    def validate(self, attempt) -> None:
        self._plan(attempt)

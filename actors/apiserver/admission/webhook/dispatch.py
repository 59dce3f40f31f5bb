"""Calling the webhooks a request met (Kubernetes' `mutating/dispatcher.go`, `validating/dispatcher.go`):
mutating ones one after another, each patch applied and the object defaulted again, `IfNeeded` ones
called once more when a later webhook changed the object; validating ones all at once, the first
refusal in list order wins. Each webhook's matchConditions are evaluated just before its call, over the
review it would get (`conditions.py`): a mutating webhook's see the object as the earlier ones left it.
The calls run on a bounded pool of worker threads; every step after a call comes back to the actor's
thread (`call_soon`), so the actor never waits on a webhook."""
from __future__ import annotations

import copy
import json
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from actors.apiserver.admission.webhook import client, conditions, resolve, review
from actors.apiserver.admission.webhook.matching import Hook
from api.patch.jsonpatch import apply_json_patch
from api.status import StatusError

WEBHOOK_THREADS = 16
Done = Callable[[], None]
Fail = Callable[[Exception], None]


class Dispatcher:
    def __init__(self, call_soon: Callable[[Callable[[], None]], None], threads: int = WEBHOOK_THREADS):
        self._call_soon = call_soon
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="apiserver-webhook")

    # ---- mutating: serially, then the IfNeeded ones again if the object changed after them -----------
    def mutate(self, attempt, redefault: Callable[[dict], dict], done: Done, fail: Fail) -> None:
        hooks = attempt.webhooks.pop("mutating", [])
        if not hooks:
            done()
            return
        seen: dict[tuple[str, int], dict] = {}
        self._mutate_from(attempt, hooks, 0, 0, seen, redefault, done, fail)

    def _mutate_from(self, attempt, hooks: list[Hook], i: int, rnd: int, seen: dict, redefault, done, fail) -> None:
        if i == len(hooks):
            again = [h for h in hooks if h.spec.get("reinvocationPolicy") == "IfNeeded"
                     and (h.configuration, h.index) in seen
                     and seen[(h.configuration, h.index)] != attempt.obj] if rnd == 0 else []
            if again:
                self._mutate_from(attempt, again, 0, 1, seen, redefault, done, fail)
            else:
                done()
            return
        hook, uid = hooks[i], str(uuid.uuid4())
        body = review.request(attempt, uid, attempt.dry_run)
        try:
            call = conditions.should_call(hook, attempt, body["request"])
        except StatusError as exc:
            fail(exc)
            return
        if not call:
            self._mutate_from(attempt, hooks, i + 1, rnd, seen, redefault, done, fail)
            return

        def answered(reply) -> None:
            self._mutated(attempt, hook, uid, reply, rnd, i, redefault)
            seen[(hook.configuration, hook.index)] = copy.deepcopy(attempt.obj)
            self._mutate_from(attempt, hooks, i + 1, rnd, seen, redefault, done, fail)

        self._call(hook, body, attempt.cache, answered, fail)

    def _mutated(self, attempt, hook: Hook, uid: str, reply, rnd: int, i: int, redefault) -> None:
        where = f"round_{rnd}_index_{i}"
        result = _judged(hook, reply, uid, mutating=True)
        if result is None:
            attempt.annotations[f"failed-open.mutation.webhook.admission.k8s.io/{where}"] = hook.name
            return
        _record(attempt, hook, result)
        mutated = bool(result.patch)
        attempt.annotations[f"mutation.webhook.admission.k8s.io/{where}"] = json.dumps(
            {"configuration": hook.configuration, "webhook": hook.name, "mutated": mutated})
        if not mutated:
            return
        if attempt.obj is None:
            raise StatusError("InternalError", f'admission webhook "{hook.name}" attempted to modify the object, '
                                               f"which is not supported for this operation")
        try:
            patched = apply_json_patch(copy.deepcopy(attempt.obj), result.patch)
        except StatusError as exc:
            raise StatusError("InternalError", f"Internal error occurred: {exc.message}") from None
        attempt.obj = redefault(patched)
        attempt.annotations[f"patch.webhook.admission.k8s.io/{where}"] = json.dumps(
            {"configuration": hook.configuration, "webhook": hook.name, "patch": result.patch,
             "patchType": "JSONPatch"})

    # ---- validating: all at once --------------------------------------------------------------------
    def validate(self, attempt, done: Done, fail: Fail) -> None:
        try:
            calls = _conditioned(attempt, attempt.webhooks.pop("validating", []))
        except StatusError as exc:
            fail(exc)
            return
        if not calls:
            done()
            return
        hooks = [hook for hook, _, _ in calls]
        replies: dict[int, tuple[str, object]] = {}

        def answered(i: int, uid: str, reply) -> None:
            replies[i] = (uid, reply)
            if len(replies) == len(hooks):
                self._validated(attempt, hooks, replies)
                done()

        for i, (hook, uid, body) in enumerate(calls):
            self._call(hook, body, attempt.cache, lambda reply, i=i, uid=uid: answered(i, uid, reply), fail)

    def _validated(self, attempt, hooks: list[Hook], replies: dict) -> None:
        for i, hook in enumerate(hooks):
            uid, reply = replies[i]
            result = _judged(hook, reply, uid, mutating=False)
            if result is None:
                attempt.annotations[f"failed-open.validating.webhook.admission.k8s.io/round_0_index_{i}"] = hook.name
            else:
                _record(attempt, hook, result)

    # ---- one call, off the actor's thread -----------------------------------------------------------
    def _call(self, hook: Hook, body: dict, cache, then: Callable[[object], None], fail: Fail) -> None:
        config = hook.spec.get("clientConfig") or {}
        ca_bundle = config.get("caBundle") or ""
        try:
            where = resolve.target(config, cache)
        except client.CallFailed as exc:
            then(exc)
            return

        def work() -> object:
            try:
                return client.post(where.url, ca_bundle, body, hook.timeout, where.dial)
            except client.CallFailed as exc:
                return exc

        def back(fut) -> None:
            self._call_soon(lambda: _guarded(then, fail)(fut.result()))

        self._pool.submit(work).add_done_callback(back)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _conditioned(attempt, hooks: list[Hook]) -> list[tuple[Hook, str, dict]]:
    """The webhooks whose matchConditions hold, each with its review's uid and body (a StatusError when
    one errs under Fail)."""
    calls = []
    for hook in hooks:
        uid = str(uuid.uuid4())
        body = review.request(attempt, uid, attempt.dry_run)
        if conditions.should_call(hook, attempt, body["request"]):
            calls.append((hook, uid, body))
    return calls


def _judged(hook: Hook, reply, uid: str, mutating: bool) -> review.Verdict | None:
    """The verdict; None when the call failed and the webhook fails open; a StatusError otherwise."""
    try:
        if isinstance(reply, Exception):
            raise reply
        result = review.verdict(reply, uid, mutating)
    except (client.CallFailed, review.InvalidReply) as exc:
        if hook.ignore:
            return None
        cause = str(exc) if isinstance(exc, client.CallFailed) else f"received invalid webhook response: {exc}"
        raise StatusError("InternalError", f'Internal error occurred: failed calling webhook "{hook.name}": '
                                           f"{cause}") from None
    if not result.allowed:
        raise review.denied(hook.name, reply)
    return result


def _record(attempt, hook: Hook, result: review.Verdict) -> None:
    attempt.warnings.extend(result.warnings)
    for key, value in result.audit_annotations.items():
        attempt.annotations[f"{hook.name}/{key}"] = value


def _guarded(step: Callable[[object], None], fail: Fail) -> Callable[[object], None]:
    def run(arg) -> None:
        try:
            step(arg)
        except Exception as exc:  # a refusal or a bug: the request's answer, never the actor's end
            fail(exc)
    return run

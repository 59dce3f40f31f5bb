"""Fuzzing the apiserver and the store over the real broker (issue 8, "Prove it"): generated requests
with wrong types in every field and option, unknown verbs, huge and deep bodies, broken envelopes.

One plane (store, apiserver, namespace controller) for the module, which must survive every test
in turn; each test's requests name its own namespace and Node (`fz.NAMESPACE`, `fz.NODE`). Every
example is a batch of messages published straight to `{c}.api` or `{c}.store` (requests, and wire
v2 `commands` batches whose every command names its own reply address), each with a unique id. After every example:
- every message that named a direct reply-to address got a well-formed reply, or was dead-lettered
  to `{c}.dead` with `x-kubus-dead-reason` (by the actor, not dropped to the broker's DLX); one that
  named any other address was dead-lettered so, and nothing was ever published to that address;
- no actor process exited and none reconnected (same pids, same AMQP connections);
- a normal create, get, list and snapshot through a `Client` work, and a watch sees the create.

Where the contract allows an answer that still shows a bug (a 500 InternalError), the test warns
with `FuzzFinding` instead of failing. Examples are derandomized and not shrunk; a batch that broke
the cluster is named in the failure. `test_what_the_fuzz_found` keeps each finding as a case of its
own, and `make test-slow` runs many more examples.
"""
from __future__ import annotations

import subprocess
import time
import uuid
import warnings
from collections import defaultdict
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse

import msgpack
import pika
import pytest
from hypothesis import HealthCheck, Phase, given, settings as hsettings, strategies as st

from api.registry import KINDS
from api.status import StatusError
from bus.topology import DEAD_REASON, SCHEMA_HEADER, SCHEMA_VERSION, Names
from tests import fuzz_strategies as fz
from bus.testkit import blocking

pytestmark = pytest.mark.shared_plane  # one plane for the module: it takes every test's garbage in turn
DIRECT = "amq.rabbitmq.reply-to"
FUZZ_ID = "x-fuzz-id"
OUTCOME_S = 15.0  # longer than the apiserver's own wait on the store (request_timeout_s = 10)
ANSWERED = ("direct",)  # reply addresses the actors can answer
REFUSED = ("empty", "sink", "upper")  # not direct reply-to: each message must be dead-lettered
REPLY_TOS = {"direct": DIRECT, "empty": "", "upper": DIRECT.upper(), "bogus-direct": f"{DIRECT}.bogus",
             "long-direct": f"{DIRECT}.{'x' * 200}", "none": None, "bare": DIRECT}


class FuzzFinding(UserWarning):
    """An answer the contract allows that still shows a bug (an InternalError)."""


def fuzz_settings(examples: int):
    """Derandomized, so a run is repeatable; no shrinking: against real processes a failing example
    may take a timeout to show, and one that broke the cluster stays failed whatever is replayed."""
    return hsettings(max_examples=examples, deadline=None, derandomize=True, database=None, print_blob=False,
                     phases=(Phase.explicit, Phase.reuse, Phase.generate),
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                            HealthCheck.data_too_large, HealthCheck.large_base_example])


def _brief(value: Any, limit: int = 1500) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} chars)"


@dataclass
class Expect:
    """What settles one message, or one command of a batch: a reply whose correlation id is in
    `replies`, or a dead letter whose fuzz id or message id is in `dead`. `required`: it must be
    settled (else only what comes back for it is checked); `expiring`: the broker may expire it."""

    what: Any  # the fz.Msg or fz.Inner, to name it in a failure
    target: str
    replies: tuple[str, ...]
    dead: tuple[str, ...]
    required: bool
    expiring: bool = False


class Harness:
    """Publishes batches, matches every reply and dead letter to its message, checks the cluster."""

    def __init__(self, client, procs, settings):
        self.client, self.procs, self.settings = client, procs, settings
        self.names = Names(settings.cluster)
        # it sends as an apiserver, the one broker user who may reach both `{c}.api` and `{c}.store`
        # (a person's messages to the store never get past the broker); its sink is a queue an apiserver
        # may declare; the dead letters it reads as the broker's administrator
        url = procs.url_of("actors.apiserver", ())
        self.user = unquote(urlparse(url).username)
        self.sink = f"{settings.cluster}.apiserver.cache.fuzz-sink"
        self.conn, self.admin = blocking(url), blocking(settings.admin_url)
        self.ch, self.admin_ch = self.conn.channel(), self.admin.channel()
        self.ch.queue_declare(self.sink, exclusive=True)
        self.ch.basic_consume(DIRECT, self._on_reply, auto_ack=True)
        self.address = self._own_address()
        self.frame_max = self.conn._impl.params.frame_max
        self.replies: dict[str, list[bytes]] = defaultdict(list)
        self.dead: dict[str, list] = defaultdict(list)
        self.port = urlparse(settings.amqp_url).port or 5672
        self.labels = {p.pid: " ".join(p.args[2:]) for p in procs.procs}
        self.connections = {pid: self._connections(pid) for pid in self.labels}
        assert all(self.connections.values()), f"an actor holds no AMQP connection: {self.connections}"
        self.watch = client.watch("Pod", client.namespace).wait_synced()
        self.broken: AssertionError | None = None  # what broke the cluster; every later example fails with it
        self.findings: dict[str, str] = {}
        self.alive = 0

    def _own_address(self) -> str:
        """This channel's direct reply-to address as the broker expands it: what a command of a batch
        names to be answered here."""
        self.ch.basic_publish("", self.sink, b"", pika.BasicProperties(reply_to=DIRECT))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            method, props, _ = self.ch.basic_get(self.sink, auto_ack=True)
            if method is not None:
                return props.reply_to
            time.sleep(0.01)
        raise AssertionError("the probe message never reached the sink queue")

    def close(self) -> None:
        self.watch.close()
        for conn in (self.conn, self.admin):
            try:
                conn.close()  # the sink is exclusive: it goes with its connection
            except Exception:
                pass

    # ---- sending ---------------------------------------------------------------------------------
    def _on_reply(self, _ch, _method, props, body: bytes) -> None:
        self.replies[props.correlation_id or ""].append(body)

    def send(self, msg: fz.Msg) -> list[Expect]:
        """Publish `msg`, its symbolic properties made concrete; what settles it (and its commands)."""
        fid = uuid.uuid4().hex
        mid = _message_id(msg.message_id, fid)
        headers: dict[str, Any] = {FUZZ_ID: fid, **msg.headers}
        if msg.schema != "absent":
            headers[SCHEMA_HEADER] = SCHEMA_VERSION if msg.schema == "ok" else msg.schema
        reply_to = self.sink if msg.reply_to == "sink" else REPLY_TOS[msg.reply_to]
        props = dict(content_type=msg.content_type, type=msg.type, message_id=mid, correlation_id=fid,
                     reply_to=reply_to, user_id=self.user if msg.user_id == "guest" else msg.user_id,
                     expiration=msg.expiration, headers=headers)
        if msg.header_pad:
            headers["x-fuzz-pad"] = ""
            used = _header_frame(props)
            headers["x-fuzz-pad"] = "p" * max(0, self.frame_max - msg.header_pad - used)
        body, inner = self._commands(msg.body, fid) if isinstance(msg.body, list) else (msg.body, [])
        raw = body.data if isinstance(body, fz.Raw) else fz.pack(body)
        exchange, key = (self.names.api, "apiserver") if msg.target == "apiserver" else (self.names.store, "store")
        self.ch.basic_publish(exchange, key, raw, pika.BasicProperties(**props))
        dead = (fid, mid) if mid else (fid,)
        if msg.target == "store" and msg.type == "commands":  # wire v2: each command is answered on its own
            whole = isinstance(msg.body, list) and all(isinstance(e, fz.Inner) for e in msg.body)
            return [Expect(msg, "store", (), dead, required=not whole, expiring=msg.expiration is not None),
                    *inner]
        # a deadline of a few ms may pass before the store takes it: contract 2 drops it unanswered
        hurried = msg.expiration is not None and int(msg.expiration) < 1000
        return [Expect(msg, msg.target, (fid,) if msg.reply_to in ANSWERED else (), dead,
                       required=msg.reply_to in ANSWERED + REFUSED and not hurried,
                       expiring=msg.expiration is not None)]

    def _commands(self, entries: list, outer: str) -> tuple[list, list[Expect]]:
        """The envelopes of a `commands` body, and what settles each: its reply, its own dead letter,
        or the dead letter of the whole message."""
        body, expects = [], []
        for entry in entries:
            if not isinstance(entry, fz.Inner):
                body.append(entry)
                continue
            cid = uuid.uuid4().hex
            ident = _message_id(entry.id, cid) if entry.id == "auto" or isinstance(entry.id, str) else entry.id
            corr = cid if entry.correlation_id == "auto" else entry.correlation_id
            reply_to = entry.reply_to
            if isinstance(reply_to, str):
                reply_to = {"direct": self.address, "sink": self.sink}.get(reply_to, REPLY_TOS.get(reply_to, reply_to))
            expires = entry.expires
            if isinstance(expires, str):
                expires = {"none": None, "past": time.time() - 60, "future": time.time() + 60}.get(expires, expires)
            body.append({"id": ident, "user": entry.user, "reply_to": reply_to, "correlation_id": corr,
                         "expires": expires, "command": entry.command, **entry.extra})
            answered = entry.reply_to == "direct" and entry.correlation_id == "auto"
            refused = entry.reply_to in REFUSED and isinstance(ident, str) and ident.startswith(cid)
            dead = (outer, ident) if isinstance(ident, str) and ident else (outer,)
            expects.append(Expect(entry, "store", (cid,) if answered else (), dead,
                                  required=(answered or refused) and entry.expires in ("none", "future")))
        return body, expects

    def run(self, batch: list[fz.Msg]) -> None:
        if self.broken is not None:
            raise self.broken  # the same failure, so hypothesis sees one bug, not a flaky one
        expects = [e for msg in batch for e in self.send(msg)]
        try:
            self._outcomes(expects)
            self._still_serving()
        except AssertionError as exc:
            if not self._healthy():
                exc.add_note(f"the cluster stays broken: later examples fail with this error; the batch that "
                             f"broke it: {_brief(batch, 4000)}")
                self.broken = exc
            raise

    # ---- every message's outcome -----------------------------------------------------------------
    def _outcomes(self, expects: list[Expect]) -> None:
        deadline = time.monotonic() + OUTCOME_S
        while True:
            self.conn.process_data_events(time_limit=0.02)
            self._read_dead()
            waiting = [e for e in expects if e.required and not self._settled(e)]
            if not waiting or time.monotonic() > deadline:
                break
        for e in expects:
            for key in e.replies:
                for raw in self.replies.pop(key, ()):
                    self._check_reply(raw, e)
            for key in e.dead:
                for props in self.dead.pop(key, ()):
                    _check_dead(props, e)
        for letters in self.dead.values():  # an earlier example's, or an actor's own (a watch's, an event)
            for props in letters:
                _check_dead(props, None)
        self.dead.clear()
        self.replies.clear()
        assert not waiting, "\n".join(f"no reply and no dead letter within {OUTCOME_S}s ({e.target}): "
                                      f"{_brief(e.what)}" for e in waiting)

    def _settled(self, e: Expect) -> bool:
        return any(self.replies.get(k) for k in e.replies) or any(self.dead.get(k) for k in e.dead)

    def _read_dead(self) -> None:
        while True:
            method, props, _body = self.admin_ch.basic_get(self.names.dead_queue, auto_ack=True)
            if method is None:
                return
            # the fuzz id travels as a header and the correlation id (an actor may leave big headers out)
            keys = {(props.headers or {}).get(FUZZ_ID), props.correlation_id, props.message_id} - {None, ""}
            for key in keys or {""}:
                self.dead[str(key)].append(props)

    def _check_reply(self, raw: bytes, e: Expect) -> None:
        where = f"reply from {e.target} to {_brief(e.what)}"
        assert len(raw) <= self.settings.max_message_bytes, f"{where}: {len(raw)} bytes, over the message limit"
        try:
            body = msgpack.unpackb(raw, raw=False, strict_map_key=True)
        except Exception as exc:
            raise AssertionError(f"{where}: undecodable ({exc})") from None
        assert isinstance(body, dict) and isinstance(body.get("ok"), bool), f"{where}: not a reply: {_brief(body)}"
        if body["ok"]:
            assert isinstance(body.get("object"), dict) or isinstance(body.get("items"), list), \
                f"{where}: ok without object or items: {_brief(body)}"
            return
        status = body.get("status")
        assert isinstance(status, dict) and isinstance(status.get("reason"), str) \
            and isinstance(status.get("message"), str) and isinstance(status.get("code"), int) \
            and 400 <= status["code"] < 600, f"{where}: a malformed status: {_brief(body)}"
        assert status["reason"] != "Timeout", f"{where}: a Timeout from an idle cluster: a command was lost"
        if status["code"] == 500:
            self.findings.setdefault(f"{e.target}: {status['message']}", _brief(e.what, 600))

    # ---- the cluster -----------------------------------------------------------------------------
    def _connections(self, pid: int) -> list[str]:
        out = subprocess.run(["ss", "-tnpH", f"dport = :{self.port}"], capture_output=True, text=True).stdout
        return sorted(line.split()[3] for line in out.splitlines() if f"pid={pid}," in line)

    def _healthy(self) -> bool:
        try:
            self._processes()
            self._serves()
            return True
        except Exception:
            return False

    def _processes(self) -> None:
        for proc in self.procs.procs:
            assert proc.poll() is None, f"{self.labels[proc.pid]} exited with {proc.returncode}"
        for pid, before in self.connections.items():  # an actor may open its reply connection meanwhile
            now = self._connections(pid)
            assert set(before) <= set(now), f"{self.labels[pid]} reconnected: AMQP connections {before} -> {now}"

    def _serves(self) -> None:
        self.alive += 1
        name = f"alive-{self.alive}"
        created = self.client.create(fz.pod(name))
        assert self.client.get("Pod", name)["metadata"]["uid"] == created["metadata"]["uid"]
        assert name in [(p.get("metadata") or {}).get("name") for p in self.client.list("Pod").items]
        assert name in [(p.get("metadata") or {}).get("name") for p in self.client.snapshot(["#"]).items]
        for kind in KINDS:  # an object a fuzzed write left behind must not stop anyone listing its kind
            self.client.list(kind)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                delta = self.watch.next(timeout=max(0.01, deadline - time.monotonic()))
            except Exception:
                break
            if delta.type == "ADDED" and (delta.object.get("metadata") or {}).get("name") == name:
                return
        raise AssertionError(f"the watch on pods in {self.client.namespace} did not see {name} created")

    def _still_serving(self) -> None:
        self._processes()
        method, props, body = self.ch.basic_get(self.sink, auto_ack=True)
        assert method is None, f"an actor published to a queue named as reply_to: {_brief(body)} ({props})"
        try:
            self._serves()
        except (StatusError, TimeoutError) as exc:  # an error reply, or none within the client's deadline
            raise AssertionError(f"a normal request failed afterwards: {exc!r}") from None


def _message_id(symbol: str | None, fid: str) -> str | None:
    if symbol == "auto":
        return fid
    if symbol == "utf8":
        return f"{fid}-é✓"
    if symbol and symbol.startswith("long:"):
        return (fid + "-" + "m" * 300)[:int(symbol[5:])]
    return symbol


def _header_frame(props: dict) -> int:
    """Bytes of the content header frame these properties make (pika sends it as one frame)."""
    return 20 + sum(len(p) for p in pika.BasicProperties(**props).encode())


def _check_dead(props, e: Expect | None) -> None:
    """A dead letter must say why and who, unless the broker expired a message that asked for it."""
    headers = props.headers or {}
    what = f"dead letter of {_brief(e.what) if e else f'a message not sent by this example ({props.message_id})'}"
    if e is not None and e.expiring and headers.get("x-first-death-reason") == "expired":
        return
    assert headers.get(DEAD_REASON) and headers.get("x-kubus-dead-actor"), \
        f"{what} without {DEAD_REASON}: headers {_brief(headers, 600)}"
    assert "x-death" not in headers, f"{what} was rejected to the broker's dead-letter exchange: {_brief(headers)}"


@pytest.fixture
def fuzz(cluster, procs, settings, monkeypatch):
    """A harness on the module's plane: the fuzz's requests name the test's namespace and a Node of its own."""
    monkeypatch.setattr(fz, "NAMESPACE", cluster.namespace)
    monkeypatch.setattr(fz, "NODE", f"{fz.NODE}-{cluster.namespace}")
    for name in fz.NAMES[:2]:
        cluster.create(fz.pod(name))
    cluster.create(fz.node(fz.NODE))
    harness = Harness(cluster, procs, settings)
    yield harness
    harness.close()
    for key, example in sorted(harness.findings.items()):
        warnings.warn(FuzzFinding(f"{key}\n  e.g. {example}"))


FIELD_MESSAGES = fz.batches(fz.plain(fz.wrong_request()))
ENVELOPES = fz.batches(fz.envelope())
BIG_AND_DEEP = fz.batches(fz.plain(st.one_of(fz.huge_request(), fz.deep_request())), max_size=3)
COMMAND_BATCHES = fz.batches(st.one_of(fz.commands(), fz.commands(), fz.plain(fz.wrong_request())), max_size=3)
EVERYTHING = fz.batches(st.one_of(fz.plain(fz.wrong_request()), fz.envelope(), fz.commands(),
                                  fz.plain(fz.huge_request()), fz.plain(fz.deep_request())))


def _deep_pod(name: str, depth: int) -> dict:
    """A create whose body nests `depth` deep in all: the request, object, metadata, annotations, then maps."""
    obj = fz.pod(name)
    obj["metadata"]["annotations"] = {"deep": fz.deep(depth - 4)}
    return fz.request("create", object=obj)


def _deep_container(name: str, depth: int) -> dict:
    """A create nested `depth` deep in all, in a field of the pod's container: request, object, spec,
    containers, the container, then lists."""
    obj = fz.pod(name)
    obj["spec"]["containers"][0]["fz"] = fz.deep(depth - 5, "list")
    return fz.request("create", object=obj)


# What the fuzz found, a test each: the minimal batch (made in the test, for its namespace), and what went
# wrong when it was found.
FOUND = [
    # the apiserver's patch gives its store calls the ids "<id>.get.1" and "<id>.update.1": past 255 bytes
    # pika raises in the reply callback of the get; the update, never sent, times out: 504 after 10 s
    pytest.param(lambda: [fz.Msg("apiserver", fz.template("patch", "fz-a"), message_id="long:248")],
                 id="patch-with-a-248-byte-message-id-gets-no-reply"),
    # the store keeps a name that is not a string; every later list of the kind sorts names and fails (500)
    pytest.param(lambda: [fz.Msg("store", fz.request("create",
                                                    object={**fz.pod("x"), "metadata": {"name": 5}}))],
                 id="store-keeps-an-int-name-and-every-list-is-500"),
    # a body of exactly max_depth is accepted and kept; a list or snapshot reply wraps it two levels
    # deeper, and every client refuses that reply (InternalError "malformed reply: too deep")
    pytest.param(lambda: [fz.Msg("store", _deep_pod("fz-deep", fz.MAX_DEPTH))],
                 id="store-keeps-an-object-too-deep-to-list"),
    # the apiserver admits a pod nested max_depth - 1 deep (an unknown field in a container); wrapped in a
    # `commands` batch it is two levels deeper, the store dead-letters the whole batch ("too deep") and
    # nobody is answered: not this request, nor any other the batch carried
    pytest.param(lambda: [fz.Msg("apiserver", _deep_container("fz-deep", fz.MAX_DEPTH - 1))],
                 id="apiserver-batches-a-request-too-deep-for-the-store"),
    # dead-lettering copies the headers and adds three: past frame_max the broker closes the actor's
    # connection (FRAME_ERROR frame_too_large), the message comes back, and again, for ever
    pytest.param(lambda: [fz.Msg("store", fz.template("get"), schema="absent", header_pad=100)],
                 id="store-dead-letters-headers-past-frame-max"),
    pytest.param(lambda: [fz.Msg("apiserver", fz.template("get"), schema="absent", header_pad=100)],
                 id="apiserver-dead-letters-headers-past-frame-max"),
    # a batch's envelope allows a 256-byte id, AMQP's message_id 255: dead-lettering that command (its
    # reply_to is not direct reply-to) raises in the store's flush, on the ioloop, and the store exits
    pytest.param(lambda: [fz.Msg("store", [fz.Inner(fz.template("get"), id="long:256", reply_to="sink")],
                                 type="commands", reply_to="none")],
                 id="store-exits-dead-lettering-a-command-with-a-256-byte-id"),
    # a 400 or 422 quotes the wrong value whole, in the message and again in the cause: over 1 MiB,
    # the client refuses the reply (InternalError) instead of hearing BadRequest
    pytest.param(lambda: [fz.Msg("apiserver", fz.request("list",
                                                        options={"fieldSelector": fz.big_str(fz.MAX_OBJECT)}))],
                 id="apiserver-error-reply-over-the-message-limit"),
    pytest.param(lambda: [fz.Msg("store", fz.request("get", name=fz.big_str(fz.MAX_OBJECT)))],
                 id="store-error-reply-over-the-message-limit"),
    # the store classes a created pod's QoS before anything validated its containers: a container that is a
    # list raised AttributeError, answered as a 500
    pytest.param(lambda: [fz.Msg("store", fz.request("create", object={**fz.pod("fz-q"), "spec": {
        "containers": [[{"x": "../x"}, None]], "automountServiceAccountToken": False}}))],
                 id="store-classes-a-pod-whose-container-is-a-list"),
]


@pytest.mark.parametrize("batch", FOUND)
def test_what_the_fuzz_found(fuzz, batch):
    fuzz.run(batch())


def test_the_unmutated_templates_are_accepted(fuzz):
    """The fuzz mutates valid requests: were they not valid, every mutation would stop at the first check."""
    verbs = ["create", "get", "list", "patch", "update", "updateStatus", "snapshot", "bind", "delete"]
    for target in ("apiserver", "store"):
        for verb in verbs if target == "apiserver" else [v for v in verbs if v != "patch"]:  # the apiserver's
            msg = fz.Msg(target, fz.template(verb, f"fz-via-{target}"))
            [expect] = fuzz.send(msg)
            fid = expect.replies[0]
            deadline = time.monotonic() + 10
            while not fuzz.replies.get(fid) and time.monotonic() < deadline:
                fuzz.conn.process_data_events(time_limit=0.05)
            [raw] = fuzz.replies.pop(fid)
            reply = msgpack.unpackb(raw)
            assert reply["ok"], (target, verb, reply)


@fuzz_settings(examples=50)
@given(batch=FIELD_MESSAGES)
def test_wrong_fields_options_and_verbs_are_answered(fuzz, batch):
    fuzz.run(batch)


@fuzz_settings(examples=50)
@given(batch=ENVELOPES)
def test_broken_envelopes_are_answered_or_dead_lettered(fuzz, batch):
    fuzz.run(batch)


@fuzz_settings(examples=50)
@given(batch=COMMAND_BATCHES)
def test_command_batches_straight_to_the_store_are_answered(fuzz, batch):
    """Wire v2: anyone can publish a `commands` batch to `{c}.store` today; each command of it is
    answered where it says, or the message is dead-lettered whole."""
    fuzz.run(batch)


@fuzz_settings(examples=25)
@given(batch=BIG_AND_DEEP)
def test_huge_and_deep_requests_are_answered_or_dead_lettered(fuzz, batch):
    fuzz.run(batch)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@fuzz_settings(examples=600)  # about 2 minutes here; raise it for a longer hunt
@given(batch=EVERYTHING)
def test_everything_at_length(fuzz, batch):
    fuzz.run(batch)

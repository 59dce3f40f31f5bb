"""Hypothesis strategies for the fuzz suite (tests/integration/test_fuzz.py): requests and commands
with wrong types in every field and option, unknown verbs, huge and deep bodies, and broken
envelopes (bodies, content types, schema headers, ids, reply addresses).

A body is a Python value that may hold `Raw` pieces: msgpack bytes put in verbatim, for what
`msgpack.packb` will not make (bad UTF-8, non-string keys, ext types, 1,000 nested levels) and for
big values that should print as a label, not a megabyte.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import msgpack
from hypothesis import strategies as st

from bus.messages import OPTIONS
from config.settings import Settings

_DEFAULTS = Settings.model_fields
MAX_OBJECT = _DEFAULTS["max_object_bytes"].default  # 512 KiB
MAX_MESSAGE = _DEFAULTS["max_message_bytes"].default  # 1 MiB
MAX_DEPTH = _DEFAULTS["max_depth"].default  # 100

VERBS = ("create", "get", "list", "update", "updateStatus", "patch", "delete", "bind", "snapshot", "logs")
FIELDS = ("verb", "kind", "namespace", "name", "object", "resourceVersion", "options")
NAMES = ("fz-a", "fz-b", "fz-c")  # the fixture creates the first two; fuzzed writes come and go
NODE = "fz-node"
NAMESPACE = "default"  # where the requests go (read when an example is drawn: a test may set its own)
FRESH = st.from_regex(r"fz-[a-z0-9]{1,8}", fullmatch=True)  # names of creates that succeed, and stay


# ---- raw msgpack ---------------------------------------------------------------------------------
class Raw:
    """msgpack bytes inserted as they are, printed by label (hypothesis prints a dataclass field by field)."""

    __slots__ = ("data", "label")

    def __init__(self, data: bytes, label: str):
        self.data, self.label = data, label

    def __repr__(self) -> str:
        return f"Raw<{self.label}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Raw) and other.data == self.data

    def __hash__(self) -> int:
        return hash(self.data)


_PACKER = msgpack.Packer(use_bin_type=True)


def pack(value: Any) -> bytes:
    """msgpack of `value`, `Raw` pieces verbatim; no nesting limit of its own beyond Python's."""
    if isinstance(value, Raw):
        return value.data
    if isinstance(value, dict):
        return _PACKER.pack_map_header(len(value)) + b"".join(pack(k) + pack(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return _PACKER.pack_array_header(len(value)) + b"".join(pack(v) for v in value)
    return msgpack.packb(value, use_bin_type=True)


def deep(levels: int, container: str = "map") -> Raw:
    """`levels` maps ({"a": {"a": …}}) or lists ([[…]]) around a nil."""
    head = b"\x81\xa1a" if container == "map" else b"\x91"
    return Raw(head * levels + b"\xc0", f"{container} x{levels}")


def big_str(size: int) -> Raw:
    return Raw(msgpack.packb("x" * size), f"str {size} B")


RAW_SPECIALS = [
    Raw(b"\xa2\xff\xfe", "bad-utf8 str"),
    Raw(b"\xa3a\xc3(", "bad-utf8 str (broken 2-byte sequence)"),
    Raw(b"\xc4\x03abc", "bin 3 B"),
    Raw(b"\xd4\x05\x00", "ext type 5"),
    Raw(b"\xd6\xff\x00\x00\x00\x01", "ext timestamp"),
    Raw(b"\x81\x01\xa1x", "map {1: 'x'}"),
    Raw(b"\x81\xc0\x01", "map {nil: 1}"),
    Raw(b"\x81\xc3\x01", "map {true: 1}"),
    Raw(b"\x81\xc4\x01k\x01", "map {bin: 1}"),
    Raw(b"\x81\xcb\x3f\xf0\x00\x00\x00\x00\x00\x00\x01", "map {1.0: 1}"),
    Raw(b"\x81\x91\x01\x01", "map {[1]: 1}"),
    Raw(b"\x81\xa2\xff\xfe\x01", "map {bad-utf8: 1}"),
    Raw(b"\xca\x3f\x80\x00\x00", "float32 1.0"),
    Raw(b"\xcf" + b"\xff" * 8, "uint64 max"),
    Raw(b"\xd3\x80" + b"\x00" * 7, "int64 min"),
    Raw(b"\xdd\x00\x00\x00\x05\x01", "array32 claiming 5, holding 1"),
    Raw(b"\xdb\xff\xff\xff\xff", "str32 claiming 4 GiB"),
]

# ---- values of the wrong type --------------------------------------------------------------------
TEXTS = st.one_of(st.text(max_size=12),
                  st.sampled_from(["", " ", "default", "Pod", "*", "#", "a.b.c", "../x", "\x00", "é", "x" * 300,
                                   "amq.rabbitmq.reply-to", "status", "Orphan"]))
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2 ** 63), 2 ** 64 - 1),
                    st.floats(allow_nan=True, allow_infinity=True), TEXTS)
WILD = st.recursive(SCALARS, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(TEXTS, kids, max_size=3),
                    max_leaves=6)
HOSTILE = st.one_of(WILD, st.sampled_from(RAW_SPECIALS))

# per option, values near the edge of what its model accepts, besides any wrong type
SELECTORS = ["", "a=b", "a in (b,c)", "a in (", "!a", "!!", "a notin (b)", "=", ",", "a==b", "a!=", "x" * 5000,
             "metadata.name=fz-a", "spec.nodeName!=", "metadata.name", "a.b.c.d.e=f", "metadata=x", "=x,=,!="]
EDGES: dict[str, list[Any]] = {
    "fieldSelector": SELECTORS,
    "labelSelector": SELECTORS,
    "preconditions": [{}, {"uid": "x"}, {"resourceVersion": "1"}, {"uid": None, "resourceVersion": None},
                      {"uid": 7}, {"resourceVersion": 1}, {"uid": "x" * 65}, {"other": "x"}, [], "x", 0],
    "gracePeriodSeconds": [0, 1, -1, 2 ** 63 - 1, 2 ** 64 - 1, -(2 ** 63), True, 1.5, "30", None],
    "propagationPolicy": ["Orphan", "Background", "Foreground", "orphan", "", None, 1],
    "keys": [[], ["pod.#"], ["#"], ["*"], ["pod.default.*", "node.#"], ["x" * 300], [1], "pod.#", [None],
             ["pod.#"] * 1000, ["a" * 255], ["é" * 128], ["..."], [""]],
    "subresource": ["status", "Status", "scale", "", None, 1],
    "uid": ["", "x", "x" * 65, None, 1],
    "container": ["c", "", "x" * 254, None, 1],
    "tail": [0, -1, 10, 2 ** 63 - 1, -(2 ** 63), True, "10", 1.5],
    "previous": [True, False, None, 1, "true"],
    "offset": [0, -1, 2 ** 64 - 1, True, "0"],
}
OPTION_KEYS = sorted({key for model in OPTIONS.values() for key in model.model_fields} | set(EDGES))
UNKNOWN_VERBS = ["explode", "watch", "GET", "Create", "", " create", "create\x00", "proxy", "__class__", "exec",
                 "commands", "x" * 300]
KINDS = ["Pod", "Node", "Namespace", "Event", "Lease", "ReplicaSet", "Deployment", "pods", "po", "deploy",
         "deployments.apps", "*", "Binding", "Secret", "pod", "", "x" * 65]


def option_value(key: str):
    return st.one_of(st.sampled_from(EDGES.get(key, [None])), HOSTILE)


# ---- valid requests, one per verb: the base every mutation starts from ---------------------------
def pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": "fz"}, "annotations": {"fz": "1"}},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}],
                     "automountServiceAccountToken": False}}  # no injected volume: an update may resend it as is


def node(name: str) -> dict:
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "spec": {},
            "status": {"capacity": alloc, "allocatable": alloc}}


def deployment(name: str) -> dict:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


OBJECTS = {"Pod": pod, "Node": node, "Deployment": deployment,
           "Namespace": lambda name: {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}}


def request(verb: str, kind: str = "Pod", **fields: Any) -> dict:
    namespaced = kind not in ("Node", "Namespace")
    return {"verb": verb, "kind": kind, "namespace": NAMESPACE if namespaced else None, "name": None,
            "object": None, "resourceVersion": None, "options": {}, **fields}


def template(verb: str, name: str = "fz-a", kind: str = "Pod") -> dict:
    """A request the apiserver accepts when `name` exists (create: when it does not)."""
    obj = OBJECTS.get(kind, pod)(name)
    return {
        "create": lambda: request("create", kind, object=obj),
        "get": lambda: request("get", kind, name=name),
        "list": lambda: request("list", kind, options={"labelSelector": "app=fz", "fieldSelector": "metadata.name!=x"}),
        "update": lambda: request("update", kind, name=name, object=obj),
        "updateStatus": lambda: request("updateStatus", kind, name=name, object={**obj, "status": {}}),
        "patch": lambda: request("patch", kind, name=name, object={"metadata": {"labels": {"fz": "1"}}}),
        "delete": lambda: request("delete", kind, name=name, options={"gracePeriodSeconds": 0,
                                                                      "propagationPolicy": "Background"}),
        "bind": lambda: request("bind", "Pod", name=name, object={
            "apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "namespace": NAMESPACE},
            "target": {"apiVersion": "v1", "kind": "Node", "name": NODE}}),
        "snapshot": lambda: request("snapshot", "*", options={"keys": [f"pod.{NAMESPACE}.*"]}),
        "logs": lambda: request("logs", "Pod", name=name, options={"container": "c", "tail": 10}),
    }[verb]()


@st.composite
def base_request(draw) -> dict:
    verb = draw(st.sampled_from(VERBS))
    kind = draw(st.sampled_from(["Pod"] * 4 + sorted(OBJECTS))) if verb not in ("bind", "logs", "snapshot") else "Pod"
    name = draw(st.sampled_from(NAMES) | FRESH) if verb == "create" else draw(st.sampled_from(NAMES))
    return template(verb, name, kind)


# ---- mutations -----------------------------------------------------------------------------------
def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out += _paths(child, (*prefix, i))
    return out


def _set(root: Any, path: tuple, value: Any, delete: bool) -> Any:
    """A copy of `root` with `path` set to `value` (or removed)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy = dict(root) if isinstance(root, dict) else list(root)
    if delete and not rest:
        del copy[head]
    else:
        copy[head] = _set(copy[head], rest, value, delete)
    return copy


@st.composite
def mutate_field(draw, body: dict) -> dict:
    """One top-level field wrong: another type, removed, or an unknown verb."""
    name = draw(st.sampled_from(FIELDS))
    how = draw(st.sampled_from(["hostile", "hostile", "drop", "verb"]))
    if how == "drop":
        return {k: v for k, v in body.items() if k != name}
    if how == "verb":
        return {**body, "verb": draw(st.sampled_from(UNKNOWN_VERBS) | HOSTILE)}
    if name == "kind":
        return {**body, "kind": draw(st.sampled_from(KINDS) | HOSTILE)}
    return {**body, name: draw(HOSTILE)}


@st.composite
def mutate_options(draw, body: dict) -> dict:
    """Options of this verb (or another's, or unknown ones) with values of the wrong type or at the edge."""
    verb = body.get("verb")
    own = list(OPTIONS[verb].model_fields) if isinstance(verb, str) and verb in OPTIONS else []
    own = own or OPTION_KEYS
    keys = draw(st.lists(st.sampled_from(own) | st.sampled_from(OPTION_KEYS + ["limit", "watch", ""]),
                         min_size=1, max_size=3, unique=True))
    options = dict(body.get("options") or {}) if isinstance(body.get("options"), dict) else {}
    for key in keys:
        options[key] = draw(option_value(key))
    if "preconditions" in keys and draw(st.booleans()):
        options["preconditions"] = {"uid": draw(option_value("uid")), "resourceVersion": draw(HOSTILE)}
    return {**body, "options": options}


@st.composite
def mutate_object(draw, body: dict) -> dict:
    """Somewhere inside the object (a Binding's target, a pod's metadata.name, …): another type or gone."""
    obj = body.get("object")
    paths = [p for p in _paths(obj) if p] if isinstance(obj, dict) else []
    if not paths:
        return {**body, "object": draw(HOSTILE)}
    meta = [p for p in paths if p[0] == "metadata"]
    path = draw(st.sampled_from(meta if meta and draw(st.booleans()) else paths))
    delete = draw(st.integers(0, 3)) == 0
    return {**body, "object": _set(obj, path, None if delete else draw(HOSTILE), delete)}


@st.composite
def odd_object(draw) -> dict:
    """A write whose object has one or two parts of the wrong type: what the store keeps must not stop
    anyone reading it back (a list, a snapshot, a watch)."""
    verb = draw(st.sampled_from(["create", "create", "update", "updateStatus"]))
    kind = draw(st.sampled_from(["Pod", "Pod"] + sorted(OBJECTS)))
    body = template(verb, draw(FRESH) if verb == "create" else draw(st.sampled_from(NAMES)), kind)
    for _ in range(draw(st.integers(1, 2))):
        body = draw(mutate_object(body))
    return body


@st.composite
def wrong_request(draw) -> dict:
    """A valid request of some verb with one to three of its fields, options or object parts wrong."""
    if draw(st.integers(0, 3)) == 0:
        return draw(odd_object())
    body = draw(base_request())
    for _ in range(draw(st.integers(1, 3))):
        mutation = draw(st.sampled_from([mutate_field, mutate_options, mutate_options, mutate_object, mutate_object]))
        body = draw(mutation(body))
    if draw(st.integers(0, 9)) == 0:
        body = {**body, draw(st.sampled_from(["extra", "apiVersion", "Verb", "user", ""])): draw(HOSTILE)}
    return body


# ---- huge and deep -------------------------------------------------------------------------------
SIZES = [MAX_OBJECT - 2048, MAX_OBJECT - 200, MAX_OBJECT + 10, 600 << 10, MAX_MESSAGE - 4096, MAX_MESSAGE + 10,
         2 * MAX_MESSAGE]
# nesting of the whole body: around max_depth, msgpack's own stack (1,024) and well past both
DEPTHS = [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH, MAX_DEPTH + 1, 200, 1000, 1024, 1025, 5000]


@st.composite
def huge_request(draw) -> dict:
    size = draw(st.sampled_from(SIZES))
    where = draw(st.sampled_from(["annotation", "label", "name", "selector", "patch", "status", "keys", "extra"]))
    name = draw(st.sampled_from(NAMES) | FRESH)
    blob = big_str(size)
    if where in ("annotation", "label"):
        obj = pod(name)
        obj["metadata"]["annotations" if where == "annotation" else "labels"] = {"blob": blob}
        return request(draw(st.sampled_from(["create", "update"])), object=obj, name=name)
    if where == "name":
        return request(draw(st.sampled_from(VERBS)), name=blob, object=pod(name))
    if where == "selector":
        return request("list", options={draw(st.sampled_from(["labelSelector", "fieldSelector"])): blob})
    if where == "patch":
        return request("patch", name=name, object={"metadata": {"annotations": {"blob": blob}}})
    if where == "status":
        return request("updateStatus", name=name, object={**pod(name), "status": {"message": blob}})
    if where == "keys":
        count = max(1, size // 8)
        return request("snapshot", "*", options={"keys": Raw(pack(["pod.#"] * min(count, 200_000)),
                                                           f"{count} keys")})
    return {**template("get", name), "extra": blob}


# where a deep part goes, and how many maps and lists of the request enclose it there
DEEP_PLACES = {"spec": 5, "annotations": 4, "patch": 1, "patch-spec": 2, "object": 1, "options": 2,
               "preconditions": 3, "target": 2, "status": 3, "extra": 1}


@st.composite
def deep_request(draw) -> dict:
    """A request nested `DEPTHS` deep as a whole, the deep part in one of `DEEP_PLACES`."""
    where = draw(st.sampled_from(sorted(DEEP_PLACES) + ["spec", "annotations", "status"]))  # these are stored
    levels = max(1, draw(st.sampled_from(DEPTHS)) - DEEP_PLACES[where])
    nest = deep(levels, draw(st.sampled_from(["map", "map", "list"])))
    name = draw(st.sampled_from(NAMES) | FRESH)
    if where == "spec":
        obj = pod(name)
        obj["spec"]["containers"][0]["fz"] = nest
        return request(draw(st.sampled_from(["create", "create", "update"])), name=name, object=obj)
    if where == "annotations":
        obj = pod(name)
        obj["metadata"]["annotations"] = {"deep": nest}
        return request("create", object=obj)
    if where == "patch":
        return request("patch", name=name, object=nest)
    if where == "patch-spec":
        return request("patch", name=name, object={"spec": nest})
    if where == "object":
        return request(draw(st.sampled_from(["create", "update", "updateStatus", "bind"])), name=name, object=nest)
    if where == "options":
        return request("list", options={"labelSelector": nest})
    if where == "preconditions":
        return request("delete", name=name, options={"preconditions": {"uid": nest}})
    if where == "target":
        return {**template("bind", name), "object": {"target": nest}}
    if where == "status":
        return request("updateStatus", name=name, object={**pod(name), "status": {"deep": nest}})
    return {**template("get", name), "extra": nest}


# ---- envelopes -----------------------------------------------------------------------------------
@dataclass
class Msg:
    """One message to publish. Symbolic properties are made concrete, and unique, when it is sent:
    `message_id` "auto" (a fresh id), "long:N" (a unique id of N bytes), "utf8" (unique, not ASCII),
    or None/"" as they are; `reply_to` "direct", "none", "empty", "sink" (a queue of the test's),
    "upper", "bogus-direct", "long-direct"; `schema` "ok" (the current version), "absent", or the
    header's value; `header_pad` > 0: headers that leave the content header frame that many bytes
    short of frame_max."""

    target: str  # "apiserver" ({c}.api) or "store" ({c}.store)
    body: Any
    message_id: str | None = "auto"
    reply_to: str = "direct"
    content_type: str | None = "application/msgpack"
    schema: Any = "ok"
    type: str | None = "request"
    user_id: str | None = "guest"
    headers: dict = field(default_factory=dict)
    header_pad: int = 0
    expiration: str | None = None


TARGETS = st.sampled_from(["apiserver", "store"])
PLAIN_IDS = st.sampled_from(["auto", "auto", "auto", None])


@st.composite
def plain(draw, bodies) -> Msg:
    """A message whose envelope is right, to one of the two actors; some have no message id."""
    return Msg(draw(TARGETS), draw(bodies), message_id=draw(PLAIN_IDS))


@st.composite
def _spliced(draw) -> dict:
    body = draw(base_request())
    where = draw(st.sampled_from(FIELDS + ("",)))
    special = draw(st.sampled_from(RAW_SPECIALS))
    if where:
        return {**body, where: special}
    return {special: 1, **body}  # a key that is not a string, or not UTF-8


@st.composite
def _cut(draw) -> Raw:
    raw = pack(draw(base_request()))
    at = draw(st.integers(0, len(raw) - 1))
    return Raw(raw[:at], f"a request cut at byte {at} of {len(raw)}")


ODD_BODIES = [Raw(b"", "empty body"), Raw(b"\xc1", "0xc1 (never used)"), Raw(b"\xc1\xc1 not msgpack", "garbage"),
              Raw(b'{"verb": "get", "kind": "Pod"}', "JSON"), Raw(b"\x80", "{}"), Raw(b"\x90", "[]"),
              Raw(b"\xc0", "nil"), Raw(b"\xc3", "true"), Raw(b"\x01", "1"), Raw(b"\xcb\x7f\xf8" + b"\x00" * 6, "NaN"),
              Raw(b"\xa3get", '"get"'), Raw(b"\xdf\xff\xff\xff\xff", "map32 claiming 4G pairs"),
              Raw(b"\x81\xa4verb\xa3get\xc0", "a map and a trailing nil")]


def envelope_bodies():
    return st.one_of(base_request(), base_request(), _spliced(), _cut(), st.sampled_from(ODD_BODIES + RAW_SPECIALS),
                     st.binary(max_size=40).map(lambda b: Raw(b, f"bytes {b!r}")),
                     st.lists(base_request(), max_size=2), SCALARS)


USER_HEADERS = ["alice", "", 5, None, b"bytes", ["a"], {"a": 1}, "x" * 300]


@st.composite
def envelope(draw) -> Msg:
    """Everything around the body wrong in turn: ids, reply address, content type, schema header, type,
    user, headers (a forged dead-letter reason, a user for the store, one that fills the frame)."""
    target = draw(TARGETS)
    headers = draw(st.sampled_from([{}, {}, {}, {"x-kubus-user": draw(st.sampled_from(USER_HEADERS))},
                                    {"x-kubus-dead-reason": "forged"}, {"CC": ["pod.default.-"]}]))
    return Msg(
        target, draw(envelope_bodies()),
        message_id=draw(st.sampled_from(["auto"] * 4 + [None, "", "long:200", "long:246", "long:247", "long:248",
                                                         "long:249", "long:255", "utf8"])),
        reply_to=draw(st.sampled_from(["direct"] * 6 + ["none", "empty", "sink", "upper", "bogus-direct",
                                                        "long-direct"])),
        content_type=draw(st.sampled_from(["application/msgpack"] * 3 + [None, "", "application/json", "text/plain",
                                                                         "application/msgpack; v=2", "x" * 255])),
        schema=draw(st.sampled_from(["ok"] * 4 + ["absent", 0, 2, -1, "1", Decimal("1.5"), None, [1], {"v": 1}, 2 ** 40,
                                                  b"1"])),
        type=draw(st.sampled_from(["request"] * 3 + [None, "", "command", "commands", "reply", "event", "x" * 255])),
        user_id=draw(st.sampled_from(["guest"] * 4 + [None])),
        headers=headers,
        header_pad=draw(st.sampled_from([0] * 8 + [100, 600, 1100, 3000])),
        expiration=draw(st.sampled_from([None] * 8 + ["0", "1", "60000"])),
    )


# ---- wire v2: a `commands` batch straight to the store ---------------------------------------------
@dataclass
class Inner:
    """One command of a `commands` batch. Symbolic values are made concrete when it is sent: `id` as
    Msg.message_id; `reply_to` as Msg.reply_to, plus "bare" (`amq.rabbitmq.reply-to` itself), with
    "direct" the test's own expanded address; `correlation_id` "auto" (unique); `expires` "none",
    "past" or "future". Anything else is sent as it is."""

    command: Any
    id: Any = "auto"
    user: Any = "guest"
    reply_to: Any = "direct"
    correlation_id: Any = "auto"
    expires: Any = "none"
    extra: dict = field(default_factory=dict)


@st.composite
def inner(draw) -> Inner:
    return Inner(
        draw(st.one_of(base_request(), base_request(), wrong_request(), WILD)),
        id=draw(st.sampled_from(["auto"] * 5 + [None, "", "long:255", "long:256", "long:257", "utf8"]) | WILD),
        user=draw(st.sampled_from(["guest"] * 5 + ["", "alice", "x" * 256, "x" * 257, None]) | WILD),
        reply_to=draw(st.sampled_from(["direct"] * 6 + ["none", "empty", "sink", "upper", "bare", "bogus-direct",
                                                        "long-direct"]) | WILD),
        correlation_id=draw(st.sampled_from(["auto"] * 8 + [None, "", "x" * 255, "x" * 256]) | WILD),
        expires=draw(st.sampled_from(["none"] * 6 + ["past", "future", 0, -1, 2 ** 63 - 1, float("nan"), True, "soon"])),
        extra=draw(st.sampled_from([{}] * 8 + [{"extra": 1}, {"commands": []}])),
    )


@st.composite
def commands(draw) -> Msg:
    """A `commands` message to the store: a list of command envelopes (now and then something else)."""
    body = draw(st.lists(inner(), min_size=1, max_size=4))
    if draw(st.integers(0, 5)) == 0:
        body.insert(draw(st.integers(0, len(body))), draw(HOSTILE))
    if draw(st.integers(0, 9)) == 0:
        body = draw(st.sampled_from([[], {}, Raw(b"\xc0", "nil")]) | HOSTILE)
    return Msg("store", body, type="commands", reply_to=draw(st.sampled_from(["none"] * 3 + ["direct", "sink"])),
               message_id=draw(st.sampled_from(["auto", "auto", None])))


def batches(messages, max_size: int = 4):
    """A few messages published back to back: the store applies them as one batch."""
    return st.lists(messages, min_size=1, max_size=max_size)

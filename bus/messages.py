"""Bodies of requests, commands, events and bookmarks (contract 2), validated strictly.

A request is checked field by field, `options` against the model of its verb: a body that is a
map but wrong gets 400 BadRequest naming the field (the sender's problem, answered), while what
cannot be decoded at all is dead-lettered by the caller.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from api.causes import cause_of, causes_of
from api.status import StatusError
from bus.codec import DecodeError
from bus.replyto import node_of

Verb = Literal["create", "get", "list", "update", "updateStatus", "patch", "delete", "bind", "snapshot", "logs",
               "watch", "token", "exec", "attach", "portforward", "evict", "deletecollection"]
STREAM_VERBS = ("exec", "attach", "portforward")  # a session relayed by the pod's kubelet (runtime/streams.py)
WRITES = frozenset(("create", "update", "updateStatus", "patch", "delete", "bind"))
USER_HEADER = "x-kubus-user"  # on a command: the requester the apiserver admitted (broker-validated user_id)
MAX_KEY_BYTES = 255
MAX_SNAPSHOT_KEYS = 25_000


def fits_short_string(text: str) -> bool:
    """At most 255 bytes in UTF-8 (a character is at most 4): an AMQP short string."""
    return len(text) * 4 <= MAX_KEY_BYTES or len(text.encode()) <= MAX_KEY_BYTES


def _short(text: str) -> str:
    if not fits_short_string(text):
        raise ValueError(f"must be at most {MAX_KEY_BYTES} bytes (an AMQP short string)")
    return text


ShortStr = Annotated[str, AfterValidator(_short)]  # fits an AMQP property: message id, reply-to, user


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Request(_Strict):
    verb: Verb
    kind: str = Field(min_length=1, max_length=64)
    namespace: str | None = Field(None, max_length=253)
    name: str | None = Field(None, max_length=253)
    object: dict[str, Any] | list[Any] | None = None  # a list: only a JSON patch's operations
    resourceVersion: str | None = Field(None, max_length=32)
    options: dict[str, Any] = Field(default_factory=dict)
    impersonate: "Impersonate | None" = None  # `kubectl --as`: whom to act as, if the caller may (the apiserver checks)
    # set by the apiserver on a command only (a client's request carrying them is refused):
    guard: "Guard | None" = None  # a node's write: the stored pod must be bound to that node
    warnings: list[str] | None = None  # admission's warnings, handed back with the store's answer


class Guard(_Strict):
    nodeName: str = Field(min_length=1, max_length=253)
    message: str = Field(max_length=4096)  # the Forbidden message when the pod is bound elsewhere


class Impersonate(_Strict):
    """Kubernetes' `Impersonate-*` headers as the gateway read them: a user (a ServiceAccount's
    `system:serviceaccount:<ns>:<name>` too), groups, a uid and extra values by key. What the caller may
    impersonate is the apiserver's to decide (the `impersonate` verb), never the sender's."""

    user: str | None = Field(None, max_length=253)
    groups: list[Annotated[str, Field(max_length=253)]] = Field(default_factory=list, max_length=100)
    uid: str | None = Field(None, max_length=253)
    extra: dict[Annotated[str, Field(max_length=253)], list[Annotated[str, Field(max_length=1024)]]] = \
        Field(default_factory=dict, max_length=32)


APISERVER_FIELDS = ("guard", "warnings")


# ---- options, one model per verb --------------------------------------------------------------
class NoOptions(_Strict):
    pass


DryRun = list[Literal["All"]] | None  # `dryRun=All`: admitted and answered, never written


ManagerName = Annotated[str, Field(min_length=1, max_length=128)]  # who writes: kept in the managedFields


class WriteOptions(_Strict):
    dryRun: DryRun = None
    fieldManager: ManagerName | None = None
    apply: bool | None = None  # a create that is a server-side apply; on a command: managedFields computed


class ListOptions(_Strict):
    labelSelector: str | None = Field(None, max_length=4096)
    fieldSelector: str | None = Field(None, max_length=4096)


class Preconditions(_Strict):
    uid: str | None = Field(None, max_length=64)
    resourceVersion: str | None = Field(None, max_length=32)


class DeleteOptions(_Strict):
    gracePeriodSeconds: int | None = Field(None, ge=0)
    propagationPolicy: Literal["Orphan", "Background", "Foreground"] | None = None
    preconditions: Preconditions | None = None
    dryRun: DryRun = None


class DeleteCollectionOptions(DeleteOptions):
    """DELETE of a collection: which items (as a list selects them), each deleted with these options."""

    labelSelector: str | None = Field(None, max_length=4096)
    fieldSelector: str | None = Field(None, max_length=4096)


class PatchOptions(_Strict):
    subresource: Literal["status"] | None = None
    patchType: Literal["merge", "json", "strategic", "apply"] | None = None  # None: merge
    dryRun: DryRun = None
    fieldManager: ManagerName | None = None
    force: bool | None = None  # an apply takes the fields other managers own


class BindOptions(_Strict):
    uid: str | None = Field(None, max_length=64)


class SnapshotOptions(_Strict):
    """The binding keys whose objects are wanted; each costs the store a few hundred bytes of matcher
    while the snapshot is cut, so there are at most MAX_SNAPSHOT_KEYS (a hollow kubelet of 12,000 nodes
    binds 24,001)."""

    keys: list[str] = Field(min_length=1, max_length=MAX_SNAPSHOT_KEYS)


class WatchOptions(_Strict):
    """A person's watch: the apiserver declares a queue bound to the keys RBAC allows."""

    keys: list[str] = Field(min_length=1, max_length=1000)
    queue: ShortStr  # the person's own name for it (it must start with their watch prefix)


class TokenOptions(_Strict):
    """A TokenRequest's spec: a ServiceAccount's credential, bound to a pod that runs as the account (a
    node must name one bound to it), for `expirationSeconds`."""

    pod: str | None = Field(None, min_length=1, max_length=253)
    expirationSeconds: int | None = None
    audiences: list[Annotated[str, Field(max_length=1024)]] | None = Field(None, max_length=16)


class LogsOptions(_Strict):
    container: str | None = Field(None, max_length=253)
    tail: int | None = Field(None, ge=0)
    previous: bool | None = None
    offset: int | None = Field(None, ge=0)
    limitBytes: int | None = Field(None, ge=1)
    timestamps: bool | None = None  # each line after its RFC3339Nano time (cri nodes: the log records' times)
    sinceSeconds: int | None = Field(None, ge=1)
    sinceTime: str | None = Field(None, pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


class StreamOptions(_Strict):
    """exec / attach / portforward: what the pod subresource's query says, and the session's id (the
    routing key of the caller's frames on `{c}.streams`)."""

    session: str = Field(min_length=16, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    container: str | None = Field(None, max_length=253)
    command: list[Annotated[str, Field(max_length=65536)]] = Field(default_factory=list, max_length=4096)
    stdin: bool = False
    stdout: bool = False
    stderr: bool = False
    tty: bool = False
    ports: list[Annotated[int, Field(ge=1, le=65535)]] = Field(default_factory=list, max_length=128)
    probe: bool = False  # only whether the session would open: authorized, the container there; nothing runs


class BindingTarget(BaseModel):
    model_config = ConfigDict(strict=True)
    name: str = Field(min_length=1, max_length=253)
    kind: Literal["Node", ""] | None = None
    apiVersion: str | None = None


class Binding(BaseModel):
    """A bind's object (v1 Binding): only its target matters to the store."""

    model_config = ConfigDict(strict=True)
    target: BindingTarget


OPTIONS: dict[str, type[_Strict]] = {
    "create": WriteOptions, "get": NoOptions, "update": WriteOptions, "updateStatus": WriteOptions,
    "list": ListOptions, "delete": DeleteOptions, "patch": PatchOptions, "bind": BindOptions,
    "snapshot": SnapshotOptions, "logs": LogsOptions, "watch": WatchOptions, "token": TokenOptions,
    "exec": StreamOptions, "attach": StreamOptions, "portforward": StreamOptions,
    "evict": DeleteOptions,  # a pod's eviction: its Eviction's deleteOptions; the object is the Eviction
    "deletecollection": DeleteCollectionOptions,
}


class CommandEnvelope(_Strict):
    """One admitted command of a `commands` batch (wire v2): the requester's broker identity, the
    request's message id, reply address, correlation id and deadline (epoch seconds)."""

    id: ShortStr | None = None
    user: ShortStr
    reply_to: ShortStr | None = None
    correlation_id: ShortStr | None = None
    expires: float | int | None = None
    command: dict[str, Any]


# ---- events -----------------------------------------------------------------------------------
class Event(_Strict):
    type: Literal["ADDED", "MODIFIED", "DELETED"]
    kind: str
    rev: int = Field(ge=1)
    prev: int = Field(ge=0)
    from_: str | None = Field(None, alias="from")
    object: dict[str, Any]


class Bookmark(_Strict):
    type: Literal["BOOKMARK"]
    kind: str
    shard: str
    rev: int = Field(ge=0)
    count: int = Field(ge=0)
    digest: int = Field(ge=0)


_NO_OPTIONS_NEEDED = frozenset(verb for verb, model in OPTIONS.items()
                               if not any(field.is_required() for field in model.model_fields.values()))


def parse_request(body: dict[str, Any]) -> Request:
    """The request with its options checked, or StatusError BadRequest naming every wrong field."""
    try:
        req = Request.model_validate(body)
    except ValidationError as exc:
        raise _bad_request(exc, (), Request) from None
    try:
        if req.options or req.verb not in _NO_OPTIONS_NEEDED:
            OPTIONS[req.verb].model_validate(req.options)
    except ValidationError as exc:
        raise _bad_request(exc, ("options",), OPTIONS[req.verb]) from None
    if isinstance(req.object, list) and (req.verb, req.options.get("patchType")) != ("patch", "json"):
        raise StatusError("BadRequest", "the request is invalid: object: Invalid value: only a JSON patch is a list")
    if req.verb == "bind":
        try:
            Binding.model_validate(req.object)
        except ValidationError as exc:
            raise _bad_request(exc, ("object",), Binding) from None
    if req.verb in ("snapshot", "watch") and any(len(k.encode()) > MAX_KEY_BYTES for k in req.options["keys"]):
        raise StatusError("BadRequest", f"options.keys: Invalid value: must be at most {MAX_KEY_BYTES} bytes each")
    return req


def parse_client_request(body: dict[str, Any]) -> Request:
    """A request as a client sent it: the fields only an apiserver sets are refused."""
    for name in APISERVER_FIELDS:
        if isinstance(body, dict) and body.get(name) is not None:
            cause = cause_of({"type": "extra_forbidden", "loc": (name,), "msg": "", "input": body[name]}, ())
            raise StatusError("BadRequest", f"the request is invalid: {cause.field}: {cause.message}", [cause])
    return parse_request(body)


def valid_reply_to(reply_to: str | None) -> bool:
    """Only RabbitMQ's direct reply-to may be answered, as the broker makes its addresses (one naming
    a node): a reply never lands in someone's queue, nor at an address the broker cannot decode."""
    return reply_to is None or node_of(reply_to) is not None


def _bad_request(exc: ValidationError, prefix: tuple, model: type[BaseModel]) -> StatusError:
    causes = causes_of(exc.errors(), prefix, model)
    listed = "; ".join(f"{c.field}: {c.message}" for c in causes)
    return StatusError("BadRequest", f"the request is invalid: {listed}", causes)


def parse_event(body: dict[str, Any]) -> Event | Bookmark:
    try:
        if body.get("type") == "BOOKMARK":
            return Bookmark.model_validate(body)
        return Event.model_validate(body)
    except ValidationError as exc:
        raise DecodeError("invalid", _first(exc)) from None


def _first(exc: ValidationError) -> str:
    err = exc.errors()[0]
    return f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"


Request.model_rebuild()

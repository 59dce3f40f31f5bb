"""The messages of Kubernetes' protobuf encoding, read from the tables in api/protobuf/tables/.

A table's MESSAGES holds one message per line (indented lines continue it): its name, then its fields
as `jsonName=number:type`. A type is a scalar — `s` string, `i32`, `i64`, `b` bool, `y` bytes — with
`!` when a present zero stays in the JSON (a Go pointer, or a field without `omitempty`; any other
scalar's zero is left out, as Go's JSON writer leaves it out); one of the special messages — `time`
(Time{seconds=1,nanos=2}, RFC 3339), `mtime` (MicroTime), `qty` (Quantity{string=1}), `ios`
(IntOrString{type=1,intVal=2,strVal=3}), `raw` (RawExtension{raw=1} / FieldsV1: JSON bytes; a
WatchEvent's object is read by envelope.py); or a message name, `meta.X` for another package's. `[]T`
is repeated, `{T}` a map<string, T> (repeated entries {key=1, value=2}). A field named `^` is inlined in the JSON (Go's
embedded struct: Volume's VolumeSource). A name ending in `[]` is a message whose JSON is the bare list
of its `items` (authentication's ExtraValue)."""
from __future__ import annotations

from dataclasses import dataclass, field

from api.protobuf import wire
from api.protobuf.tables import (admissionregistration, apps, authentication, authorization, autoscaling,
                                 autoscaling_v2, batch, coordination, core, core_storage, core_volumes, discovery,
                                 meta, networking, policy, rbac, scheduling, storage)

TABLES = (meta, core, core_volumes, core_storage, apps, batch, admissionregistration, rbac, scheduling, networking,
          discovery, coordination, policy, autoscaling, autoscaling_v2, authorization, authentication, storage)
SCALARS = frozenset({"s", "i32", "i64", "b", "y"})
SPECIAL = frozenset({"time", "mtime", "qty", "ios", "raw"})
ZERO = {"s": "", "i32": 0, "i64": 0, "b": False, "y": ""}


@dataclass(frozen=True)
class Field:
    name: str  # the JSON name; "^" when inlined
    number: int
    type: str  # a scalar, a special message, or a message key ("core.PodSpec")
    repeated: bool = False
    map: bool = False
    keep_zero: bool = False
    key: bytes = field(default=b"", compare=False, repr=False)  # the field's key on the wire, as written

    def __post_init__(self) -> None:
        varint = self.type in ("i32", "i64", "b") and not self.map  # a map entry is a message
        object.__setattr__(self, "key", wire.varint(self.number << 3 | (wire.VARINT if varint else wire.BYTES)))

    @property
    def scalar(self) -> bool:
        return self.type in SCALARS

    @property
    def message(self) -> bool:
        return self.type not in SCALARS and self.type not in SPECIAL


@dataclass(frozen=True)
class Message:
    key: str
    fields: tuple[Field, ...]  # in field-number order, as Go writes them
    bare_list: bool = False
    by_number: dict[int, Field] = field(default_factory=dict, compare=False, repr=False)
    by_name: dict[str, Field] = field(default_factory=dict, compare=False, repr=False)  # "^" not among them
    inlined: tuple[Field, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        self.by_number.update((f.number, f) for f in self.fields)
        self.by_name.update((f.name, f) for f in self.fields if f.name != "^")
        object.__setattr__(self, "inlined", tuple(f for f in self.fields if f.name == "^"))


def parse_field(token: str, package: str) -> Field:
    name, _, rest = token.partition("=")
    number, _, kind = rest.partition(":")
    repeated, is_map = kind.startswith("[]"), kind.startswith("{")
    kind = kind[2:] if repeated else kind[1:-1] if is_map else kind
    keep = kind.endswith("!")
    kind = kind.rstrip("!")
    if kind not in SCALARS and kind not in SPECIAL and "." not in kind:
        kind = f"{package}.{kind}"
    return Field(name, int(number), kind, repeated, is_map, keep)


def parse_table(text: str, package: str) -> dict[str, Message]:
    out: dict[str, Message] = {}
    for line in text.replace("\n  ", " ").split("\n"):
        if not line.strip():
            continue
        name, *tokens = line.split()
        bare = name.endswith("[]")
        key = f"{package}.{name.removesuffix('[]')}"
        fields = sorted((parse_field(t, package) for t in tokens), key=lambda f: f.number)
        out[key] = Message(key, tuple(fields), bare)
    return out


def _load() -> tuple[dict[str, Message], dict[tuple[str, str], str]]:
    messages: dict[str, Message] = {}
    kinds: dict[tuple[str, str], str] = {}
    for table in TABLES:
        messages.update(parse_table(table.MESSAGES, table.PACKAGE))
        for kind in table.KINDS.split():
            kinds[(table.API_VERSION, kind)] = f"{table.PACKAGE}.{kind}"
    return messages, kinds


MESSAGES, KINDS = _load()
META_KINDS = {kind: key for (version, kind), key in KINDS.items() if version == "meta.k8s.io/v1"}


def kind_message(api_version: str, kind: str) -> Message | None:
    """The message of a kind; meta's (Status, DeleteOptions, WatchEvent, …) under any group's version,
    as Kubernetes registers them in every group."""
    key = KINDS.get((api_version, kind)) or META_KINDS.get(kind)
    return MESSAGES[key] if key else None

"""Names on the broker (contract 1) and routing keys of events."""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass

NONE = "-"
SCHEMA_HEADER = "x-kubus-schema"
SCHEMA_VERSION = 2  # wire v2: event and command batches
DEAD_REASON = "x-kubus-dead-reason"
MAX_SEGMENT = 100  # bytes of UTF-8; three segments and a kind fit AMQP's 255-byte routing key
SEGMENT_HEAD = 83  # bytes kept of a longer segment, then `~` and 16 hex digits of its hash
WILDCARDS = ("*", "#")


@dataclass(frozen=True)
class Names:
    """Every exchange and queue of one cluster, prefixed with its name."""

    cluster: str

    @property
    def api(self) -> str:
        return f"{self.cluster}.api"

    @property
    def store(self) -> str:
        return f"{self.cluster}.store"

    @property
    def events(self) -> str:
        return f"{self.cluster}.events"

    @property
    def streams(self) -> str:
        """Where a client sends the frames of an exec/attach/port-forward session (direct, by session id)."""
        return f"{self.cluster}.streams"

    @property
    def dead(self) -> str:
        return f"{self.cluster}.dead"

    @property
    def apiserver_queue(self) -> str:
        return f"{self.cluster}.apiserver"

    @property
    def store_queue(self) -> str:
        return f"{self.cluster}.store"

    @property
    def store_wal(self) -> str:
        """The replicated store's log (a stream)."""
        return f"{self.cluster}.store.wal"

    @property
    def store_replica(self) -> str:
        """Where a replicated store behind the log asks the one holding the lock for a copy."""
        return f"{self.cluster}.store.replica"

    @property
    def dead_queue(self) -> str:
        return f"{self.cluster}.dead"

    def actor_queue(self, actor: str) -> str:
        return f"{self.cluster}.{actor}"

    def watch_prefix(self, user: str) -> str:
        """The names of a person's watch queues (declared by an apiserver, consumed by the person):
        the user readable, and a hash of the exact name, so `a.b` and `a_b` never share a prefix."""
        tag = hashlib.blake2b(user.encode(), digest_size=4).hexdigest()
        return f"{self.cluster}.watch.{segment(user.replace('.', '_').replace(':', '_'))}~{tag}."

    def kubelet_logs_queue(self, node: str) -> str:
        """Where apiservers put a node's `logs` requests (through the default exchange)."""
        return f"{self.cluster}.kubelet.{segment(node)}.logs"


    def kubelet_stream_queue(self, node: str, session: str) -> str:
        """A session's inbox at the kubelet (exclusive, auto-delete), bound to `{c}.streams` by its id."""
        return f"{self.cluster}.kubelet.{segment(node)}.stream.{session}"


def segment(value: str) -> str:
    """A routing-key segment or per-node name part that fits (contract 1): up to 100 bytes of
    UTF-8 it is unchanged; a longer one becomes its first 83 bytes (fewer when the 83rd byte
    would split a character), `~`, and the first 16 hex digits of
    `hashlib.blake2b(value.encode())` — the default 64-byte digest — of the whole segment.
    At most 100 bytes either way; the `*` and `#` wildcards pass through."""
    raw = value.encode()
    if len(raw) <= MAX_SEGMENT or value in WILDCARDS:
        return value
    head = raw[:SEGMENT_HEAD].decode(errors="ignore")
    return f"{head}~{hashlib.blake2b(raw).hexdigest()[:16]}"


def word(value: str | None) -> str:
    """One segment of a routing key: the value with dots as `_`, shortened when long; `-` if absent."""
    return segment(value.replace(".", "_")) if value else NONE


def routing_key(kind: str, namespace: str | None, node: str | None) -> str:
    """`{kind}.{namespace}.{node}`, `-` for an absent part, dots in names as `_`, a long part
    shortened by `segment`."""
    return f"{kind.lower()}.{word(namespace)}.{word(node)}"


def object_key(kind: str, obj: dict) -> str:
    """The routing key of an object's events (its node: a pod's nodeName, a node's own name)."""
    meta = obj.get("metadata") or {}
    lower = kind.lower()
    if lower == "pod":
        node = (obj.get("spec") or {}).get("nodeName")
    elif lower == "node":
        node = meta.get("name")
    elif lower == "lease" and meta.get("namespace") == "kube-node-lease":
        node = meta.get("name")
    else:
        node = None
    return routing_key(lower, meta.get("namespace"), node)


class Matcher:
    """A set of AMQP topic bindings as a trie of words (`*` one word, `#` zero or more): one lookup
    per event, however many bindings (a hollow kubelet binds two keys per node). `bytes` is what it
    holds, estimated as it is built (measured: 300 to 800 bytes a key), its memo's bound included."""

    MEMO_SIZE = 65536  # routing keys remembered (kind x namespace x node); forgotten all at once when full
    NODE_BYTES = 320  # a trie node: its dict, its word and its slot in the parent
    MEMO_BYTES = 32 * MEMO_SIZE  # a full memo: its slots (the keys are the objects' own strings)

    def __init__(self, bindings: tuple[str, ...]):
        self.root: dict = {}
        self._memo: dict[str, bool] = {}
        self.bytes = self.MEMO_BYTES + sum(64 + len(b) for b in bindings)
        for binding in bindings:
            node = self.root
            for word in _collapsed(binding.split(".")):
                if word not in node:
                    node[word] = {}
                    self.bytes += self.NODE_BYTES + len(word)
                node = node[word]
            node[None] = True  # a binding ends here

    def matches(self, key: str) -> bool:
        known = self._memo.get(key)
        if known is None:
            if len(self._memo) >= self.MEMO_SIZE:
                self._memo.clear()
            known = self._memo[key] = self._walk(self.root, key.split("."), 0)
        return known

    def _walk(self, node: dict, words: list[str], i: int) -> bool:
        if i == len(words):
            return None in node or ("#" in node and self._walk(node["#"], words, i))
        for word in (words[i], "*"):
            if word in node and self._walk(node[word], words, i + 1):
                return True
        rest = node.get("#")
        if rest is None:
            return False
        if None in rest:  # a binding that ends in '#' takes whatever is left
            return True
        return any(self._walk(rest, words, j) for j in range(i, len(words) + 1))


def _collapsed(words: list[str]) -> list[str]:
    """`#.#` matches what `#` matches; a run of them, each trying every split of the key, would cost
    the walk a power of the run's length (126 of them: 5 s a key)."""
    return [w for i, w in enumerate(words) if not (w == "#" and i and words[i - 1] == "#")]


class _Matchers:
    """The matchers of recent binding sets, least recently used first, bounded in bytes: a set of
    tens of thousands of keys (a snapshot's) costs megabytes, and sets come from clients. One larger
    than a quarter of the bound is built for its caller and not kept."""

    def __init__(self, max_bytes: int):
        self.max_bytes, self.bytes = max_bytes, 0
        self.kept: OrderedDict[tuple[str, ...], Matcher] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, bindings: tuple[str, ...]) -> Matcher:
        with self.lock:
            found = self.kept.get(bindings)
            if found is not None:
                self.kept.move_to_end(bindings)
                return found
        built = Matcher(bindings)
        if built.bytes <= self.max_bytes // 4:
            with self.lock:
                self._keep(bindings, built)
        return built

    def _keep(self, bindings: tuple[str, ...], built: Matcher) -> None:
        old = self.kept.pop(bindings, None)
        self.bytes += built.bytes - (old.bytes if old else 0)
        self.kept[bindings] = built
        while self.bytes > self.max_bytes:
            self.bytes -= self.kept.popitem(last=False)[1].bytes


MATCHERS_BYTES = 32 << 20  # what one process's cached matchers may hold
_matchers = _Matchers(MATCHERS_BYTES)


def matcher(bindings: tuple[str, ...]) -> Matcher:
    return _matchers.get(bindings)


def key_matches(binding: str, key: str) -> bool:
    """AMQP topic matching of one binding."""
    return matcher((binding,)).matches(key)

"""The store's core of a CAS write, in one process and without the broker, for counting instructions:

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python -m bench.storecore --rounds 20
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python -m bench.storecore --rounds 0

(the difference over 20 x 64 = 1,280 writes is what a write costs). Each round is what bench.store's
64 clients do between two replies: the load generator encodes each pod's next update, the store decodes
the batch of 64 update commands, parses each, runs `State.update` (managedFields' bookkeeping included),
encodes the reply and the event, and the load generator decodes the reply for its next write."""
from __future__ import annotations

import argparse
import time

from bench.store import payload
from bus import codec
from bus.messages import parse_request
from bus.topology import SCHEMA_HEADER, SCHEMA_VERSION
from store.commands import execute
from store.state import State

CLIENTS = 64
MANAGER = "bench"


def command(obj: dict) -> dict:
    return {"verb": "update", "kind": "Pod", "namespace": "default", "name": obj["metadata"]["name"],
            "object": obj, "resourceVersion": obj["metadata"]["resourceVersion"],
            "options": {"fieldManager": MANAGER}}


def setup() -> tuple[State, list[dict]]:
    state = State(clock=time.time)
    state.seed_namespaces()
    objects = []
    for i in range(CLIENTS):
        req = parse_request({"verb": "create", "kind": "Pod", "namespace": "default", "name": None,
                             "object": payload(i), "resourceVersion": None, "options": {"fieldManager": MANAGER}})
        objects.append(codec.decode(execute(state, req, 1 << 20)[0], _headers(), 1 << 20)["object"])
    state.take_changes()
    return state, objects


def _headers() -> dict:
    return {SCHEMA_HEADER: SCHEMA_VERSION}


def round_(state: State, objects: list[dict], n: int) -> None:
    batch = []
    for i, obj in enumerate(objects):
        obj["metadata"]["labels"]["n"] = str(n)
        batch.append({"id": f"m{n}-{i}", "user": "kubus-apiserver", "reply_to": "amq.rabbitmq.reply-to.x",
                      "correlation_id": f"c{n}-{i}", "expires": 1e12, "command": command(obj)})
    body = codec.decode(codec.encode(batch), _headers(), 1 << 20, batch=True)
    for i, entry in enumerate(body):
        reply = execute(state, parse_request(entry["command"]), 1 << 20)[0]
        objects[i] = codec.decode(reply, _headers(), 1 << 20)["object"]
    for change in state.take_changes():
        change.event()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    state, objects = setup()
    for n in range(args.rounds):
        round_(state, objects, n)
    managed = objects[0]["metadata"].get("managedFields") or [{}]
    print(f"{args.rounds * CLIENTS} writes, rev {state.rev}, fieldsV1 a {type(managed[0].get('fieldsV1')).__name__}")


if __name__ == "__main__":
    main()

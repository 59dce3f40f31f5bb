"""Which queues become quorum queues on a RabbitMQ cluster, and with what: every durable queue,
a delivery limit where dead letters go, at-least-once dead-lettering where the queue refuses
publishes when full; exclusive and auto-delete queues stay classic; nothing changes by default."""
from __future__ import annotations

from bus.declare import DELIVERY_LIMIT, Bounds, QueueSpec, apiserver_queue, dead_queue_arguments, queue_arguments, \
    store_queue
from bus.topology import Names

NAMES = Names("c")
QUORUM = Bounds(queue_type="quorum")


def test_classic_by_default():
    for spec in (store_queue(NAMES), QueueSpec("c.controller.x", ((NAMES.events, "Pod.#"),))):
        assert "x-queue-type" not in queue_arguments(NAMES, spec)
    assert "x-queue-type" not in dead_queue_arguments()


def test_request_queues_dead_letter_at_least_once():
    for spec in (store_queue(NAMES, QUORUM), apiserver_queue(NAMES, QUORUM)):
        args = queue_arguments(NAMES, spec, QUORUM)
        assert args["x-queue-type"] == "quorum" and args["x-delivery-limit"] == DELIVERY_LIMIT
        assert (args["x-overflow"], args["x-dead-letter-strategy"]) == ("reject-publish", "at-least-once")
    assert queue_arguments(NAMES, store_queue(NAMES, QUORUM), QUORUM)["x-single-active-consumer"] is True


def test_event_queues_drop_their_oldest_at_most_once():
    args = queue_arguments(NAMES, QueueSpec("c.controller.x", ((NAMES.events, "Pod.#"),)), QUORUM)
    assert (args["x-queue-type"], args["x-overflow"]) == ("quorum", "drop-head")
    assert "x-dead-letter-strategy" not in args  # at-least-once needs reject-publish


def test_the_dead_letter_queue_is_replicated_without_a_limit_of_its_own():
    args = dead_queue_arguments(QUORUM)
    assert args["x-queue-type"] == "quorum" and "x-delivery-limit" not in args


def test_exclusive_and_auto_delete_queues_stay_classic():
    for spec in (QueueSpec("c.watch", durable=False, auto_delete=True), QueueSpec("c.logs", exclusive=True)):
        assert "x-queue-type" not in queue_arguments(NAMES, spec, QUORUM)

"""The broker drops every connection: actors reconnect with backoff, re-declare, resync, serve."""
from __future__ import annotations

import os

import pytest

from runtime.client import Client
from tests.conftest import control_plane, wait_serving
from testkit.waiting import wait_until
from tests.helpers import close_connections_of, management_answers
from tests.integration.test_crud import pod
from tests.integration.test_scheduler import bound_to, node
from tests.integration.test_watch import drain


def test_actors_and_watchers_come_back_after_the_broker_drops_them(cluster, procs, amqp_url):
    if not management_answers(amqp_url):
        pytest.skip("needs the RabbitMQ management API (make broker enables it)")
    watch = cluster.watch("Pod", "default").wait_synced()
    cluster.create(pod("before"))
    drain(watch, lambda s: any(d.object["metadata"]["name"] == "before" for d in s))
    closed = sum(close_connections_of(p.pid, amqp_url) for p in procs.procs)
    closed += close_connections_of(os.getpid(), amqp_url)
    assert closed >= 3
    created = wait_until(lambda: cluster.create(pod("after")), 60, 0.5, what="writes to go through again")
    assert created["metadata"]["name"] == "after"
    seen = drain(watch, lambda s: any(d.object["metadata"]["name"] == "after" for d in s), timeout=30)
    assert not any(d.type == "DELETED" for d in seen)
    store_log = next(procs.logdir.glob("store-*.log")).read_text()
    assert store_log.count("store.active") == 2  # took the lock again after the reconnect


def test_a_singleton_that_resets_on_becoming_active_is_handed_its_whole_cache_again(procs, settings, amqp_url):
    """The scheduler forgets its state in on_active; its informer keeps the cache over the reconnect,
    so it must hand every object again, not only the difference."""
    if not management_answers(amqp_url):
        pytest.skip("needs the RabbitMQ management API (make broker enables it)")
    client = control_plane(procs, settings)
    client.create(node("static"))  # no kubelet: nothing changes the node while the scheduler is away
    scheduler = procs.start("actors.scheduler")
    client.create(pod("before"))
    wait_until(lambda: bound_to(client, "before"), 30, what="the first pod to be bound")
    close_connections_of(scheduler.pid, amqp_url)
    log = next(procs.logdir.glob("scheduler-*.log"))
    wait_until(lambda: log.read_text().count("informer.synced") >= 2, 30, what="the scheduler to resync")
    client.create(pod("after"))
    assert wait_until(lambda: bound_to(client, "after"), 30, what="a pod to be bound after the reconnect") == "static"
    client.close()


def test_a_watch_that_synced_outlives_a_reconnect_with_no_apiserver_to_declare_its_queue(procs, settings, amqp_url):
    """Found by the replicated store's fault test: a watch whose queue could not be declared again
    after a reconnect (no apiserver answered in time) ended silently. Now only a refusal ends it."""
    if not management_answers(amqp_url):
        pytest.skip("needs the RabbitMQ management API (make broker enables it)")
    procs.start("store")
    apiserver = procs.start("actors.apiserver")
    admin = Client(settings, name="admin")
    wait_serving(admin)
    client = Client(settings.model_copy(update={"request_timeout_s": 1.0}), name="watcher")
    watch = client.watch("Pod", "default").wait_synced()
    procs.kill9(apiserver)
    assert close_connections_of(os.getpid(), amqp_url) >= 1  # its queue (auto-delete) goes with it
    wait_until(lambda: watch.redeclares >= 2, 30, what="the watch to ask for its queue again")
    procs.start("actors.apiserver")
    wait_until(lambda: admin.create(pod("after")), 30, 0.5, what="writes to go through again")
    seen = drain(watch, lambda s: any(d.object["metadata"]["name"] == "after" for d in s), timeout=30)
    assert any(d.type == "ADDED" for d in seen)
    client.close()
    admin.close()

"""Slow: kill -9 the store and the apiservers again and again under writes; nothing answered is lost."""
from __future__ import annotations

import pytest

from runtime.client import Client
from tests.conftest import wait_serving
from testkit.waiting import wait_until
from tests.integration.test_store_crash import _answered, _check_nothing_lost, _start_writers

pytestmark = pytest.mark.slow


def test_repeated_kills_lose_nothing(procs, settings):
    store, api = procs.start("store"), procs.start("actors.apiserver")
    procs.start("actors.apiserver")
    client = Client(settings, name="chaos")
    wait_serving(client)
    watch = client.watch("Pod", "default").wait_synced()
    writers = _start_writers(client, 8, 150)
    for round_ in range(1, 4):
        wait_until(lambda: len(_answered(writers)) >= round_ * 250, 120, what=f"writes before kill {round_}")
        procs.kill9(store if round_ % 2 else api)
        if round_ % 2:
            store = procs.start("store")
        else:
            api = procs.start("actors.apiserver")
    for w in writers:
        w.join(300)
    _check_nothing_lost(client, writers, watch)
    client.close()

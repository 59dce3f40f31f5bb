"""Slow: the broker restarts under writes (wire v2: requests and commands are transient). Every
answered write is stored once, and watchers see every stored pod."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from runtime.client import Client
from tests.conftest import wait_serving
from testkit.waiting import wait_until
from tests.integration.test_store_crash import _answered, _check_nothing_lost, _start_writers

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("rabbitmqctl") is None, reason="needs the local broker's rabbitmqctl")]


def _restart_broker() -> None:
    subprocess.run(["rabbitmqctl", "stop_app"], check=True, capture_output=True, timeout=120)
    subprocess.run(["rabbitmqctl", "start_app"], check=True, capture_output=True, timeout=120)


def test_a_broker_restart_loses_no_answered_write(procs, settings):
    procs.start("store")
    procs.start("store")
    procs.start("actors.apiserver")
    procs.start("actors.apiserver")
    client = Client(settings, name="restart")
    wait_serving(client)
    watch = client.watch("Pod", "default").wait_synced()
    writers = _start_writers(client, 8, 120)
    wait_until(lambda: len(_answered(writers)) >= 200, 120, what="writes before the restart")
    _restart_broker()
    for w in writers:
        w.join(300)
    assert len(_answered(writers)) > 200  # writes went on after the restart
    _check_nothing_lost(client, writers, watch)
    client.close()

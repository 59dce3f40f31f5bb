"""A singleton's lock: a retry left from a lost connection does not try again on the next one, and a
second grant on one connection does not make the actor active twice (logic only; the broker's side
is in the integration tests of standbys)."""
from __future__ import annotations

import pytest

from bus import side
from config.settings import Settings
from runtime.actor import Actor


class Bus:
    def __init__(self):
        self.generation, self.channel, self.timers = 1, object(), []

    def call_later(self, _delay, fn):
        self.timers.append(fn)


class Lonely(Actor):
    name = "lonely"
    singleton = True

    def __init__(self, settings):
        super().__init__(settings)
        self.bus = Bus()
        self.activations = 0

    def on_active(self) -> None:
        self.activations += 1

    def _start(self, replay: bool) -> None:
        pass


@pytest.fixture
def attempts(monkeypatch):
    made = []
    monkeypatch.setattr(side, "try_exclusive", lambda _bus, _queue, on_result: made.append(on_result))
    return made


def test_a_retry_of_a_lost_connection_does_not_run_on_the_next(attempts, tmp_path):
    actor = Lonely(Settings(cluster="t", data_dir=tmp_path))
    actor._try_lock()
    attempts.pop()(False)  # refused: a retry is due on this connection
    actor.bus.generation += 1  # the connection went and came back
    actor._try_lock()
    for retry in actor.bus.timers:
        retry()
    assert len(attempts) == 1
    attempts.pop()(True)
    assert actor.activations == 1


def test_a_second_grant_on_one_connection_changes_nothing(attempts, tmp_path):
    actor = Lonely(Settings(cluster="t", data_dir=tmp_path))
    actor._try_lock()
    actor._try_lock()
    for granted in attempts:
        granted(True)
    assert actor.activations == 1

"""One way to start an actor: forked from the warm parent, each child is the process `python -m`
would have made — its own session, environment, arguments, directory and output, fresh random
state and message ids, no thread of the parent's — and its exit status reaches its starter."""
from __future__ import annotations

import json
import os
import signal
import subprocess

import pytest

from runtime import spawn
from testkit.waiting import wait_until

PROBE = "tests.unit.runtime.probe"


def probe(tmp_path, name: str, code: str, **env: str):
    out = tmp_path / f"{name}.json"
    log = open(tmp_path / f"{name}.log", "w")
    proc = spawn.start(PROBE, str(out), code, env={**os.environ, **env}, cwd=tmp_path, stdout=log,
                       stderr=subprocess.STDOUT)
    return proc, out


def test_a_child_is_its_own_process_with_what_it_was_given(tmp_path):
    proc, out = probe(tmp_path, "one", "0", PROBE="mine")
    assert proc.wait(30) == 0
    found = json.loads(out.read_text())
    assert (found["argv"], found["cwd"], found["env"]) == ([str(out), "0"], str(tmp_path), "mine")
    assert found["sid"] == found["pid"] == proc.pid  # its own session: killable by group
    assert found["threads"] == 1
    assert found["comm"] == "probe"  # `top` names the actor, not the interpreter every actor shares
    assert (found["sigint"], found["sigterm"]) == ("default_int_handler", int(signal.SIG_DFL))
    assert (tmp_path / "one.log").read_text().splitlines() == ["to stdout", "to stderr"]


def test_two_children_do_not_share_random_state_or_message_ids(tmp_path):
    first, first_out = probe(tmp_path, "a", "0")
    second, second_out = probe(tmp_path, "b", "0")
    assert (first.wait(30), second.wait(30)) == (0, 0)
    a, b = json.loads(first_out.read_text()), json.loads(second_out.read_text())
    assert a["id"] != b["id"]  # two apiservers of one broker user would be deduped as one sender
    assert a["random"] != b["random"]


@pytest.mark.parametrize("code, sig, expected", [
    pytest.param("3", None, 3, id="exit-code"),
    pytest.param("sleep", signal.SIGKILL, -signal.SIGKILL, id="killed-by-group"),
    pytest.param("sleep", signal.SIGTERM, -signal.SIGTERM, id="terminated"),
])
def test_the_exit_status_reaches_the_starter(tmp_path, code, sig, expected):
    proc, out = probe(tmp_path, "x", code)
    if sig is not None:
        wait_until(out.exists, 30, what="the probe to start")
        assert proc.poll() is None
        os.killpg(proc.pid, sig)
    assert proc.wait(30) == expected
    assert proc.poll() == proc.returncode == expected


@pytest.mark.parametrize("code, expected, tail", [
    pytest.param("raise", 1, "RuntimeError: the probe's own error", id="uncaught"),
    pytest.param("said", 1, "the probe says why", id="sys-exit-message"),
    pytest.param("ends", 0, "atexit ran", id="returns"),
])
def test_a_child_ends_as_python_would(tmp_path, code, expected, tail):
    """The fork server ends a child without the interpreter's teardown (60-100 ms of CPU an actor), but
    as `python -m` would: the exit code, the traceback, non-daemon threads joined, atexit run, output
    flushed."""
    proc, _ = probe(tmp_path, code, code)
    assert proc.wait(30) == expected
    lines = (tmp_path / f"{code}.log").read_text().splitlines()
    assert lines[-1] == tail, lines
    if code == "ends":
        assert lines[-2:] == ["thread finished", "atexit ran"]


def test_wait_times_out_like_popen(tmp_path):
    proc, out = probe(tmp_path, "slow", "sleep")
    with pytest.raises(subprocess.TimeoutExpired):
        proc.wait(0.1)
    proc.kill()
    assert proc.wait(30) == -signal.SIGKILL


def test_a_cold_start_is_the_same_call(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBUS_COLD_START", "1")
    proc, out = probe(tmp_path, "cold", "4", PROBE="cold")
    assert isinstance(proc, subprocess.Popen)
    assert proc.wait(30) == 4
    assert json.loads(out.read_text())["env"] == "cold"

"""The process runtime on its own: exit codes through the shim, from a relative data directory."""
import time
from pathlib import Path

import pytest

from actors.kubelet.runtimes.base import StartError
from actors.kubelet.runtimes.process import ProcessRuntime

POD = {"metadata": {"uid": "pod-uid", "name": "p"}, "spec": {}}


def _wait_exit(runtime, cid, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = runtime.poll(cid)
        if result is not None:
            return result
        time.sleep(0.02)
    raise AssertionError("the container did not exit")


@pytest.mark.parametrize("script,code", [("echo out; exit 0", 0), ("exit 3", 3),
                                         ("kill -TERM $$$$", 143)])  # $$ is the kubelet's escape of $
def test_exit_codes_reach_the_kubelet(tmp_path, monkeypatch, script, code):
    monkeypatch.chdir(tmp_path)
    runtime = ProcessRuntime(Path("relative/data"))
    cid = runtime.start(POD, {"name": "c", "command": ["sh", "-c", script]}, 0, {"PATH": "/usr/bin:/bin"})
    assert _wait_exit(runtime, cid).code == code
    assert runtime.log_path("pod-uid", "c", 0)


def test_a_container_without_command_says_why(tmp_path):
    with pytest.raises(StartError) as err:
        ProcessRuntime(tmp_path).start(POD, {"name": "c", "image": "nginx:1.25"}, 0, {})
    assert err.value.reason == "RunContainerError" and "command" in err.value.message


def test_a_container_that_mounts_volumes_is_refused_with_the_reason(tmp_path):
    container = {"name": "c", "command": ["true"], "volumeMounts": [{"name": "cfg", "mountPath": "/cfg"}]}
    with pytest.raises(StartError) as err:
        ProcessRuntime(tmp_path).start(POD, container, 0, {})
    assert err.value.reason == "CreateContainerConfigError"
    assert "cannot mount volumes" in err.value.message and "'cfg'" in err.value.message and "cri" in err.value.message


def test_command_and_args_expand_var_references_from_the_containers_env(tmp_path):
    """$(VAR) in command/args as Kubernetes expands them; $$ escapes, an unknown reference stays."""
    runtime = ProcessRuntime(tmp_path)
    container = {"name": "c", "command": ["sh", "-c", "echo $(GREETING) $1 $2"],
                 "args": ["--", "$(WHO)", "$$(WHO) $(NOPE)"]}
    cid = runtime.start(POD, container, 0, {"PATH": "/usr/bin:/bin", "GREETING": "hello", "WHO": "world"})
    assert _wait_exit(runtime, cid).code == 0
    log = Path(runtime.log_path("pod-uid", "c", 0)).read_bytes()
    assert b"hello world $(WHO) $(NOPE)" in log, log

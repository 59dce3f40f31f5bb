"""The `process` runtime: each container is a host process under a shim, in its own process group,
its output in a log file per instance; state on disk so a restarted kubelet can adopt it."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Callable

from actors.kubelet.cri.expand import expand_all
from actors.kubelet.logfiles import Limits
from actors.kubelet.pids import live_stat
from actors.kubelet.runtimes.base import Exited, StartError
from api.config import SERVICE_ACCOUNT_MOUNT_PATH

KILLED_CODE = 137
CODE_ROOT = Path(__file__).resolve().parents[3]  # the shim runs from the kubelet's own code
DEFAULT_LOG_LIMITS = Limits(10 << 20, 5)  # Kubernetes' containerLogMaxSize 10Mi, containerLogMaxFiles 5


def _start_ticks(pid: int) -> str | None:
    """The process's start time in clock ticks: tells a live process from a reused pid."""
    fields = live_stat(pid)
    return fields[19] if fields else None


class ProcessRuntime:
    name = "process"
    version = "process://kubus"
    loopback_pods = True  # pods share the host's network, each on its own 127.x address (actors/kubelet/podips)
    probes_run = True

    def __init__(self, root: Path, log_limits: Limits = DEFAULT_LOG_LIMITS):
        self.root = root.resolve()  # containers run elsewhere: their shim needs absolute paths
        self.log_limits = log_limits
        self.root.mkdir(parents=True, exist_ok=True)
        self._children: dict[str, subprocess.Popen] = {}
        self.netns_of: Callable[[str], str | None] = lambda pod_uid: None  # a pod's network namespace, if any

    def _dir(self, pod_uid: str) -> Path:
        return self.root / pod_uid

    def _files(self, container_id: str) -> tuple[Path, Path, Path]:
        uid, instance = container_id.split("/", 1)  # instance: "<container>.<n>"
        folder = self._dir(uid)
        return folder / f"{instance}.pid", folder / f"{instance}.exit", folder / f"{instance}.log"

    def start(self, pod: dict, container: dict, instance: int, env: dict[str, str], mounts: list[dict] = (),
              pull_secrets: list[dict] = ()) -> str:
        mounts_asked = [m for m in container.get("volumeMounts") or []
                        if m.get("mountPath") != SERVICE_ACCOUNT_MOUNT_PATH]
        if mounts_asked:  # (the account's credentials reach a host process as env: KUBUS_AMQP_URL)
            names = ", ".join(repr(m.get("name")) for m in mounts_asked)
            raise StartError("CreateContainerConfigError", f"the process runtime runs a container as a host process "
                                                           f"and cannot mount volumes into it (container "
                                                           f"{container['name']!r} mounts {names}): run the pod on "
                                                           f"a node whose runtime is cri")
        # $(VAR) in command and args, against the container's environment, as the kubelet expands them
        command = expand_all(container.get("command"), env) + expand_all(container.get("args"), env)
        if not container.get("command"):
            raise StartError("RunContainerError", f"the process runtime runs a container's command, and container "
                                                  f"{container['name']!r} has none (the image "
                                                  f"{container.get('image')!r} is not pulled here): set `command`")
        self._dir(pod["metadata"]["uid"]).mkdir(parents=True, exist_ok=True)
        workdir = self.workdir(pod["metadata"]["uid"], container)
        if not Path(workdir).is_dir():
            raise StartError("RunContainerError", f"workingDir {workdir!r} does not exist on the node")
        cid = f"{pod['metadata']['uid']}/{container['name']}.{instance}"
        pid_file, exit_file, log_file = self._files(cid)
        log_file.touch()  # there from the start: `logs` of a silent container is empty, not missing
        netns = self.netns_of(pod["metadata"]["uid"])
        inside = ["ip", "netns", "exec", netns] if netns else []  # it binds /etc/netns/<ns>/* over /etc
        proc = subprocess.Popen([sys.executable, "-E", "-m", "actors.kubelet.shim", str(exit_file),
                                 *self._log_args(log_file), "--cwd", os.path.abspath(workdir), "--", *inside, *command],
                                cwd=CODE_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        pid_file.write_text(f"{proc.pid} {_start_ticks(proc.pid) or ''}")
        self._children[cid] = proc
        return cid

    def _log_args(self, log_file: Path) -> list[str]:
        limits = self.log_limits
        return ["--log", str(log_file), "--log-max-bytes", str(limits.max_bytes), "--log-max-files",
                str(limits.max_files)]

    def workdir(self, pod_uid: str, container: dict) -> str:
        return container.get("workingDir") or str(self._dir(pod_uid))

    def _pid(self, container_id: str) -> tuple[int, str] | None:
        pid_file = self._files(container_id)[0]
        try:
            pid, ticks = pid_file.read_text().split(" ", 1)
            return int(pid), ticks
        except (OSError, ValueError):
            return None

    def _alive(self, container_id: str) -> bool:
        child = self._children.get(container_id)
        if child is not None:
            return child.poll() is None
        known = self._pid(container_id)
        return known is not None and _start_ticks(known[0]) == known[1]

    def poll(self, container_id: str) -> Exited | None:
        if self._alive(container_id):
            return None
        self._children.pop(container_id, None)
        try:
            code, _, message = self._files(container_id)[1].read_text().partition("\n")
            return Exited(int(code), message)
        except (OSError, ValueError):
            return Exited(KILLED_CODE, "the container's shim was killed")

    def starting(self, container_id: str) -> bool:
        return False

    def next_change(self, container_ids: list[str], after: float) -> float | None:
        return None  # a process exits when it does

    def stop(self, container_id: str, signal_name: str) -> None:
        known = self._pid(container_id)
        if known is None or not self._alive(container_id):
            return
        try:
            if signal_name == "KILL":
                os.killpg(known[0], signal.SIGKILL)
            else:
                os.kill(known[0], signal.SIGTERM)  # the shim forwards it to the container
        except ProcessLookupError:
            pass

    def adopt(self, pod_uid: str) -> dict[str, tuple[str, int]]:
        latest: dict[str, tuple[str, int]] = {}
        for pid_file in self._dir(pod_uid).glob("*.pid"):
            name, _, instance = pid_file.stem.rpartition(".")
            if int(instance) >= latest.get(name, ("", -1))[1]:
                latest[name] = (f"{pod_uid}/{pid_file.stem}", int(instance))
        return latest

    def forget(self, pod_uid: str) -> None:
        for pid_file in self._dir(pod_uid).glob("*.pid"):
            self.stop(f"{pod_uid}/{pid_file.stem}", "KILL")
        shutil.rmtree(self._dir(pod_uid), ignore_errors=True)

    def close(self) -> None:
        pass  # nothing in flight: its processes outlive the kubelet

    def known_pods(self) -> list[str]:
        return [p.name for p in self.root.iterdir() if p.is_dir()]

    def log_path(self, pod_uid: str, container: str, instance: int) -> str | None:
        path = self._dir(pod_uid) / f"{container}.{instance}.log"
        return str(path) if path.exists() else None

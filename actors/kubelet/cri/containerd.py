"""The containerd a node's kubelet starts for itself (when no `KUBUS_CRI_ENDPOINT` names one): its
own root, state, socket and configuration — rendered here: the cgroupfs driver, Debian's CNI plugins,
the local registry as the mirror of every registry (with the registry itself after it, when
KUBUS_REGISTRY_FALLBACK), the local pause image — started in its own
session so that it, like the containers under its shims, outlives a kubelet restart.

kubus's nodes on one machine stand for separate hosts, so each has its own containerd, as each
Kubernetes node has: its own CNI configuration over its own podCIDR, its own images and state.
Facts: k8s-containers.md §2 (the configuration, and §8's traps: restrict_oom_score_adj, cgroupfs)."""
from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import structlog

from actors.kubelet.cri import privsysfs
from actors.kubelet.cri.client import CRIError, RuntimeClient
from actors.kubelet.pids import running

log = structlog.get_logger("kubelet")
BINARY = "containerd"
CNI_BIN = "/usr/lib/cni"  # Debian's plugins (upstream's /opt/cni/bin is not there)
RUN_ROOT = Path("/run/kubus")  # sockets and state: short paths (a unix socket's is at most 107 bytes), tmpfs
START_TIMEOUT_S = 15.0


def available() -> str | None:
    """Why this host cannot run containerd, or None."""
    if os.geteuid() != 0:
        return "containerd needs root"
    missing = [b for b in (BINARY, "runc", "containerd-shim-runc-v2") if not _which(b)]
    if missing:
        return f"not installed: {', '.join(missing)} (apt-get install containerd runc)"
    if not Path(CNI_BIN, "bridge").exists():
        return f"no CNI plugins in {CNI_BIN} (apt-get install containernetworking-plugins)"
    return None


def _which(name: str) -> bool:
    return any(Path(d, name).exists() for d in os.environ.get("PATH", "/usr/bin:/usr/sbin").split(":") +
               ["/usr/bin", "/usr/sbin"])


@dataclass(frozen=True)
class Layout:
    """Where one node's containerd keeps what: `home` on disk (images, snapshots, logs, CNI's
    configuration and address leases), `run` on tmpfs (state, socket, runc's state)."""
    home: Path

    @property
    def run(self) -> Path:
        return RUN_ROOT / hashlib.sha1(str(self.home.resolve()).encode()).hexdigest()[:12]

    @property
    def socket(self) -> Path:
        return self.run / "containerd.sock"

    @property
    def cni_conf(self) -> Path:
        return self.home / "net.d"

    @property
    def cni_data(self) -> Path:
        return self.home / "cni"

    @property
    def logs(self) -> Path:
        return self.home / "pods"

    @property
    def config(self) -> Path:
        return self.home / "config.toml"

    @property
    def runc(self) -> Path:
        """The runc containerd calls: a wrapper (privsysfs.py) over the OS's."""
        return self.home / "runc"


def render(layout: Layout, sandbox_image: str, registry: str) -> str:
    """containerd's configuration (k8s-containers.md §2.4, the form observed to work here)."""
    return f"""version = 2
root = "{layout.home / 'root'}"
state = "{layout.run / 'state'}"
[grpc]
  address = "{layout.socket}"
[ttrpc]
  address = "{layout.socket}.ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "{sandbox_image}"
  netns_mounts_under_state_dir = true
  restrict_oom_score_adj = true
  disable_apparmor = true
  tolerate_missing_hugetlb_controller = true
  max_container_log_line_size = 16384
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    pod_annotations = ["{privsysfs.ANNOTATION}"]
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      SystemdCgroup = false
      BinaryName = "{layout.runc}"
      Root = "{layout.run / 'runc'}"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "{CNI_BIN}"
    conf_dir = "{layout.cni_conf}"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "{layout.home / 'certs.d'}"
"""


UPSTREAM = {"docker.io": "https://registry-1.docker.io"}  # containerd's own name for Docker Hub's endpoint


def mirror(registry: str, upstream: str | None = None) -> str:
    """hosts.toml sending a registry's pulls to the local one first, so `busybox:1.35` resolves to what
    it holds. `upstream` None: nowhere else (this machine's traffic stays on it); else the registry's
    own endpoint after it (`server`; "" leaves it out, and containerd takes https://<the image's host>),
    so an image the local registry lacks (404) is pulled from where it lives."""
    server = f'server = "{registry}"\n\n' if upstream is None else f'server = "{upstream}"\n\n' if upstream else ""
    return f'{server}[host."{registry}"]\n  capabilities = ["pull", "resolve"]\n  skip_verify = true\n'


def mirrors(registry: str, fallback: bool) -> dict[str, str]:
    """certs.d's folders (`_default`: every registry without its own) and their hosts.toml."""
    return {name: mirror(registry, UPSTREAM.get(name, "") if fallback else None) for name in ("_default", "docker.io")}


def direct(registry: str) -> tuple[str, str]:
    """A registry pulled from as it is: its folder under certs.d (its host:port) and its hosts.toml."""
    host = registry.split("://", 1)[-1].rstrip("/")
    return host, f'server = "{registry.rstrip("/")}"\n\n[host."{registry.rstrip("/")}"]\n' \
                 f'  capabilities = ["pull", "resolve"]\n  skip_verify = true\n'


class Containerd:
    def __init__(self, home: Path, sandbox_image: str, registry: str, direct_registries: tuple[str, ...] = (),
                 fallback: bool = False):
        self.layout = Layout(home.resolve())
        self.sandbox_image, self.registry, self.direct_registries = sandbox_image, registry, direct_registries
        self.fallback = fallback
        self.process: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        return str(self.layout.socket)

    def answering(self) -> bool:
        if not self.layout.socket.exists():
            return False
        client = RuntimeClient(self.endpoint, timeout=2.0)
        try:
            client.version()
            return True
        except CRIError:
            return False
        finally:
            client.close()

    def ensure(self) -> None:
        """Running and answering: the one already there (started before a kubelet restart), or a new one."""
        if self.answering():
            return
        self._write_config()
        self.stop_leftover()
        out = open(self.layout.home / "containerd.log", "ab")
        self.process = subprocess.Popen([BINARY, "--config", str(self.layout.config)], stdin=subprocess.DEVNULL,
                                        stdout=out, stderr=out, start_new_session=True)
        out.close()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.answering():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"containerd did not start: see {self.layout.home / 'containerd.log'}")
            time.sleep(0.05)  # the socket appears within ~1 s (k8s-containers.md §2.4)
        log.info("kubelet.containerd_started", pid=self.process.pid, socket=self.endpoint)

    def _write_config(self) -> None:
        for folder in (self.layout.home, self.layout.run, self.layout.cni_conf, self.layout.logs):
            folder.mkdir(parents=True, exist_ok=True)
        self.layout.config.write_text(render(self.layout, self.sandbox_image, self.registry))
        self.layout.runc.write_text(privsysfs.wrapper(shutil.which("runc") or "runc"))
        self.layout.runc.chmod(0o755)
        hosts = mirrors(self.registry, self.fallback)
        hosts.update(direct(url) for url in self.direct_registries)
        for host, text in hosts.items():
            folder = self.layout.home / "certs.d" / host
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "hosts.toml").write_text(text)

    def pid(self) -> int | None:
        """The containerd running with this home's configuration (found by its command line: the
        folder may be gone, the process not)."""
        wanted = f"{BINARY}\0--config\0{self.layout.config}\0".encode()
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and (entry / "cmdline").read_bytes() == wanted:
                    return int(entry.name)
            except OSError:
                continue
        return None

    def stop_leftover(self) -> None:
        """A containerd of this home that no longer answers (hung): it goes before a new one starts."""
        pid = self.pid()
        if pid is not None:
            os.kill(pid, signal.SIGKILL)

    def stop(self, timeout: float = 10.0, sig: int = signal.SIGTERM) -> None:
        """containerd only: the containers under their shims go on (and a new containerd finds them)."""
        pid = self.pid()
        if pid is None:
            return
        os.kill(pid, sig)
        deadline = time.monotonic() + timeout
        while running(pid) and time.monotonic() < deadline:  # a zombie is stopped (actors/kubelet/pids)
            if self.process is not None and self.process.poll() is not None:
                break
            time.sleep(0.05)


def main(argv: list[str]) -> int:
    """`--why-not`: exit 1 saying why containerd cannot run here (`make demo`)."""
    if argv[:1] == ["--why-not"]:
        why = available()
        print(why or "containerd can run here")
        return 1 if why else 0
    print("usage: python -m actors.kubelet.cri.containerd --why-not")
    return 2


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))

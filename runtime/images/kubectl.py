"""kubus/kubectl: the busybox layer and the host's kubectl binary (a static Go program) at
/usr/local/bin/kubectl, tagged by its `version --client`; its layer is left uncompressed (60 MB of
gzip is seconds every session). In a pod it finds the API by the in-cluster config."""
from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from pathlib import Path

from runtime.images import oci
from runtime.images.recipes import MissingPackage, Recipe, busybox_layer, package_version


def kubectl_binary() -> Path:
    """The host's kubectl. gcloud's is a dispatcher (`-dispatcher` in its version) running the kubectl.1.NN
    beside it that matches the server — in a pod there is nothing beside it, so the newest of those."""
    found = shutil.which("kubectl")
    if not found:
        raise MissingPackage("there is no kubectl on PATH: the kubus/kubectl image is the host's")
    path = Path(os.path.realpath(found))
    versioned = sorted(path.parent.glob("kubectl.1.*"), key=lambda p: int(p.name.rpartition(".")[2] or 0))
    return versioned[-1] if versioned and kubectl_version(path).endswith("-dispatcher") else path


@functools.cache
def kubectl_version(path: Path) -> str:
    """`v1.33.1` → `1.33.1`, as `kubectl version --client` says."""
    out = subprocess.run([str(path), "version", "--client", "-o", "json"], capture_output=True, text=True)
    return json.loads(out.stdout or "{}").get("clientVersion", {}).get("gitVersion", "").removeprefix("v")


def image(binary: Path) -> oci.Image:
    version = kubectl_version(binary)
    layers = [busybox_layer(),
              oci.layer([oci.File("usr/local/bin/kubectl", binary.read_bytes(), 0o755)], compressed=False)]
    labels = (("org.opencontainers.image.source", "debian packages and the host's kubectl"),
              ("org.opencontainers.image.version", f"busybox-static={package_version('busybox-static')} "
                                                   f"kubectl={version}"),
              ("org.opencontainers.image.vendor", "kubus, built from the OS's packages"))
    return oci.image(layers, oci.Config(env=("PATH=/usr/local/bin:/bin",), cmd=("kubectl",), labels=labels))


def recipe() -> list[Recipe]:
    """kubus/kubectl:<its version>, where a kubectl is on PATH."""
    try:
        binary = kubectl_binary()
    except MissingPackage:
        return []
    version = kubectl_version(binary)
    return [Recipe("kubus/kubectl", (version,), functools.partial(image, binary))] if version else []

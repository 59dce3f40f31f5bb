"""A privileged pod's /sys read-write, as Kubernetes gives it, on containerd 1.6.

containerd's CRI mounts a privileged container's sysfs `rw` (oci.WithPrivileged), but always mounts its
sandbox's `ro`, privileged or not. sysfs has one superblock per network namespace, and the pause
process mounts it first: read-only, so every container of the pod then sees /sys read-only too
(containerd#11270; containerd 2.1 makes a privileged sandbox's sysfs `rw`, PR #11271). Here the same fix
sits in front of runc: the kubelet marks a privileged sandbox with ANNOTATION (passed through to the OCI
spec by the runtime's `pod_annotations`), and the runc containerd calls (the runtime's `BinaryName`) is a
wrapper that, when creating that sandbox, turns its sysfs mount `rw`. A container that is not privileged
still mounts /sys `ro`, on its own mount."""
from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

ANNOTATION = "kubus.io/privileged-sandbox"
CONTAINER_TYPE = "io.kubernetes.cri.container-type"  # containerd's annotation: "sandbox" or "container"
REPO = Path(__file__).resolve().parents[3]


def writeable_sysfs(spec: dict) -> bool:
    """A privileged sandbox's spec with its sysfs mounts `rw` (in place); whether it changed anything."""
    annotations = spec.get("annotations") or {}
    if annotations.get(CONTAINER_TYPE) != "sandbox" or annotations.get(ANNOTATION) != "true":
        return False
    changed = False
    for mount in spec.get("mounts") or []:
        if mount.get("type") == "sysfs" and "ro" in (mount.get("options") or []):
            mount["options"] = ["rw" if option == "ro" else option for option in mount["options"]]
            changed = True
    return changed


def wrapper(runc: str) -> str:
    """The runc containerd calls: runc itself, but a marked sandbox's config.json is fixed before `create`
    (a grep first, so every other call costs a shell and nothing more)."""
    fix = f"PYTHONPATH={shlex.quote(str(REPO))} {shlex.quote(sys.executable)} -m actors.kubelet.cri.privsysfs"
    return f"""#!/bin/sh
# Rendered by kubus (actors/kubelet/cri/privsysfs.py): runc, with a privileged sandbox's /sys read-write.
bundle=
previous=
for arg in "$@"; do
  [ "$previous" = --bundle ] && bundle=$arg
  previous=$arg
done
if [ -n "$bundle" ] && grep -q '"{ANNOTATION}":"true"' "$bundle/config.json" 2>/dev/null; then
  {fix} "$bundle/config.json" || exit 1
fi
exec {shlex.quote(runc)} "$@"
"""


def main(argv: list[str]) -> int:
    path = Path(argv[0])
    spec = json.loads(path.read_text())
    if writeable_sysfs(spec):
        path.write_text(json.dumps(spec, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

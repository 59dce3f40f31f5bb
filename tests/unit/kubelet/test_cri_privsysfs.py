"""A privileged sandbox's sysfs made read-write before runc creates it (privsysfs.py), and only that."""
from __future__ import annotations

import json
import subprocess

from actors.kubelet.cri import privsysfs

SYSFS = {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]}
PROC = {"destination": "/proc", "type": "proc", "source": "proc", "options": ["nosuid", "noexec", "nodev"]}


def spec(kind: str, marked: bool) -> dict:
    annotations = {privsysfs.CONTAINER_TYPE: kind, **({privsysfs.ANNOTATION: "true"} if marked else {})}
    return {"annotations": annotations, "mounts": [dict(PROC), dict(SYSFS, options=list(SYSFS["options"]))]}


def test_a_marked_sandbox_gets_a_writeable_sysfs():
    marked = spec("sandbox", True)
    assert privsysfs.writeable_sysfs(marked)
    assert marked["mounts"] == [PROC, dict(SYSFS, options=["nosuid", "noexec", "nodev", "rw"])]


def test_unmarked_sandboxes_and_containers_are_left_as_they_are():
    for kind, marked in (("sandbox", False), ("container", True), ("container", False)):
        untouched = spec(kind, marked)
        assert not privsysfs.writeable_sysfs(untouched)
        assert untouched["mounts"][1] == SYSFS, (kind, marked)


def test_the_wrapper_fixes_a_marked_bundle_before_runc_and_passes_every_argument(tmp_path):
    fake_runc = tmp_path / "fake-runc"
    fake_runc.write_text('#!/bin/sh\necho "$@"\n')
    fake_runc.chmod(0o755)
    wrapper = tmp_path / "runc"
    wrapper.write_text(privsysfs.wrapper(str(fake_runc)))
    wrapper.chmod(0o755)
    for name, marked in (("sandbox", True), ("plain", False)):
        bundle = tmp_path / name
        bundle.mkdir()
        (bundle / "config.json").write_text(json.dumps(spec("sandbox", marked), separators=(",", ":")))
        args = ["--root", "/run/x", "create", "--bundle", str(bundle), "--pid-file", "p", "id1"]
        ran = subprocess.run([str(wrapper), *args], capture_output=True, text=True, check=True)
        assert ran.stdout.split() == args
        options = json.loads((bundle / "config.json").read_text())["mounts"][1]["options"]
        assert options[-1] == ("rw" if marked else "ro"), name

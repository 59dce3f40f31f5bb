"""The committed CRI stubs are what `make proto` makes of cri.proto (nobody edits them by hand), and
the field numbers that matter on the wire are CRI v1's (k8s-containers.md §1.3)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from actors.kubelet.cri.api import cri_pb2

ROOT = Path(__file__).resolve().parents[3]
PROTO = "actors/kubelet/cri/api/cri.proto"


def test_the_stubs_are_generated_from_the_proto(tmp_path):
    (tmp_path / Path(PROTO).parent).mkdir(parents=True)
    (tmp_path / PROTO).write_bytes((ROOT / PROTO).read_bytes())
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I.", "--python_out=.", "--grpc_python_out=.",
                    "--pyi_out=.", PROTO], cwd=tmp_path, check=True)
    for name in ("cri_pb2.py", "cri_pb2_grpc.py", "cri_pb2.pyi"):
        made = (tmp_path / Path(PROTO).parent / name).read_text()
        assert made == (ROOT / Path(PROTO).parent / name).read_text(), f"{name} differs: run `make proto`"


@pytest.mark.parametrize("message, field, number", [
    ("ContainerConfig", "linux", 15), ("ContainerConfig", "log_path", 11), ("ContainerConfig", "envs", 6),
    ("LinuxContainerSecurityContext", "no_new_privs", 11), ("LinuxContainerSecurityContext", "run_as_group", 12),
    ("LinuxContainerSecurityContext", "seccomp", 15), ("LinuxSandboxSecurityContext", "run_as_group", 8),
    ("LinuxContainerResources", "memory_limit_in_bytes", 4), ("PodSandboxConfig", "linux", 8),
    ("PodSandboxStatus", "network", 5), ("ContainerStatus", "log_path", 15), ("ContainerStatus", "exit_code", 7),
    ("AttachRequest", "stdin", 2), ("ExecRequest", "stdin", 4), ("Image", "uid", 5), ("MemoryUsage", "working_set_bytes", 2),
])
def test_wire_numbers_are_cri_v1s(message, field, number):
    assert getattr(cri_pb2, message).DESCRIPTOR.fields_by_name[field].number == number

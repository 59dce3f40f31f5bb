"""The offline patch oracle: `kubectl patch --local`, which applies Go's json-patch, merge patch and
strategicpatch to a file and needs no server (k8s-rest-api.md §6.5)."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")


class OracleError(Exception):
    """kubectl refused the patch; the message is Go's."""


def kubectl_patch(tmp_path: Path, obj: dict, patch: Any, patch_type: str) -> dict:
    """What kubectl makes of `obj` patched with `patch`, or OracleError with its message."""
    path = tmp_path / "obj.json"
    path.write_text(json.dumps(obj))
    out = subprocess.run([KUBECTL, "patch", "--local", "-f", str(path), "--type", patch_type, "-o", "json",
                          "-p", json.dumps(patch)], capture_output=True, text=True, timeout=30,
                         env={"PATH": "/usr/bin:/bin", "KUBECONFIG": "/dev/null", "HOME": str(tmp_path)})
    if out.returncode != 0:
        raise OracleError(out.stderr.strip().removeprefix("error: "))
    return json.loads(out.stdout)

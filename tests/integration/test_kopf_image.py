"""kubus/kopf: built twice to the same digest, and in a root made of its layers Debian's python3 runs kopf
with Debian's aiohttp; the wheel is refused when its bytes are not the pinned ones."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile

import pytest

from runtime.images import gzipped, kopf, recipes
from runtime.images.recipes import MissingPackage

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("dpkg-query"), reason="needs root and dpkg")


@pytest.fixture(scope="module")
def built():
    try:
        return kopf.image()
    except MissingPackage as exc:
        pytest.skip(str(exc))


def test_the_image_runs_kopf_and_is_reproducible(built, tmp_path):
    recipes.afresh()  # every layer read and made again, the interpreter's too
    with gzipped.anew():  # and compressed again: the gzips kept on disk are not read
        assert kopf.image().manifest.digest == built.manifest.digest
    for layer in built.layers:
        with tarfile.open(fileobj=io.BytesIO(layer.blob.data), mode="r:gz") as tar:
            tar.extractall(tmp_path)
    ran = subprocess.run(["chroot", str(tmp_path), "/usr/bin/python3", "-m", "kopf", "--version"],
                         capture_output=True, text=True, timeout=60)
    assert ran.stdout.strip() == f"kopf, version {kopf.VERSION}", ran.stderr
    ran = subprocess.run(["chroot", str(tmp_path), "/usr/bin/python3", "-c", "import aiohttp; print(aiohttp.__file__)"],
                         capture_output=True, text=True, timeout=60)
    assert ran.stdout.strip().startswith("/usr/lib/python3/dist-packages/aiohttp/"), ran.stderr


def test_a_wheel_of_other_bytes_is_refused(tmp_path):
    (tmp_path / kopf.WHEEL).write_bytes(b"not the wheel")
    with pytest.raises(kopf.WheelUnavailable, match="is not the pinned"):
        kopf.wheel(tmp_path)
    assert not (tmp_path / kopf.WHEEL).exists()

"""A layer's gzip kept on disk under its diff_id: read back by the next build, compressed again within
`anew()`, none kept when KUBUS_LAYER_CACHE is empty, an entry unused for 30 days removed."""
from __future__ import annotations

import gzip
import os
import time

from runtime.images import gzipped, oci


def a_layer(text: str = "hello") -> oci.Layer:
    return oci.layer([oci.File("etc/greeting", text.encode())])


def kept(tmp_path, layer: oci.Layer):
    return tmp_path / f"{layer.diff_id.removeprefix('sha256:')}.gz"


def test_the_next_build_reads_the_gzip_kept_under_the_tars_digest(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBUS_LAYER_CACHE", str(tmp_path))
    first = a_layer()
    assert first.blob.data == kept(tmp_path, first).read_bytes() == gzipped.compress(first.tar)
    kept(tmp_path, first).write_bytes(b"what the disk holds")
    assert a_layer().blob.data == b"what the disk holds"  # read, not compressed again
    assert a_layer("other").blob.data != b"what the disk holds"  # another tar, another entry


def test_anew_compresses_again_and_reads_nothing_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBUS_LAYER_CACHE", str(tmp_path))
    kept(tmp_path, a_layer()).write_bytes(b"what the disk holds")
    with gzipped.anew():
        layer = a_layer()
        assert gzip.decompress(layer.blob.data) == layer.tar
    assert a_layer().blob.data == b"what the disk holds"  # after the block, read again


def test_an_empty_setting_keeps_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBUS_LAYER_CACHE", "")
    monkeypatch.chdir(tmp_path)
    layer = a_layer()
    assert gzip.decompress(layer.blob.data) == layer.tar
    assert not list(tmp_path.rglob("*.gz"))


def test_an_entry_unused_for_thirty_days_goes_when_one_is_written(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBUS_LAYER_CACHE", str(tmp_path))
    old, recent = tmp_path / "old.gz", tmp_path / "recent.gz"
    for path in (old, recent):
        path.write_bytes(b"x")
    month = time.time() - 31 * 24 * 3600
    os.utime(old, (month, month))
    a_layer().blob
    assert not old.exists() and recent.exists() and kept(tmp_path, a_layer()).exists()

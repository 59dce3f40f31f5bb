"""The atomic writer: the `..data` layout, modes, an update swapping the link, dropped names gone,
nothing written when nothing changed, paths refused as Kubernetes refuses them."""
from __future__ import annotations

import os

import pytest

from actors.kubelet.volumes import atomic


def layout(target) -> dict:
    return {e.name: os.readlink(e) if e.is_symlink() else "dir" for e in target.iterdir()
            if not e.name.startswith("..") or e.name == "..data"}


def test_first_write_links_each_name_through_data(tmp_path):
    assert atomic.write(tmp_path, {"a.conf": (b"1", 0o644), "dir/b": (b"2", 0o400)})
    assert layout(tmp_path) == {"a.conf": "..data/a.conf", "dir": "..data/dir", "..data": os.readlink(tmp_path / "..data")}
    assert (tmp_path / "a.conf").read_text() == "1" and (tmp_path / "dir/b").read_text() == "2"
    assert oct((tmp_path / "dir/b").stat().st_mode & 0o777) == oct(0o400)
    assert oct((tmp_path / "..data").stat().st_mode & 0o777) == oct(0o755)


def test_an_update_swaps_data_and_drops_what_went(tmp_path):
    atomic.write(tmp_path, {"a": (b"1", 0o644), "b": (b"2", 0o644)})
    before = os.readlink(tmp_path / "..data")
    assert atomic.write(tmp_path, {"a": (b"changed", 0o644)})
    after = os.readlink(tmp_path / "..data")
    assert after != before and not (tmp_path / before).exists()
    assert (tmp_path / "a").read_text() == "changed" and not os.path.lexists(tmp_path / "b")
    assert not os.path.lexists(tmp_path / "..data_tmp")


@pytest.mark.parametrize("second", [
    pytest.param({"a": (b"1", 0o644)}, id="same"),
])
def test_nothing_written_when_nothing_changed(tmp_path, second):
    atomic.write(tmp_path, {"a": (b"1", 0o644)})
    before = os.readlink(tmp_path / "..data")
    assert not atomic.write(tmp_path, second)
    assert os.readlink(tmp_path / "..data") == before


def test_a_mode_change_is_a_change(tmp_path):
    atomic.write(tmp_path, {"a": (b"1", 0o644)})
    assert atomic.write(tmp_path, {"a": (b"1", 0o600)})
    assert (tmp_path / "a").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("path", ["/etc/passwd", "../x", "a/../../x", "..hidden"])
def test_bad_paths_are_refused(tmp_path, path):
    with pytest.raises(ValueError):
        atomic.write(tmp_path, {path: (b"", 0o644)})


def test_an_empty_payload_is_an_empty_volume(tmp_path):
    assert atomic.write(tmp_path, {})
    assert layout(tmp_path) == {"..data": os.readlink(tmp_path / "..data")}

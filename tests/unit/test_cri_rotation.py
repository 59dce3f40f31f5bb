"""CRI log rotation's plan (pure) and its file work on a real folder: what goes, what is gzipped,
what the live file becomes, and the rename undone when the runtime cannot reopen."""
from __future__ import annotations

import gzip
from datetime import datetime, timezone

import pytest

from actors.kubelet.cri.rotation import Plan, plan, rotate
from actors.kubelet.logfiles import Limits

NOW = datetime(2026, 11, 27, 22, 30, 5, tzinfo=timezone.utc)
LIMITS = Limits(max_bytes=100, max_files=5)


@pytest.mark.parametrize("size, siblings, expected", [
    (99, ["0.log"], Plan()),
    (100, ["0.log"], Plan(rotate_to="0.log.20261127-223005")),
    (100, ["0.log", "0.log.20261127-220000"], Plan(compress=["0.log.20261127-220000"],
                                                   rotate_to="0.log.20261127-223005")),
    (100, ["0.log", "0.log.1.gz", "0.log.2.gz", "0.log.3.gz", "0.log.4"],
     Plan(remove=["0.log.1.gz"], compress=["0.log.4"], rotate_to="0.log.20261127-223005")),
    (100, ["0.log", "0.log.1", "0.log.1.gz", "0.log.2.gz.tmp", "1.log.1"],
     Plan(remove=["0.log.1", "0.log.2.gz.tmp"], rotate_to="0.log.20261127-223005")),
    (100, ["0.log", "0.log.20261127-223005"], Plan(compress=["0.log.20261127-223005"])),
])
def test_plan(size, siblings, expected):
    assert plan("0.log", siblings, size, LIMITS, NOW) == expected


def test_rotation_keeps_max_files_and_gzips_the_older(tmp_path):
    live, reopened = tmp_path / "0.log", []
    times = iter(datetime(2026, 11, 27, 22, 0, s, tzinfo=timezone.utc) for s in range(10))

    def reopen():
        reopened.append(1)
        live.write_bytes(b"")

    for round_ in range(8):
        live.write_bytes(f"round {round_}\n".encode() * 20)
        assert rotate(live, LIMITS, reopen, now=lambda: next(times))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["0.log", "0.log.20261127-220004.gz", "0.log.20261127-220005.gz",
                     "0.log.20261127-220006.gz", "0.log.20261127-220007"]
    assert gzip.decompress((tmp_path / names[1]).read_bytes()) == b"round 4\n" * 20
    assert len(reopened) == 8


def test_a_small_file_stays(tmp_path):
    (tmp_path / "0.log").write_bytes(b"x" * 99)
    assert rotate(tmp_path / "0.log", LIMITS, lambda: pytest.fail("reopened"), now=lambda: NOW) is None
    assert [p.name for p in tmp_path.iterdir()] == ["0.log"]


def test_the_rename_is_undone_when_reopen_fails(tmp_path):
    (tmp_path / "0.log").write_bytes(b"x" * 100)

    def reopen():
        raise RuntimeError("container not running")

    with pytest.raises(RuntimeError):
        rotate(tmp_path / "0.log", LIMITS, reopen, now=lambda: NOW)
    assert [p.name for p in tmp_path.iterdir()] == ["0.log"]

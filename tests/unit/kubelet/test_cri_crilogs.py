"""CRI log files read as the kubelet serves `kubectl logs` (k8s-containers.md §5)."""
from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

import pytest

from actors.kubelet.cri import crilogs
from actors.kubelet.cri.crilogs import LogFormatError

T0 = datetime(2026, 11, 27, 17, 28, 17, tzinfo=timezone.utc)


def stamp(seconds: float, digits: int = 9) -> str:
    at = T0 + timedelta(seconds=int(seconds))
    nanos = round((seconds - int(seconds)) * 1e9)
    fraction = f"{nanos:09d}"[:digits].rstrip("0")
    return at.strftime("%Y-%m-%dT%H:%M:%S") + (f".{fraction}" if fraction else "") + "Z"


def rec(seconds: float, text: str, stream: str = "stdout", tag: str = "F") -> bytes:
    return f"{stamp(seconds)} {stream} {tag} {text}\n".encode()


@pytest.mark.parametrize("line, expected", [
    pytest.param(b"2026-11-27T17:28:17.940756328Z stdout F hello\n",
                 ("2026-11-27T17:28:17.940756328Z", "stdout", False, b"hello\n"), id="full"),
    pytest.param(b"2026-11-27T17:28:17.9Z stderr P par\n", ("2026-11-27T17:28:17.9Z", "stderr", True, b"par"),
                 id="partial-loses-newline"),
    pytest.param(b"2026-11-27T17:28:17Z stdout F:x:y a b  c\n", ("2026-11-27T17:28:17Z", "stdout", False, b"a b  c\n"),
                 id="tags-and-spaces"),
    pytest.param(b"2026-11-27T17:28:17Z stdout F \n", ("2026-11-27T17:28:17Z", "stdout", False, b"\n"), id="empty"),
    pytest.param(b"2026-11-27T17:28:17Z stdout F cut", ("2026-11-27T17:28:17Z", "stdout", False, b"cut"),
                 id="no-newline"),
])
def test_parse(line, expected):
    assert crilogs.parse(line) == expected


@pytest.mark.parametrize("line, error", [
    pytest.param(b"nospace\n", "timestamp is not found", id="no-delimiter"),
    pytest.param(b"yesterday stdout F x\n", 'unexpected timestamp format "yesterday"', id="bad-time"),
    pytest.param(b"2026-11-27T17:28:17Z stdin F x\n", 'unexpected stream type "stdin"', id="bad-stream"),
    pytest.param(b"2026-11-27T17:28:17Z stdout F\n", "log tag is not found", id="no-tag"),
])
def test_parse_errors(line, error):
    with pytest.raises(LogFormatError, match=error):
        crilogs.parse(line)


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "0.log"
    path.write_bytes(b"".join([
        rec(0, "one"), rec(1, "two", "stderr"), rec(2, "thr", tag="P"), rec(2.5, "ee-P", tag="P"),
        rec(3, "e"), b"garbage line\n", rec(4.123, "four"), rec(5, "five", "stderr")]))
    return str(path)


@pytest.mark.parametrize("options, expected", [
    pytest.param({}, b"one\ntwo\nthree-Pe\nfour\nfive\n", id="all-joined"),
    pytest.param({"tail": 2}, b"four\nfive\n", id="tail-2"),
    pytest.param({"tail": 4}, b"e\nfour\nfive\n", id="tail-counts-records-and-skips-garbage"),
    pytest.param({"tail": 0}, b"", id="tail-0"),
    pytest.param({"tail": 100}, b"one\ntwo\nthree-Pe\nfour\nfive\n", id="tail-more-than-file"),
    pytest.param({"since": T0 + timedelta(seconds=3)}, b"e\nfour\nfive\n", id="since"),
    pytest.param({"since": (T0 + timedelta(seconds=4, microseconds=123000)).replace(tzinfo=None)},
                 b"four\nfive\n", id="since-naive-is-utc-and-inclusive"),
    pytest.param({"limit_bytes": 10}, b"one\ntwo\nth", id="limit-bytes"),
    pytest.param({"streams": ("stderr",)}, b"two\nfive\n", id="stderr-only"),
    pytest.param({"timestamps": True, "tail": 6},
                 b"2026-11-27T17:28:19.000000000Z thr"
                 b"ee-P"
                 b"e\n"
                 b"2026-11-27T17:28:21.123000000Z four\n"
                 b"2026-11-27T17:28:22.000000000Z five\n", id="timestamps-9-digits-once-a-line"),
])
def test_read(log, options, expected):
    assert crilogs.read(log, **options) == expected


def test_an_unfinished_last_record_is_read(tmp_path):
    path = tmp_path / "0.log"
    path.write_bytes(rec(0, "done") + rec(1, "half")[:-3])
    assert crilogs.read(str(path)) == b"done\nha"
    # tail: the unfinished record is not counted where tail starts, and the count is spent on "done"
    assert crilogs.read(str(path), tail=1) == b"done\n"


def test_time_zone_kept(tmp_path):
    path = tmp_path / "0.log"
    path.write_bytes(b"2026-11-27T18:28:17.5+01:00 stdout F x\n")
    assert crilogs.read(str(path), timestamps=True) == b"2026-11-27T18:28:17.500000000+01:00 x\n"
    assert crilogs.read(str(path), since=T0 + timedelta(seconds=1)) == b""


def _rchar() -> int:
    with open("/proc/self/io") as f:
        return int(next(line for line in f if line.startswith("rchar:")).split()[1])


def test_tail_of_a_big_file_reads_only_its_end(tmp_path):
    path = tmp_path / "0.log"
    line = rec(0, "x" * 200)
    with open(path, "wb") as f:
        for _ in range(50 * 2**20 // (len(line) * 1000) + 1):
            f.write(line * 1000)
        f.write(rec(9, "last-but-one") + rec(10, "last"))
    assert path.stat().st_size > 50 * 2**20
    before = _rchar()
    assert crilogs.read(str(path), tail=2) == b"last-but-one\nlast\n"
    assert _rchar() - before < 256 * 1024  # of 50 MB


class CountingFile:
    def __init__(self, f):
        self.f, self.read_bytes = f, 0

    def seek(self, *a):
        return self.f.seek(*a)

    def read(self, n):
        data = self.f.read(n)
        self.read_bytes += len(data)
        return data


@pytest.mark.parametrize("lines, start", [
    pytest.param(None, 0, id="none"), pytest.param(-1, 0, id="negative"),
    pytest.param(0, 30, id="zero-at-end"), pytest.param(1, 20, id="one"), pytest.param(3, 0, id="all"),
    pytest.param(9, 0, id="more"),
])
def test_tail_start(tmp_path, lines, start):
    path = tmp_path / "f"
    path.write_bytes(b"aaaaaaaaa\nbbbbbbbbb\nccccccccc\n")
    with open(path, "rb") as f:
        counting = CountingFile(f)
        assert crilogs.tail_start(counting, lines, block=4) == start


def test_read_from_steps(log):
    first = crilogs.read_from(log, tail=2)
    assert first.text == b"four\nfive\n"
    with open(log, "ab") as f:
        f.write(rec(6, "six") + rec(7, "sev")[:-4])  # the writer is mid-record
    second = crilogs.read_from(log, first.cursor)
    assert second.text == b"six\n"
    with open(log, "ab") as f:
        f.write(rec(7, "sev")[-4:])
    assert crilogs.read_from(log, second.cursor).text == b"sev\n"


def test_read_from_caps_a_step_at_record_boundaries(log):
    chunks, cursor = [], None
    while True:
        chunk = crilogs.read_from(log, cursor, max_bytes=6, timestamps=True)
        if not chunk.records:
            break
        chunks.append(chunk.text)
        cursor = chunk.cursor
    assert b"".join(chunks) == crilogs.read(log, timestamps=True)
    assert len(chunks) > 5


def test_read_from_finishes_a_rotated_file(tmp_path):
    path = tmp_path / "0.log"
    path.write_bytes(rec(0, "a"))
    first = crilogs.read_from(str(path))
    with open(path, "ab") as f:
        f.write(rec(1, "b"))
    os.rename(path, tmp_path / "0.log.20261127-172818")  # the kubelet's rotation
    path.write_bytes(rec(2, "c"))
    second = crilogs.read_from(str(path), first.cursor)
    assert second.text == b"b\n"
    third = crilogs.read_from(str(path), second.cursor)
    assert third.text == b"c\n"
    assert crilogs.read_from(str(path), third.cursor).text == b""


def test_follow_across_growth_and_rotation(tmp_path):
    path = tmp_path / "0.log"
    path.write_bytes(rec(0, "start"))
    steps = iter([
        lambda: path.open("ab").write(rec(1, "grew")),
        lambda: (os.rename(path, tmp_path / "0.log.20261127-172819"), path.write_bytes(rec(2, "rotated"))),
        lambda: stopped.append(True),
    ])
    stopped = []
    out = list(crilogs.follow(str(path), running=lambda: not stopped, wait=lambda: next(steps)()))
    assert b"".join(out) == b"start\ngrew\nrotated\n"


@pytest.mark.parametrize("options, text", [
    pytest.param({}, "one\ntwo\nthree-Pe\nfour\nfive\n", id="all"),
    pytest.param({"tail": 1, "timestamps": True}, "2026-11-27T17:28:22.000000000Z five\n", id="tail-timestamps"),
    pytest.param({"sinceSeconds": 2}, "four\nfive\n", id="since-seconds"),  # now = T0 + 6 s
    pytest.param({"sinceTime": "2026-11-27T17:28:21Z"}, "four\nfive\n", id="since-time"),
    pytest.param({"limitBytes": 5}, "one\nt", id="limit-bytes"),
])
def test_serve(log, options, text):
    got = crilogs.serve(log, options, now=lambda: T0 + timedelta(seconds=6))
    assert got["ok"] and got["text"] == text
    rest = crilogs.serve(log, {"offset": got["offset"]})["text"]
    assert rest == ("" if "limitBytes" not in options else "three-Pe\nfour\nfive\n")  # a cut record is done

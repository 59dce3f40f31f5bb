"""The benches' CPU meter over real processes: this one, and a group of two."""
from __future__ import annotations

import os
import subprocess
import sys

from bench.harness import CpuMeter
from bench.scale import cpu_used


def _spin() -> None:
    n = 0
    while n < 3_000_000:
        n += 1


def test_the_meter_counts_what_a_process_and_a_group_used_since_start():
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        meter = CpuMeter({"me": os.getpid(), "group": [os.getpid(), child.pid], "absent": None})
        _spin()
        used = meter.used()
        assert set(used) == {"me", "group"}
        assert used["me"] > 0 and used["group"] >= used["me"]
        assert cpu_used(meter).startswith("me=")  # bench.scale's report reads a group of pids too
    finally:
        child.communicate(b"")

"""Logs that cannot fill a disk or a kubelet's memory: a pod that writes without pause has its log
rotated and pruned to containerLogMaxSize × containerLogMaxFiles, `logs --tail` reads it from the
end, and `logs -f` and `logs --previous` go on working across a rotation."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import control_plane
from testkit.waiting import wait_until
from tests.integration.test_kubelet import phase, shell_pod

MAX_SIZE, MAX_FILES = 1 << 20, 3
SMALL = 16 << 10  # a log file's size where rotations should come often
PAD = "x" * 100
FLOOD = f'i=0; while :; do i=$((i+1)); echo "$i {PAD}"; done'  # ~105 bytes a line, no pause
FLOODED = 400_000  # lines written before the attack is judged: ~40 MiB, fourteen times what may stay
MEMORY_SLACK = 16 << 20  # a kubelet that read the log whole grows by twice the log


@pytest.fixture
def node(procs, settings, request):
    """A control plane and node-1, its kubelet keeping 3 log files per container, of 1 MiB (or of the
    size the test is parametrized with)."""
    max_size = getattr(request, "param", MAX_SIZE)
    client = control_plane(procs, settings)
    procs.start("actors.scheduler")
    procs.kubelet = procs.start("actors.kubelet", "--node", "node-1", label="kubelet",
                                KUBUS_CONTAINER_LOG_MAX_SIZE=str(max_size),
                                KUBUS_CONTAINER_LOG_MAX_FILES=str(MAX_FILES))
    wait_until(lambda: client.get("Node", "node-1"), 30, what="the node to register")
    yield client
    client.close()


def peak_rss(pid: int) -> int:
    """The process's high-water mark of resident memory, in bytes."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M).group(1)) << 10


def counters(text: str) -> list[int]:
    """The numbers the writer put first on each complete line (the last may still be half written)."""
    return [int(line.split(" ", 1)[0]) for line in text.split("\n")[:-1]]


def log_files(settings, client, pod: str, instance: int = 0) -> list[Path]:
    uid = client.get("Pod", pod)["metadata"]["uid"]
    return list((Path(settings.data_dir) / "kubelet" / "node-1" / uid).glob(f"main.{instance}.log*"))


def last_counter(client, pod: str) -> int:
    found = counters(client.logs(pod, tail=1)["text"])
    return found[-1] if found else 0


def test_a_pod_writing_without_pause_fills_neither_the_disk_nor_the_kubelets_memory(node, procs, settings):
    before = peak_rss(procs.kubelet.pid)
    node.create(shell_pod("flood", FLOOD))
    wait_until(lambda: last_counter(node, "flood") >= FLOODED, 120, 0.5, what=f"{FLOODED} lines written")

    text = node.logs("flood", tail=10)["text"]
    tail = counters(text)
    assert len(text.splitlines()) == 10 and len(tail) >= 9 and tail[0] > FLOODED - 10
    assert tail == list(range(tail[0], tail[0] + len(tail)))
    grown = peak_rss(procs.kubelet.pid) - before
    assert grown < MEMORY_SLACK, f"the kubelet grew by {grown >> 20} MiB answering logs"
    on_disk = sum(f.stat().st_size for f in log_files(settings, node, "flood"))
    assert on_disk <= MAX_SIZE * MAX_FILES, f"{on_disk >> 20} MiB of logs on disk"

    node.delete("Pod", "flood", grace_period=0)
    node.create(shell_pod("after", "echo still serving", policy="Never"))
    wait_until(lambda: phase(node, "after") == "Succeeded", 30, what="a pod to run after the attack")
    assert node.logs("after")["text"] == "still serving\n" and procs.kubelet.poll() is None


@pytest.mark.parametrize("node", [SMALL], indirect=True)
def test_follow_goes_on_across_rotations_without_a_gap(node, settings):
    burst = f'for j in 1 2 3 4 5 6 7 8 9 10; do i=$((i+1)); echo "$i {PAD}"; done'  # ~10 KB/s with the pause
    node.create(shell_pod("steady", f"i=0; while :; do {burst}; sleep 0.1; done"))
    wait_until(lambda: node.logs("steady")["text"], 30, what="the first line")
    chunk = node.logs("steady", tail=1)
    text = chunk["text"]
    while len(text) < 3 * SMALL:  # more than two rotations' worth; a chunk may end mid-line
        chunk = node.logs("steady", offset=chunk["offset"])
        text += chunk["text"]
    seen = counters(text)
    assert seen == list(range(seen[0], seen[0] + len(seen)))
    assert len(log_files(settings, node, "steady")) > 1  # it did rotate


@pytest.mark.parametrize("node", [SMALL], indirect=True)
def test_previous_reads_a_rotated_instance(node, settings):
    node.create(shell_pod("twice", f'seq 1 2000 | sed "s/$/ {PAD}/"; exit 1'))
    wait_until(lambda: node.get("Pod", "twice")["status"]["containerStatuses"][0]["restartCount"] >= 1, 60,
               what="a restart")
    assert len(log_files(settings, node, "twice", instance=0)) > 1  # its output was rotated
    assert counters(node.logs("twice", previous=True, tail=3)["text"]) == [1998, 1999, 2000]

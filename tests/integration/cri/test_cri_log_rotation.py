"""CRI log rotation on a real container: 200 MB of output leaves at most 60 MB on disk with Kubernetes'
10 MiB x 5 files (the kubelet of `cri_cluster` looks every 0.5 s instead of 10 s, so a writer of
~20 MB/s is rotated as often as one of ~1 MB/s would be by the kubelet's default), and `logs`
still reads the current file."""
from __future__ import annotations

from pathlib import Path

from tests.integration.cri.test_cri_pods import container, pod, state
from testkit.waiting import wait_until

LINE = "x" * 999  # 1000 bytes a line with its newline
MB_OF_LINES = f"yes {LINE} | head -n 1000"
# then a line a second: `logs` reads only the current file, which a rotation may have just emptied
SPEW = f"i=0; while [ $i -lt 200 ]; do {MB_OF_LINES}; i=$((i+1)); usleep 50000; done; " \
       "while :; do echo wrote $i MB; sleep 1; done"


def on_disk(folder: Path) -> int:
    return sum(f.stat().st_blocks * 512 for f in folder.iterdir())


def settled(folder: Path) -> list[str] | None:
    """The folder's names once no rotation round is under way: the live file is back below the
    limit (a round starts only above it and ends with a new live file) and nothing is being gzipped.
    The writer's last megabytes may have pushed it over just before it went quiet."""
    names = sorted(f.name for f in folder.iterdir())
    try:
        below = (folder / "0.log").stat().st_size < 10 << 20
    except FileNotFoundError:  # renamed, the runtime not yet told to reopen it
        return None
    return names if below and not any(n.endswith(".tmp") for n in names) else None


def test_200_mb_of_output_leaves_at_most_60_mb_on_disk(cri_cluster, settings):
    cri_cluster.create(pod("spew", SPEW, policy="Always"))
    tail = lambda: cri_cluster.logs("spew", tail=1)["text"]
    wait_until(lambda: tail() == "wrote 200 MB\n", 120, interval=0.5, what="200 MB written")
    uid = cri_cluster.get("Pod", "spew")["metadata"]["uid"]
    folder = settings.data_dir / "kubelet" / "node-1" / "cri" / "pods" / f"default_spew_{uid}" / "main"
    names = wait_until(lambda: settled(folder), 30, what="the last rotation round to end")
    assert on_disk(folder) <= 60 << 20 and len(names) <= 5, (on_disk(folder), names)
    assert sum(n.endswith(".gz") for n in names) == 3 and "0.log" in names, names
    assert state(cri_cluster, "spew", "running") and container(cri_cluster, "spew")["restartCount"] == 0

"""Two trees' `bench.store` at once, so both see the machine at the same moments.

    python -m bench.duel OLD_TREE NEW_TREE [--rounds 3] [--writes 40000]

Each tree runs its own cluster (store, apiserver, load generator) on the one broker; the start
order swaps every round. A shared machine's speed moves by ±15% within minutes, which hides a
change of a few percent between runs one after the other; side by side, the Python processes' CPU
per write compares cleanly. The broker's CPU cannot be split between the two clusters, and it
shares its work fairly between them, so the pair's writes/s stay level: read CPU here, and
throughput from `bench.store` alone.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from bench.harness import median, result_line

PYTHON_ENDS = ("store", "apiserver", "bench")


def _start(tree: Path, writes: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bench.store", "--clients", "64", "--writes", str(writes)],
                            cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def _figures(output: str) -> dict[str, float]:
    line = next(row for row in output.splitlines() if row.startswith("kubus  clients"))
    cpu = {name: float(ms) for name, ms in re.findall(r"(\w+)_cpu_ms_per_write=([\d.]+)", line)}
    return {"writes_per_s": float(re.search(r"cas_writes_per_s=([\d,]+)", line)[1].replace(",", "")),
            **cpu, "python": sum(cpu[name] for name in PYTHON_ENDS)}


def one_round(trees: list[Path], writes: int) -> list[dict[str, float]]:
    procs = [_start(tree, writes) for tree in trees]
    outputs = [proc.communicate()[0] for proc in procs]
    return [_figures(out) for out in outputs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--writes", type=int, default=40000)
    args = parser.parse_args()
    ratios = []
    print("| round | tree | writes/s | store | apiserver | load generator | Python sum (CPU ms a write) |")
    print("|---|---|---|---|---|---|---|")
    for n in range(1, args.rounds + 1):
        order = [args.old, args.new] if n % 2 else [args.new, args.old]
        by_tree = dict(zip(order, one_round(order, args.writes)))
        for label, tree in (("old", args.old), ("new", args.new)):
            f = by_tree[tree]
            print(f"| {n} | {label} | {f['writes_per_s']:,.0f} | {f['store']:.3f} | {f['apiserver']:.3f} | "
                  f"{f['bench']:.3f} | {f['python']:.3f} |", flush=True)
        ratios.append(by_tree[args.new]["python"] / by_tree[args.old]["python"])
    print(result_line(rounds=args.rounds, python_cpu_ratio_median=median(ratios)))


if __name__ == "__main__":
    main()

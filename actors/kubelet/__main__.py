"""`python -m actors.kubelet --node NAME [--runtime cri|process|simulated] [--capacity cpu=4,memory=8Gi,pods=110]
[--labels k=v,...] [--taints key=value:Effect,...]`, or `--hollow N` simulated nodes in one process."""
from __future__ import annotations

import argparse
import json

from actors.kubelet.actor import Kubelet
from actors.kubelet.nodeinfo import NodeConfig
from config.settings import load_settings


def _pairs(text: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in text.split(",") if item)


def _taints(text: str) -> list[dict]:
    out = []
    for item in filter(None, text.split(",")):
        kv, _, effect = item.rpartition(":")
        key, _, value = kv.partition("=")
        out.append({"key": key, **({"value": value} if value else {}), "effect": effect})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--node", help="the node's name")
    parser.add_argument("--node-json", help="the node as the cluster file has it (JSON)")
    parser.add_argument("--runtime", choices=["cri", "process", "simulated"], default="process")
    parser.add_argument("--capacity", default="cpu=4,memory=8Gi,pods=110")
    parser.add_argument("--labels", default="")
    parser.add_argument("--taints", default="")
    parser.add_argument("--hollow", type=int, default=0, help="run N simulated nodes in this process")
    parser.add_argument("--prefix", default="hollow", help="hollow nodes are named PREFIX-0, PREFIX-1, ...")
    parser.add_argument("--node-lease-renew-interval", type=float, default=10.0, help="seconds between renewals")
    args = parser.parse_args()
    if args.hollow:
        nodes = [NodeConfig(f"{args.prefix}-{i}", "simulated", _pairs(args.capacity), _pairs(args.labels),
                            _taints(args.taints)) for i in range(args.hollow)]
        name = f"kubelet.{args.prefix}"
    elif args.node_json:
        nodes, name = [NodeConfig(**json.loads(args.node_json))], None
    else:
        parser.error("--node, --node-json or --hollow") if not args.node else None
        nodes = [NodeConfig(args.node, args.runtime, _pairs(args.capacity), _pairs(args.labels), _taints(args.taints))]
        name = None
    Kubelet(load_settings(), nodes, name=name, renew_interval=args.node_lease_renew_interval).run()


if __name__ == "__main__":
    main()

"""An admission webhook's added latency per admitted request: ConfigMap creates one at a time through
the apiserver, first with no webhook, then with one validating webhook (HTTPS on 127.0.0.1, a
self-signed cert as its caBundle, answering at once: testkit/webhooks.py), then with one mutating
webhook as well (adding a label by JSON patch, at once).

    python -m bench.webhooks --requests 500

Prints p50 and p99 of each phase and the difference of p50s (what the webhooks add, the webhook's own
time included). The last line is the `name=value` result.
"""
from __future__ import annotations

import argparse
import pathlib
import tempfile
import time

from bench.gateway import percentile
from bench.harness import Cluster, result_line, serving, wait_for
from runtime.client import Client
from testkit.webhooks import configuration, hook, running_webhook


def configmap(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"},
            "data": {"k": "v"}}


def latencies(client: Client, prefix: str, n: int) -> list[float]:
    took = []
    for i in range(n):
        started = time.perf_counter()
        client.create(configmap(f"{prefix}-{i}"))
        took.append(time.perf_counter() - started)
    return took


def in_use(client: Client, server, prefix: str) -> bool:
    before = len(server.calls)
    client.create(configmap(f"{prefix}-probe-{time.monotonic_ns()}"))
    return len(server.calls) > before


def labelled(client: Client) -> bool:
    made = client.create(configmap(f"m-probe-{time.monotonic_ns()}"))
    return ((made.get("metadata") or {}).get("labels") or {}).get("webhook") == "mutated"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args()
    with Cluster("webhooks") as cluster, running_webhook(pathlib.Path(tempfile.mkdtemp())) as server:
        cluster.start("store"), cluster.start("actors.apiserver")
        client = Client(cluster.settings, name="bench")
        wait_for(lambda: serving(client), 60, "the apiserver")
        latencies(client, "warm", 50)
        phases = {"none": latencies(client, "none", args.requests)}
        allow = hook("allow.bench.kubus.io", f"{server.url}/allow", server.ca_bundle, resources=("configmaps",))
        client.create(configuration("ValidatingWebhookConfiguration", "bench", [allow]))
        wait_for(lambda: in_use(client, server, "v"), 30, "the validating webhook in use")
        phases["validating"] = latencies(client, "validating", args.requests)
        label = hook("label.bench.kubus.io", f"{server.url}/mutate", server.ca_bundle, resources=("configmaps",))
        client.create(configuration("MutatingWebhookConfiguration", "bench", [label]))
        wait_for(lambda: labelled(client), 30, "the mutating webhook in use")
        phases["both"] = latencies(client, "both", args.requests)
        ms = {f"{phase}_{q}_ms": 1000 * percentile(values, p) for phase, values in phases.items()
              for q, p in (("p50", 0.5), ("p99", 0.99))}
        for phase in phases:
            print(f"{phase:>10}: p50 {ms[f'{phase}_p50_ms']:.2f} ms  p99 {ms[f'{phase}_p99_ms']:.2f} ms")
        print(result_line(requests=args.requests, **ms,
                          validating_added_p50_ms=ms["validating_p50_ms"] - ms["none_p50_ms"],
                          both_added_p50_ms=ms["both_p50_ms"] - ms["none_p50_ms"]))
        client.close()


if __name__ == "__main__":
    main()

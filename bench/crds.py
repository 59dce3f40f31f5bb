"""A CustomResourceDefinition created → its resource served by every apiserver and by the gateway.

    python -m bench.crds --crds 10 --apiservers 2

A cluster of a store, `--apiservers` apiservers, the CRD controller and a gateway. CRDs are created one
at a time (each its own group's kind, `Gadget<i>`); from each create the clock runs until
- every apiserver serves it: a list of the kind over the bus answered `4 × apiservers` times in a row
  (the apiservers take turns at one queue, so each has answered);
- the gateway serves it: `GET /apis/<group>/v1/namespaces/default/gadget<i>s` answers 200 (kubectl's
  first request after discovery);
- Established: the CRD controller's condition, for the record (not what serves it).
Prints each CRD's times and their p50 and max; the last line is the `name=value` result.
"""
from __future__ import annotations

import argparse
import ssl
import time
import urllib.error
import urllib.request

from api.status import StatusError
from bench.gateway import connect, percentile
from bench.harness import Cluster, median, result_line
from runtime import logs
from runtime.client import Client
from testkit.hosts import free_port

GROUP = "bench.kubus.io"
POLL_S = 0.01


def gadget_crd(i: int) -> dict:
    plural = f"gadget{i}s"
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "size": {"type": "string", "enum": ["small", "large"]}, "replicas": {"type": "integer", "minimum": 0}}}}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{i}.{GROUP}"},
            "spec": {"group": f"{i}.{GROUP}", "scope": "Namespaced",
                     "names": {"plural": plural, "singular": f"gadget{i}", "kind": f"Gadget{i}"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}}]}}


class Probe:
    """Whether a CRD's resource is served yet by the apiservers (over the bus) and the gateway (HTTPS)."""

    def __init__(self, client: Client, url: str, context: ssl.SSLContext, token: str, in_a_row: int):
        self.client, self.url, self.context, self.token, self.in_a_row = client, url, context, token, in_a_row

    def apiservers(self, kind: str) -> bool:
        for _ in range(self.in_a_row):
            try:
                self.client.request("list", kind, namespace="default", timeout=5)
            except StatusError:
                return False
        return True

    def gateway(self, crd: dict) -> bool:
        spec = crd["spec"]
        path = f"/apis/{spec['group']}/v1/namespaces/default/{spec['names']['plural']}"
        request = urllib.request.Request(self.url + path, headers={"Authorization": f"Bearer {self.token}"})
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=5) as answer:
                return answer.status == 200
        except urllib.error.HTTPError:
            return False

    def established(self, crd: dict) -> bool:
        status = self.client.get("CustomResourceDefinition", crd["metadata"]["name"]).get("status") or {}
        return any(c.get("type") == "Established" and c.get("status") == "True" for c in status.get("conditions") or ())


def time_one(probe: Probe, crd: dict, timeout: float = 30.0) -> dict[str, float]:
    """Seconds from the create to each of: apiservers serving, the gateway serving, Established."""
    checks = {"apiservers": lambda: probe.apiservers(crd["spec"]["names"]["kind"]),
              "gateway": lambda: probe.gateway(crd), "established": lambda: probe.established(crd)}
    started = time.monotonic()
    probe.client.create(crd)
    took: dict[str, float] = {}
    while len(took) < len(checks):
        for name, check in checks.items():
            if name not in took and check():
                took[name] = time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise SystemExit(f"{crd['metadata']['name']} not served in {timeout:.0f} s: {took}")
        time.sleep(POLL_S)
    took["served"] = max(took["apiservers"], took["gateway"])
    return {name: took[name] for name in ("served", "apiservers", "gateway", "established")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--crds", type=int, default=10)
    parser.add_argument("--apiservers", type=int, default=2)
    args = parser.parse_args()
    logs.configure("warning")
    port = free_port()
    url = f"https://127.0.0.1:{port}"
    with Cluster("crdbench") as cluster:
        cluster.env["KUBUS_GATEWAY_ADDRESS"] = f"127.0.0.1:{port}"
        cluster.start("store")
        for _ in range(args.apiservers):
            cluster.start("actors.apiserver")
        cluster.start("actors.controllers", "crd")
        cluster.start("actors.gateway")
        context, token, client = connect(cluster, url, "bench crds")
        probe = Probe(client, url, context, token, 4 * args.apiservers)
        runs = [time_one(probe, gadget_crd(i)) for i in range(args.crds)]
        for i, took in enumerate(runs):
            print(f"{gadget_crd(i)['metadata']['name']:<32} " + "  ".join(f"{k} {v:.3f} s" for k, v in took.items()))
        figures = {f"{name}_{q}_s": f(values) for name in runs[0]
                   for values in [[r[name] for r in runs]] for q, f in (("p50", median), ("max", max))}
        figures["p90_served_s"] = percentile([r["served"] for r in runs], 0.9)
        client.close()
    print(result_line(crds=args.crds, apiservers=args.apiservers, **figures))


if __name__ == "__main__":
    main()

"""Reads and watch events through the gateway (Kubernetes' REST API over HTTPS) against the same
through `Client` over the bus, in one cluster and one sitting.

    python -m bench.gateway --gets 3000 --inflight 1 16 --events 3000 --lists 200

gets: `GET /api/v1/namespaces/default/pods/<name>` (the gateway turns it into one bus `get`) against
`Client.get` over the bus, with 1 and N requests in flight. Watch: one gateway watch stream
(`?watch=true`, chunked JSON lines) and one bus watch are open while a writer updates pods; the
figure is events delivered per second from the first write to the last event, and each event's lag
behind its write's request (16 pods, one CAS update in flight each, as bench.store writes). Lists:
a 100-pod list read through the gateway as JSON and as Kubernetes protobuf (what client-go's typed
clients ask for), one at a time, taking turns; the figure is lists per second of each, and protobuf
over JSON.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import ssl
import threading
import time
import urllib.request

import aiohttp

from api.protobuf import MEDIA_TYPE as PROTOBUF
from bench.harness import Cluster, median, result_line, serving, wait_for
from bench.store import Chains, payload
from runtime import logs
from runtime.client import Client
from testkit.hosts import free_port
from testkit.people import token_of

POD_URL = "/api/v1/namespaces/default/pods"
LIST_PODS = 100


def answers(url: str, context: ssl.SSLContext) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/version", context=context, timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def gateway_gets(url: str, context: ssl.SSLContext, token: str, names: list[str], gets: int,
                       inflight: int) -> float:
    """Gets per second through the gateway with `inflight` requests at a time."""
    headers = {"Authorization": f"Bearer {token}"}
    connector = aiohttp.TCPConnector(ssl=context, limit=inflight)
    async with aiohttp.ClientSession(url, connector=connector, headers=headers) as session:
        async def worker(k: int) -> None:
            for i in range(k, gets, inflight):
                async with session.get(f"{POD_URL}/{names[i % len(names)]}") as answer:
                    await answer.read()
                    assert answer.status == 200, answer.status
        started = time.monotonic()
        await asyncio.gather(*(worker(k) for k in range(inflight)))
        return gets / (time.monotonic() - started)


def bus_gets(client: Client, names: list[str], gets: int, inflight: int) -> float:
    """Gets per second over the bus with `inflight` requests at a time (each reply sends the next)."""
    done, started = [0], time.monotonic()
    finished = threading.Event()

    def send(i: int) -> None:
        fut = client.request_async("get", "Pod", namespace="default", name=names[i % len(names)])
        fut.add_done_callback(lambda f: answered(i, f.result()))

    def answered(i: int, reply) -> None:
        assert reply.get("ok"), reply
        done[0] += 1
        if i + inflight < gets:
            send(i + inflight)
        elif done[0] == gets:
            finished.set()

    for i in range(min(inflight, gets)):
        send(i)
    wait_for(finished.is_set, 120, "the bus gets")
    return gets / (time.monotonic() - started)


class Events:
    """Arrival times of MODIFIED events by (pod name, the label value `n` the writer set)."""

    def __init__(self):
        self.at: dict[tuple[str, int], float] = {}

    def seen(self, obj: dict) -> None:
        meta = obj.get("metadata", {})
        n = (meta.get("labels") or {}).get("n")
        if n is not None:
            self.at.setdefault((meta["name"], int(n)), time.monotonic())


class TimedChains(Chains):
    """bench.store's chains of CAS updates, remembering when each write was sent."""

    def __init__(self, client: Client, objects: list[dict], per_client: int):
        super().__init__(client, objects, per_client)
        self.sent: dict[tuple[str, int], float] = {}

    def _send(self, i: int, n: int) -> None:
        self.sent[(self.objects[i]["metadata"]["name"], n)] = time.monotonic()
        super()._send(i, n)


async def gateway_watch(url: str, context: ssl.SSLContext, token: str, events: Events, ready: asyncio.Event,
                        total: int) -> None:
    """List, then watch from the list's resourceVersion (a client's informer), until `total` events."""
    headers = {"Authorization": f"Bearer {token}"}
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    async with aiohttp.ClientSession(url, connector=aiohttp.TCPConnector(ssl=context), headers=headers,
                                     timeout=timeout) as session:
        async with session.get(POD_URL) as listed:
            rv = (await listed.json())["metadata"]["resourceVersion"]
        query = f"?watch=true&resourceVersion={rv}&allowWatchBookmarks=true"
        async with session.get(POD_URL + query) as stream:
            assert stream.status == 200, await stream.text()
            ready.set()
            async for line in stream.content:
                event = json.loads(line)
                assert event["type"] != "ERROR", event
                if event["type"] == "MODIFIED":
                    events.seen(event["object"])
                    if len(events.at) >= total:
                        return


def watch_figures(name: str, events: Events, sent: dict[tuple[str, int], float], first: float) -> dict[str, float]:
    lags = [events.at[key] - sent[key] for key in sent if key in events.at]
    return {f"{name}_watch_events_per_s": len(events.at) / (max(events.at.values()) - first),
            f"{name}_watch_lag_p50_ms": median(lags) * 1000, f"{name}_watch_lag_p99_ms": percentile(lags, 0.99) * 1000}


async def run_watches(url, context, token, client: Client, objects: list[dict], total: int) -> dict[str, float]:
    """Both watches open while every object gets `total / len(objects)` chained updates."""
    gateway_events, bus_events = Events(), Events()
    chains = TimedChains(client, objects, total // len(objects))
    total = chains.per * len(objects)
    watch = client.watch("Pod", "default", handler=lambda d: d.type == "MODIFIED" and bus_events.seen(d.object))
    watch.wait_synced()
    ready = asyncio.Event()
    reader = asyncio.create_task(gateway_watch(url, context, token, gateway_events, ready, total))
    await asyncio.wait_for(ready.wait(), 30)
    first = time.monotonic()
    chains.start()
    await asyncio.wait_for(reader, 120)
    wait_for(lambda: len(bus_events.at) >= total, 60, "the bus watch's events")
    watch.close()
    assert not chains.failed, chains.failed[:1]
    return {**watch_figures("gateway", gateway_events, chains.sent, first),
            **watch_figures("bus", bus_events, chains.sent, first)}


async def list_reads(url: str, context: ssl.SSLContext, token: str, accepts: dict[str, str],
                     lists: int) -> dict[str, float]:
    """Lists per second of the namespace's pods through the gateway in each encoding asked, one at a
    time, the encodings taking turns (a drift in the machine's load weighs on each alike)."""
    spent = dict.fromkeys(accepts, 0.0)
    async with aiohttp.ClientSession(url, connector=aiohttp.TCPConnector(ssl=context),
                                     headers={"Authorization": f"Bearer {token}"}) as session:
        for _ in range(lists):
            for name, accept in accepts.items():
                started = time.monotonic()
                async with session.get(POD_URL, headers={"Accept": accept}) as answer:
                    await answer.read()
                    assert answer.status == 200 and answer.content_type == accept.split(",")[0], answer.content_type
                spent[name] += time.monotonic() - started
    return {name: lists / seconds for name, seconds in spent.items()}


def connect(cluster: Cluster, url: str, name: str) -> tuple[ssl.SSLContext, str, Client]:
    """Once the cluster and its gateway answer: a TLS context trusting the gateway's CA, admin's token,
    and a bus client."""
    ca = cluster.base.gateway_tls_dir / "ca.crt"
    wait_for(ca.exists, 30, "the gateway's certificates")
    context = ssl.create_default_context(cafile=str(ca))
    client = Client(cluster.settings, name=name)
    wait_for(lambda: serving(client), 30, "the cluster to answer")
    wait_for(lambda: answers(url, context), 30, "the gateway to answer")
    return context, token_of(cluster.settings, "admin"), client


async def measure(cluster: Cluster, url: str, args) -> dict[str, float]:
    context, token, client = connect(cluster, url, "bench gateway")
    objects = [client.create(payload(i)) for i in range(16)]
    names = [o["metadata"]["name"] for o in objects]
    figures: dict[str, float] = {}
    for inflight in args.inflight:
        figures[f"gateway_gets_per_s_{inflight}"] = await gateway_gets(url, context, token, names, args.gets, inflight)
        figures[f"bus_gets_per_s_{inflight}"] = await asyncio.to_thread(bus_gets, client, names, args.gets, inflight)
        figures[f"gateway_vs_bus_gets_{inflight}"] = (figures[f"gateway_gets_per_s_{inflight}"]
                                                      / figures[f"bus_gets_per_s_{inflight}"])
    figures.update(await run_watches(url, context, token, client, objects, args.events))
    objects += [client.create(payload(i)) for i in range(len(objects), LIST_PODS)]
    rates = await list_reads(url, context, token, {"json": "application/json",
                                                   "protobuf": f"{PROTOBUF},application/json"}, args.lists)
    figures.update({f"gateway_lists_per_s_{name}": rate for name, rate in rates.items()})
    figures["protobuf_vs_json_lists"] = figures["gateway_lists_per_s_protobuf"] / figures["gateway_lists_per_s_json"]
    client.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gets", type=int, default=3000)
    parser.add_argument("--inflight", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--events", type=int, default=3000)
    parser.add_argument("--lists", type=int, default=200)
    args = parser.parse_args()
    logs.configure("warning")
    port = free_port()
    url = f"https://127.0.0.1:{port}"
    with Cluster("gwbench") as cluster:
        cluster.env["KUBUS_GATEWAY_ADDRESS"] = f"127.0.0.1:{port}"
        cluster.start("store")
        cluster.start("actors.apiserver")
        cluster.start("actors.gateway")
        figures = asyncio.run(measure(cluster, url, args))
    print(result_line(gets=args.gets, events=args.events, lists=args.lists, **figures))


if __name__ == "__main__":
    main()

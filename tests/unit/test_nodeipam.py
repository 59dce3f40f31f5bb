"""The node IPAM controller's choice of ranges, over its cache and a store that answers at once —
before the written node's event reaches the cache, as it may on the broker."""
from __future__ import annotations

import logging
from types import SimpleNamespace

from actors.controllers.nodeipam import NodeIpamController


def controller() -> NodeIpamController:
    ipam = NodeIpamController.__new__(NodeIpamController)
    ipam.ranges = ["10.244.0.0/24", "10.244.1.0/24", "10.244.2.0/24"]
    ipam.pending, ipam.objects, ipam.written = {}, {}, []
    ipam.log = logging.getLogger("test")
    ipam.write = lambda body, done: (ipam.written.append(body["object"]), done({"ok": True}))
    return ipam


def node(name: str, cidr: str | None = None) -> dict:
    return {"metadata": {"name": name}, "spec": {"podCIDR": cidr} if cidr else {}}


def seen(ipam: NodeIpamController, obj: dict, type_: str = "ADDED") -> None:
    ipam.objects.setdefault("Node", {})[("", obj["metadata"]["name"])] = obj
    ipam.keys_for(SimpleNamespace(type=type_, object=obj, kind="Node"), None)


def test_two_nodes_get_two_ranges_when_the_answer_comes_before_the_event():
    ipam = controller()
    seen(ipam, node("node-1"))
    seen(ipam, node("node-2"))
    ipam.reconcile("node-1")  # answered at once; node-1's new range is not in the cache yet
    ipam.reconcile("node-2")
    assert [n["spec"]["podCIDR"] for n in ipam.written] == ["10.244.0.0/24", "10.244.1.0/24"]


def test_a_range_is_held_until_the_cache_shows_it_then_the_cache_holds_it():
    ipam = controller()
    seen(ipam, node("node-1"))
    ipam.reconcile("node-1")
    seen(ipam, ipam.written[-1], "MODIFIED")
    assert ipam.pending == {}
    seen(ipam, node("node-2"))
    ipam.reconcile("node-2")
    assert ipam.written[-1]["spec"]["podCIDR"] == "10.244.1.0/24"


def test_a_deleted_nodes_pending_range_is_free_again():
    ipam = controller()
    ipam.write = lambda body, done: ipam.written.append(body["object"])  # no answer yet
    seen(ipam, node("node-1"))
    ipam.reconcile("node-1")
    seen(ipam, node("node-1"), "DELETED")
    assert ipam.pending == {}

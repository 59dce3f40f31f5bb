"""A host is the namespace's that claimed it first; a defaultBackend serves only hosts nobody claimed,
and only the cluster's chosen one (pure logic)."""
from __future__ import annotations

import pytest

from actors.ingress.claims import plan
from actors.ingress.rules import RouteTable
from tests.unit.test_ingress_rules import rule

FALLBACK = {"service": {"name": "fallback", "port": {"number": 80}}}


def ingress(ns: str, name: str, stamp: str, rules: list[dict], **spec) -> dict:
    return {"metadata": {"name": name, "namespace": ns, "creationTimestamp": stamp, "uid": f"{ns}-{name}"},
            "spec": {"ingressClassName": "kubus", "rules": rules, **spec}}


def table(*ingresses: dict) -> RouteTable:
    routes = RouteTable("kubus", "kubus.io/ingress-controller")
    for i in ingresses:
        routes.apply("Ingress", i)
    return routes


A = ingress("a", "shop", "2026-01-01T00:00:00Z", [rule("shop.example", ("/", "Prefix", "a-web"))])


@pytest.mark.parametrize("attacker, host, path, service", [
    pytest.param(ingress("b", "x", "2026-02-01T00:00:00Z", [rule("shop.example", ("/admin", "Prefix", "b"))]),
                 "shop.example", "/admin/x", "a-web", id="a-more-specific-path"),
    pytest.param(ingress("b", "x", "2026-02-01T00:00:00Z", [rule("SHOP.example", ("/", "Exact", "b"))]),
                 "shop.example", "/", "a-web", id="an-exact-path-in-other-case"),
    pytest.param(ingress("b", "x", "2025-01-01T00:00:00Z", [], defaultBackend={"service": {
        "name": "b", "port": {"number": 80}}}), "shop.example", "/", "a-web", id="an-older-default-backend"),
    pytest.param(ingress("b", "x", "2026-02-01T00:00:00Z", [rule("new.example", ("/", "Prefix", "b"))]),
                 "new.example", "/", "b", id="its-own-host-is-served"),
])
def test_a_tenant_cannot_take_another_tenants_host(attacker, host, path, service):
    assert table(A, attacker).match(host, path).service == service


def test_a_claimed_hosts_unmatched_path_is_404_not_the_default_backend():
    routes = table(ingress("ops", "catch", "2025-01-01T00:00:00Z", [], defaultBackend=FALLBACK),
                   ingress("a", "api", "2026-01-01T00:00:00Z", [rule("shop.example", ("/api", "Prefix", "api"))]))
    assert routes.match("shop.example", "/other") is None
    assert routes.match("nobody.example", "/").service == "fallback"


def test_an_older_wildcard_covers_its_subdomains():
    wild = ingress("a", "wild", "2026-01-01T00:00:00Z", [rule("*.shop.example", ("/", "Prefix", "a-wild"))])
    mine = ingress("a", "mine", "2026-03-01T00:00:00Z", [rule("pay.shop.example", ("/", "Prefix", "a-pay"))])
    theirs = ingress("b", "x", "2026-02-01T00:00:00Z", [rule("pay.shop.example", ("/", "Prefix", "b"))])
    assert table(wild, theirs).match("pay.shop.example", "/").service == "a-wild"
    assert table(wild, theirs, mine).match("pay.shop.example", "/").service == "a-pay"


def test_ties_in_age_go_by_namespace_then_name_and_the_oldest_leaving_frees_the_host():
    a, b = (ingress(ns, "i", "2026-01-01T00:00:00Z", [rule("h.example", ("/", "Prefix", ns))]) for ns in "ab")
    routes = table(b, a)
    assert routes.match("h.example", "/").service == "a"
    routes.remove("Ingress", a)
    assert routes.match("h.example", "/").service == "b"


def test_each_refusal_says_why_on_the_refused_ingress():
    two_rules = [rule("shop.example", ("/a", "Prefix", "b")), rule("shop.example", ("/b", "Prefix", "b"))]
    b = ingress("b", "x", "2026-02-01T00:00:00Z", two_rules, defaultBackend=FALLBACK)
    ops = ingress("ops", "catch", "2025-01-01T00:00:00Z", [], defaultBackend=FALLBACK)
    refused = plan([A, b, ops]).refused
    assert [(r.ingress["metadata"]["name"], r.reason, r.host) for r in refused] == [
        ("x", "HostAlreadyClaimed", "shop.example"), ("x", "DefaultBackendAlreadyClaimed", "")]
    assert refused[0].message == ('host "shop.example" is claimed by an older Ingress in another namespace: this '
                                  "Ingress's rules for it are not served")

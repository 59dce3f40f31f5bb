"""Ingress routing as Kubernetes documents it (k8s-networking.md §6.2-6.4), pure logic."""
from __future__ import annotations

import pytest

from actors.ingress.rules import RouteTable, host_matches, path_matches

CLASS = {"metadata": {"name": "kubus", "annotations": {"ingressclass.kubernetes.io/is-default-class": "true"}},
         "spec": {"controller": "kubus.io/ingress-controller"}}


def ingress(name: str, rules: list[dict], stamp: str = "2026-01-01T00:00:00Z", **spec) -> dict:
    return {"metadata": {"name": name, "namespace": "default", "creationTimestamp": stamp},
            "spec": {"ingressClassName": "kubus", "rules": rules, **spec}}


def rule(host: str | None, *paths: tuple[str, str, str]) -> dict:
    found = {"http": {"paths": [{"path": p, "pathType": t, "backend": {"service": {"name": s, "port": {"number": 80}}}}
                                for p, t, s in paths]}}
    return {**found, "host": host} if host else found


@pytest.mark.parametrize("kind, rule_path, request_path, expected", [
    ("Prefix", "/", "/anything", True), ("Exact", "/foo", "/foo", True), ("Exact", "/foo", "/bar", False),
    ("Exact", "/foo", "/foo/", False), ("Exact", "/foo/", "/foo", False), ("Prefix", "/foo", "/foo", True),
    ("Prefix", "/foo", "/foo/", True), ("Prefix", "/foo/", "/foo", True), ("Prefix", "/foo/", "/foo/", True),
    ("Prefix", "/aaa/bb", "/aaa/bbb", False), ("Prefix", "/aaa/bbb", "/aaa/bbb", True),
    ("Prefix", "/aaa/bbb/", "/aaa/bbb", True), ("Prefix", "/aaa/bbb", "/aaa/bbb/", True),
    ("Prefix", "/aaa/bbb", "/aaa/bbb/ccc", True), ("Prefix", "/aaa/bbb", "/aaa/bbbxyz", False),
])
def test_the_documentations_path_table(kind, rule_path, request_path, expected):
    assert path_matches(kind, rule_path, request_path) is expected


@pytest.mark.parametrize("paths, request_path, service", [
    ([("/", "Prefix", "root"), ("/aaa", "Prefix", "aaa")], "/aaa/ccc", "aaa"),
    ([("/", "Prefix", "root"), ("/aaa", "Prefix", "aaa"), ("/aaa/bbb", "Prefix", "bbb")], "/aaa/bbb", "bbb"),
    ([("/", "Prefix", "root"), ("/aaa", "Prefix", "aaa"), ("/aaa/bbb", "Prefix", "bbb")], "/ccc", "root"),
    ([("/foo", "Prefix", "prefix"), ("/foo", "Exact", "exact")], "/foo", "exact"),
    ([("/aaa", "Prefix", "aaa")], "/ccc", "fallback"),
])
def test_the_longest_match_wins_exact_first_else_the_default_backend(paths, request_path, service):
    table = RouteTable("kubus", "kubus.io/ingress-controller")
    table.apply("Ingress", ingress("shop", [rule(None, *paths)],
                                   defaultBackend={"service": {"name": "fallback", "port": {"number": 80}}}))
    assert table.match("any.example", request_path).service == service


def test_hosts_exact_then_one_label_wildcards_then_hostless():
    assert host_matches("*.foo.com", "bar.foo.com") and not host_matches("*.foo.com", "baz.bar.foo.com")
    assert not host_matches("*.foo.com", "foo.com")
    table = RouteTable("kubus", "kubus.io/ingress-controller")
    table.apply("Ingress", ingress("a", [rule("shop.example", ("/api", "Prefix", "api")),
                                         rule("*.example", ("/", "Prefix", "wild")),
                                         rule(None, ("/", "Prefix", "any"))]))
    assert table.match("Shop.Example:8080", "/api/items").service == "api"
    assert table.match("shop.example", "/other") is None  # the host's own rules hide the rest: 404
    assert table.match("blog.example", "/").service == "wild"
    assert table.match("a.b.example", "/").service == "any"


def test_the_class_decides_and_the_oldest_ingress_wins_a_conflict():
    table = RouteTable("kubus", "kubus.io/ingress-controller")
    table.apply("Ingress", ingress("new", [rule("h.example", ("/", "Prefix", "new"))], "2026-02-01T00:00:00Z"))
    table.apply("Ingress", ingress("old", [rule("h.example", ("/", "Prefix", "old"))], "2026-01-01T00:00:00Z"))
    other = ingress("other", [rule("o.example", ("/", "Prefix", "other"))])
    other["spec"]["ingressClassName"] = "nginx"
    table.apply("Ingress", other)
    unnamed = ingress("unnamed", [rule("u.example", ("/", "Prefix", "unnamed"))])
    del unnamed["spec"]["ingressClassName"]
    table.apply("Ingress", unnamed)
    assert table.match("h.example", "/").service == "old"
    assert table.match("o.example", "/") is None
    assert table.match("u.example", "/") is None  # no class, and kubus is not (yet) the default
    table.apply("IngressClass", CLASS)
    assert table.match("u.example", "/").service == "unnamed"
    table.remove("Ingress", {"metadata": {"name": "old", "namespace": "default"}})
    assert table.match("h.example", "/").service == "new"

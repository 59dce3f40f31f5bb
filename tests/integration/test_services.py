"""Services through the real apiserver and store: the `kubernetes` Service, ClusterIP and NodePort
allocation with Kubernetes' errors over the wire, an update that leaves the IP out, and `kubus get`."""
from __future__ import annotations

import ipaddress
import subprocess
from pathlib import Path

import pytest

from api.status import StatusError
from testkit.waiting import wait_until
from testkit import cli

ROOT = Path(__file__).resolve().parents[2]


def service(name: str, **spec) -> dict:
    spec.setdefault("selector", {"app": name})
    spec.setdefault("ports", [{"name": "http", "port": 80, "targetPort": "http"}])
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}


def kubus(procs, *args: str) -> subprocess.CompletedProcess:
    return cli.kubus(*args, env=procs.env, timeout=120)


@pytest.mark.shared_plane  # the module's one plane (its address and port ranges), a namespace per test
def test_services_get_addresses_from_the_service_range(cluster, settings):
    kubernetes = cluster.get("Service", "kubernetes", "default")
    assert kubernetes["spec"]["clusterIP"] == "10.96.0.1"
    web = cluster.create(service("web", type="NodePort"))
    assert ipaddress.IPv4Address(web["spec"]["clusterIP"]) in ipaddress.IPv4Network(settings.service_cidr)
    assert web["spec"]["clusterIPs"] == [web["spec"]["clusterIP"]]
    assert 30000 <= web["spec"]["ports"][0]["nodePort"] <= 32767
    with pytest.raises(StatusError) as err:
        cluster.create(service("copy", clusterIP=web["spec"]["clusterIP"]))
    ip = web["spec"]["clusterIP"]
    assert (err.value.reason, err.value.message) == (
        "Invalid", f'Service "copy" is invalid: spec.clusterIPs: Invalid value: ["{ip}"]: failed to allocate IP '
                   f'{ip}: provided IP is already allocated')
    port = web["spec"]["ports"][0]["nodePort"]
    with pytest.raises(StatusError) as err:
        cluster.create(service("other", type="NodePort", ports=[{"port": 81, "nodePort": port}]))
    assert err.value.causes[0].field == "spec.ports[0].nodePort"
    assert err.value.causes[0].message == f"Invalid value: {port}: provided port is already allocated"


@pytest.mark.shared_plane  # the module's one plane (its address and port ranges), a namespace per test
def test_a_replace_without_the_ip_keeps_it(cluster):
    web = cluster.create(service("web", type="NodePort"))
    again = cluster.update({**service("web", type="NodePort"),
                            "metadata": {"name": "web", "resourceVersion": web["metadata"]["resourceVersion"]}})
    assert again["spec"]["clusterIP"] == web["spec"]["clusterIP"]
    assert again["spec"]["ports"][0]["nodePort"] == web["spec"]["ports"][0]["nodePort"]


@pytest.mark.shared_plane  # the module's one plane (its address and port ranges), a namespace per test
def test_a_bad_service_is_refused_with_kubernetes_words(cluster):
    with pytest.raises(StatusError) as err:
        cluster.create(service("web", type="ClusterIP", ports=[{"port": 80, "nodePort": 30080}]))
    assert err.value.message == ("Service \"web\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used "
                                 "when `type` is 'ClusterIP'")


def test_kubus_get_services_prints_kubectls_columns(cluster, procs):
    web = cluster.create(service("web", type="NodePort"))
    out = kubus(procs, "get", "services", "-o", "wide")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["kubernetes"][1:5] == ["ClusterIP", "10.96.0.1", "<none>", "443/TCP"]
    assert rows["web"][1:5] == ["NodePort", web["spec"]["clusterIP"], "<none>",
                                f"80:{web['spec']['ports'][0]['nodePort']}/TCP"]
    assert rows["web"][6] == "app=web"


def test_kubus_expose_and_describe_a_deployments_service(cluster, procs):
    labels = {"app": "shop"}
    cluster.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "shop", "labels": labels},
                    "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                             "template": {"metadata": {"labels": labels},
                                          "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}})
    out = kubus(procs, "expose", "deployment", "shop", "--port", "80", "--target-port", "8080")
    assert (out.returncode, out.stdout.strip()) == (0, "service/shop exposed"), out.stderr
    made = cluster.get("Service", "shop")
    assert made["spec"]["selector"] == labels
    assert made["spec"]["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 8080}]
    described = kubus(procs, "describe", "service", "shop")
    assert described.returncode == 0, described.stderr
    rows = {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in described.stdout.splitlines()
            if ":" in line and not line.startswith(" ")}
    assert (rows["Selector"], rows["Type"], rows["IP"]) == ("app=shop", "ClusterIP", made["spec"]["clusterIP"])
    assert (rows["Port"], rows["TargetPort"], rows["Endpoints"]) == ("<unset>  80/TCP", "8080/TCP", "<none>")
    again = kubus(procs, "expose", "deployment", "shop", "--port", "80")
    assert again.returncode != 0 and 'services "shop" already exists' in again.stderr


def test_a_new_ingress_without_a_class_gets_the_default_one(cluster):
    cluster.create({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
                    "metadata": {"name": "kubus", "annotations": {"ingressclass.kubernetes.io/is-default-class": "true"}},
                    "spec": {"controller": "kubus.io/ingress-controller"}})
    backend = {"service": {"name": "web", "port": {"number": 80}}}
    new = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"generateName": "shop-"},
           "spec": {"defaultBackend": backend}}
    # the apiserver learns of the class from its events: an Ingress made before that gets no class
    made = wait_until(lambda: (m := cluster.create(new))["spec"].get("ingressClassName") == "kubus" and m, 10,
                      what="an Ingress given the default class")
    assert made["metadata"]["name"].startswith("shop-")
    with pytest.raises(StatusError) as err:
        cluster.create({**new, "spec": {}})
    assert err.value.causes[0].message == "Invalid value: null: either `defaultBackend` or `rules` must be specified"

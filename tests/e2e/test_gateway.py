"""kubectl against kubus through the gateway: discovery, get and list (as tables and as JSON),
errors as Status objects, and a wrong token refused as kubectl expects."""
from __future__ import annotations

import json
import shutil

import pytest

from testkit.people import as_person, token_of
from tests.e2e.conftest import kubectl_for
from tests.fuzz_strategies import node, pod

pytestmark = [pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl on the PATH"),
              pytest.mark.shared_plane]  # one control plane and gateway for the module, a namespace per test


def test_kubectl_reads_through_the_gateway(cluster, settings, gateway, tmp_path, namespace):
    cluster.create(pod("web"))
    node_name = f"node-{namespace}"  # cluster-scoped: named after the test's namespace
    cluster.create(node(node_name))
    kubectl = kubectl_for(tmp_path, *gateway, token_of(settings, "admin"), namespace)

    version = kubectl("version")
    assert "Server Version: v1.35.4-kubus" in version.stdout, version.stderr

    resources = kubectl("api-resources")
    assert resources.returncode == 0, resources.stderr
    lines = [line.split() for line in resources.stdout.splitlines()]
    assert ["pods", "po", "v1", "true", "Pod"] in lines
    assert ["deployments", "deploy", "apps/v1", "true", "Deployment"] in lines

    pods = kubectl("get", "pods", "-A")
    assert pods.returncode == 0, pods.stderr
    assert pods.stdout.split()[:6] == ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert [namespace, "web", "0/1", "Pending", "0"] in [line.split()[:5] for line in pods.stdout.splitlines()]

    wide = kubectl("get", "pods", "-o", "wide", "-l", "app=fz")
    assert wide.stdout.splitlines()[0].endswith("IP       NODE     NOMINATED NODE"), wide.stderr
    assert wide.stdout.splitlines()[1].split()[0] == "web"
    assert "No resources found" in kubectl("get", "pods", "-l", "app=other").stderr

    one = kubectl("get", "pod", "web", "-o", "json")
    assert one.returncode == 0, one.stderr
    obj = json.loads(one.stdout)
    assert (obj["kind"], obj["apiVersion"], obj["metadata"]["name"]) == ("Pod", "v1", "web")

    nodes = kubectl("get", "nodes")
    assert nodes.stdout.split()[:5] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"], nodes.stderr
    assert [node_name, "Unknown", "<none>"] in [line.split()[:3] for line in nodes.stdout.splitlines()]

    single = kubectl("get", "pod", "web")  # one object, as a one-row Table
    assert single.stdout.splitlines()[1].split()[:3] == ["web", "0/1", "Pending"], single.stderr
    namespaces = kubectl("get", "namespaces")
    assert {"default", namespace} <= set(namespaces.stdout.split()) and "deployments.apps" not in namespaces.stderr
    assert kubectl("get", "deployments", "-A").returncode == 0

    missing = kubectl("get", "pod", "nope")
    assert missing.returncode == 1
    assert 'Error from server (NotFound): pods "nope" not found' in missing.stderr


def test_rbac_applies_to_the_person_behind_the_token(cluster, settings, gateway, tmp_path):
    as_person(settings, "bob")  # bob's broker user, no RoleBinding
    kubectl = kubectl_for(tmp_path, *gateway, token_of(settings, "bob"))
    refused = kubectl("get", "pods")
    assert refused.returncode == 1
    assert "Error from server (Forbidden)" in refused.stderr, refused.stderr


def test_a_wrong_token_is_unauthorized(cluster, settings, gateway, tmp_path):
    kubectl = kubectl_for(tmp_path, *gateway, f"{settings.amqp_user}:not-the-password")
    refused = kubectl("get", "pods")
    assert refused.returncode == 1
    # kubectl >= 1.27 reads discovery's 401 without its Status body, as against kube-apiserver:
    # "(the server has asked for the client to provide credentials)"; older ones print "(Unauthorized)"
    assert "error: You must be logged in to the server (" in refused.stderr, refused.stderr

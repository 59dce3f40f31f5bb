"""The documentation's images and manifests on real containers: every image README, docs/ and examples/
name is one kubus builds (runtime/images), nginx serves its default page on port 80 and logs to stdout
as Docker's image does, and every example manifest's pods run on a cri node."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from runtime.images import recipes, references
from tests.integration.cri.test_cri_pods import state, status
from testkit.waiting import wait_until
from testkit.webserver import body_of

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml")) + sorted((ROOT / "examples" / "kubernetes-docs").glob("*.yaml"))
NAMED = re.compile(r"""--image[= ]([\w./:-]+)|^\s*-?\s*image:\s*([\w./:-]+)|"image":\s*"([\w./:-]+)"|"""
                   r"""set image \S+ [\w-]+=([\w./:-]+)""", re.MULTILINE)


def named_images() -> dict[str, str]:
    """image reference → the file naming it, over README, docs/ and examples/ (the invalid ones too)."""
    found = {}
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("examples/**/*.yaml"))]:
        for groups in NAMED.findall(path.read_text()):
            found[next(filter(None, groups))] = path.name
    return found


def test_every_image_the_documentation_names_is_one_kubus_builds():
    if recipes.unavailable():
        pytest.skip("; ".join(recipes.unavailable()))
    built = {ref for recipe in recipes.recipes() for ref in recipe.references}
    named = named_images()
    assert "library/nginx:1.22" in built and "nginx:1.22" in named, (built, named)
    missing = {ref: where for ref, where in named.items() if str(references.parse(ref)) not in built}
    assert not missing, f"named in the docs but not built: {missing}"


def test_nginx_serves_its_default_page_on_port_80_and_logs_to_stdout(cri_cluster):
    cri_cluster.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {
        "terminationGracePeriodSeconds": 5,
        "containers": [{"name": "nginx", "image": "nginx:1.22", "ports": [{"containerPort": 80}]}]}})
    wait_until(lambda: state(cri_cluster, "web", "running"), 60, what="nginx running")
    page = wait_until(lambda: body_of(f"http://{status(cri_cluster, 'web')['podIP']}/"), 30, what="nginx answering")
    assert "<title>Welcome to nginx!</title>" in page
    missing = body_of(f"http://{status(cri_cluster, 'web')['podIP']}/nothing-here")
    assert missing is None
    logged = lambda: (text := cri_cluster.logs("web")["text"]) and all(  # noqa: E731
        line in text for line in ('"GET / HTTP/1.1" 200', '"GET /nothing-here HTTP/1.1" 404', "open() ")) and text
    wait_until(logged, 10, what="both requests on stdout and the 404's open() on stderr")  # as nginx writes them


def _apply_examples(client) -> dict[str, int]:
    """Every document of the example manifests created; namespace → how many pods they ask for."""
    wanted: dict[str, int] = {}
    for path in EXAMPLES:
        for doc in filter(None, yaml.safe_load_all(path.read_text())):
            namespace = (doc.get("metadata") or {}).get("namespace", "default")
            client.create(doc)
            count = 1 if doc["kind"] == "Pod" else (doc.get("spec") or {}).get("replicas", 0)
            if doc["kind"] in ("Pod", "Deployment", "ReplicaSet"):
                wanted[namespace] = wanted.get(namespace, 0) + count
    return wanted


def _running(client, namespace: str) -> int:
    pods = client.list("Pod", namespace).items
    return sum(1 for p in pods if (p.get("status") or {}).get("phase") == "Running"
               and all("running" in (c.get("state") or {}) for c in p["status"].get("containerStatuses") or [{}]))


def test_every_example_manifests_pods_run_on_a_cri_node(cri_cluster, procs):
    procs.start("actors.controllers", "replicaset", label="rs-controller")
    procs.start("actors.controllers", "deployment", label="deploy-controller")
    wanted = _apply_examples(cri_cluster)
    assert wanted == {"default": 1, "shop": 9}, wanted
    for namespace, count in wanted.items():
        wait_until(lambda: _running(cri_cluster, namespace) == count, 90, what=f"{count} pods running in {namespace}")

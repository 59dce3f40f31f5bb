"""No request exhausts a shared actor: a JSON patch whose copies double the object (CVE-2019-1002100),
through the apiserver and through the gateway's `scale` subresource, and snapshots of tens of
thousands of keys against the store. Each is refused or contained — the memory it costs the actor
measured from the actor's own peak (VmHWM) or resident size — and the cluster serves afterwards."""
from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from api.status import StatusError
from testkit.people import token_of
from tests.e2e.conftest import running_gateway

COPIES = 19  # 2**19 copies of an 86-byte list: ~45 MB of JSON, ~150 MB of Python objects, before the bound
MiB = 1 << 20


def doubling(path: str, copies: int = COPIES) -> list[dict]:
    """Copy a list into itself `copies` times: each copy doubles it (1.7 KB of request)."""
    ops = [{"op": "add", "path": path, "value": {"l": [["y" * 80]]}}]
    return ops + [{"op": "copy", "from": f"{path}/l", "path": f"{path}/l/-"}] * copies


def memory(proc, field: str) -> int:
    """A process's `VmHWM` (peak resident) or `VmRSS` (resident), in bytes."""
    for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} for pid {proc.pid}")


def peak_reset(proc) -> None:
    """Start a process's `VmHWM` again from its resident size (a shared plane's actor has served before)."""
    Path(f"/proc/{proc.pid}/clear_refs").write_text("5")


def actor(procs, module: str):
    return next(p for p in procs.procs if module in p.args)


def alive(procs) -> None:
    assert [p.poll() for p in procs.procs] == [None] * len(procs.procs), "an actor process exited"


def refused_copy(err: StatusError, limit: int) -> None:
    assert (err.reason, err.code) == ("Invalid", 422), err
    assert err.causes[0].message.startswith("Unable to complete the copy, the accumulated size increase of copy is ")
    assert err.causes[0].message.endswith(f", exceeding the limit {limit}")


VICTIM = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "victim"}}


# ---- JSON patch copy amplification ------------------------------------------------------------------
@pytest.mark.shared_plane
def test_a_doubling_json_patch_is_refused_by_the_apiserver_while_applying(cluster, procs, settings):
    cluster.create(VICTIM)
    apiserver = actor(procs, "actors.apiserver")
    peak_reset(apiserver)
    before = memory(apiserver, "VmHWM")
    with pytest.raises(StatusError) as refused:
        cluster.patch("ServiceAccount", "victim", doubling("/metadata/annotations"), patch_type="json")
    grown = memory(apiserver, "VmHWM") - before
    assert grown < 32 * MiB, f"the apiserver's peak grew {grown >> 20} MiB for one 1.7 KB patch"
    refused_copy(refused.value, settings.max_object_bytes)
    alive(procs)
    assert "annotations" not in cluster.get("ServiceAccount", "victim")["metadata"]  # nothing written
    patched = cluster.patch("ServiceAccount", "victim", {"metadata": {"labels": {"after": "yes"}}})
    assert patched["metadata"]["labels"] == {"after": "yes"}


def _deployment(name: str) -> dict:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}


def _patch_scale(url: str, ca, token: str, name: str, body, content_type: str) -> tuple[int, dict]:
    request = urllib.request.Request(f"{url}/apis/apps/v1/namespaces/default/deployments/{name}/scale",
                                     data=json.dumps(body).encode(), method="PATCH",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, context=ssl.create_default_context(cafile=str(ca)), timeout=60) as got:
            return got.status, json.loads(got.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_a_doubling_json_patch_of_scale_is_refused_by_the_gateway(cluster, procs, settings, tmp_path):
    """The gateway applies a `scale` patch itself (to the Scale it makes of the parent)."""
    cluster.create(_deployment("web"))
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        token = token_of(settings, "admin")
        code, status = _patch_scale(url, ca, token, "web", doubling("/metadata/annotations"),
                                    "application/json-patch+json")
        assert (code, status.get("reason")) == (422, "Invalid"), str(status)[:300]
        assert status["details"]["causes"][0]["message"].endswith(
            f", exceeding the limit {settings.max_object_bytes}")
        code, scale = _patch_scale(url, ca, token, "web", {"spec": {"replicas": 3}}, "application/merge-patch+json")
        assert (code, scale["spec"]["replicas"]) == (200, 3)
    alive(procs)
    assert cluster.get("Deployment", "web", "default")["spec"]["replicas"] == 3


# ---- snapshots: keys a client sends build the store's matchers ---------------------------------------
MAX_KEYS = 25_000


@pytest.mark.shared_plane
def test_a_snapshot_of_too_many_keys_is_400(cluster, procs):
    with pytest.raises(StatusError) as refused:
        cluster.snapshot([f"pod.default.node-{i}" for i in range(MAX_KEYS + 1)])
    assert (refused.value.reason, refused.value.code) == ("BadRequest", 400)
    assert refused.value.causes[0].field == "options.keys"
    assert refused.value.causes[0].message == f"Too many: {MAX_KEYS + 1}: must have at most {MAX_KEYS} items"
    alive(procs)
    assert cluster.snapshot(["namespace.#"]).items


@pytest.mark.shared_plane
def test_snapshots_of_tens_of_thousands_of_keys_leave_the_store_no_bigger(cluster, procs):
    """Each set of keys used to be kept (1,024 of them) after its snapshot: ~9 MB a request here."""
    store = actor(procs, "store")
    cluster.snapshot([f"pod.default.warm-{i}" for i in range(MAX_KEYS)])  # the store's allocator, warmed
    before = memory(store, "VmRSS")
    for attempt in range(16):
        assert cluster.snapshot([f"pod.default.n{attempt}-{i}" for i in range(MAX_KEYS)]).items == []
    grown = memory(store, "VmRSS") - before
    assert grown < 48 * MiB, f"the store grew {grown >> 20} MiB for 16 snapshots"
    alive(procs)
    assert cluster.snapshot(["namespace.#"]).items


def _pod(name: str, node: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "busybox"}]}}


@pytest.mark.shared_plane
def test_a_run_of_hashes_in_a_snapshot_key_costs_the_store_nothing_more(cluster, procs):
    """`#.#.…` tried every split of every object's key: 126 of them took the store 5 s a distinct
    key, so one snapshot request (of someone allowed to list everything) stalled the sole writer."""
    for i in range(8):
        cluster.create(_pod(f"p{i}", f"node-{i}"))
    key = "#." * 126 + "zz"
    assert cluster.snapshot([key]).items == []  # answered, within the client's timeout (10 s)
    alive(procs)
    assert len(cluster.snapshot([f"pod.{cluster.namespace}.#"]).items) == 8

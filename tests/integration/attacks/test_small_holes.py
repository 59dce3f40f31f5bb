"""Three smaller holes: a ServiceAccount token for a pod that runs as no account, DNS over TCP held
open by idle connections, and an EndpointSlice of another address family freezing every Service's
forwarding rules."""
from __future__ import annotations

import pytest

from api.serviceaccounts import MIRROR_ANNOTATION
from api.status import StatusError
from runtime.client import Client


@pytest.fixture
def node_1(cluster, settings):
    """A client that connects as the kubelet of node-1 (its broker user, `system:node:node-1`)."""
    from cli.bootstrap import Account, ensure_account
    from config.credentials import actor_url, read_secret

    secret = read_secret(settings)
    ensure_account(settings, secret, Account("node", "node-1"))
    kubelet = Client(settings.with_(amqp_url=actor_url(settings, secret, "node", "node-1")), name="test node-1")
    yield kubelet
    kubelet.close()


def _pod(name: str, ns: str, **meta) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, **meta},
            "spec": {"nodeName": "node-1", "containers": [{"name": "app", "image": "busybox"}]}}


def _token(kubelet: Client, ns: str, account: str, pod: str) -> dict:
    return kubelet.request("token", "ServiceAccount", namespace=ns, name=account, options={"pod": pod})["object"]


def test_a_node_gets_no_token_for_a_pod_that_runs_as_no_account(cluster, node_1):
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "victim"}})
    cluster.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default", "namespace": "victim"}})
    # a mirror pod in the namespace, bound to node-1 (made by the admin here: the apiserver does not yet
    # let a kubelet make its own), runs as no account
    mirror = cluster.create(_pod("static-web", "victim", annotations={MIRROR_ANNOTATION: "node-1"}))
    assert "serviceAccountName" not in mirror["spec"]  # a mirror pod runs as no account
    with pytest.raises(StatusError) as refused:
        _token(node_1, "victim", "default", "static-web")
    assert (refused.value.reason, refused.value.code) == ("BadRequest", 400)
    assert refused.value.message == ('cannot bind token for serviceaccount "default" to pod running with different '
                                     'serviceaccount name.')
    # contained, and still served: a pod admitted in the namespace runs as `default`, and gets its token
    cluster.create(_pod("web", "victim"))
    token = _token(node_1, "victim", "default", "web")
    assert token["status"]["user"].endswith("victim.default") and token["status"]["token"]

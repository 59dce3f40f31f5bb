"""imagePullSecrets on a cri node: an image of a registry that asks for logins (a second local registry,
htpasswd) pulls with the credentials of the pod's `kubernetes.io/dockerconfigjson` Secret (what
`kubectl create secret docker-registry` makes), and without them is ErrImagePull, then ImagePullBackOff."""
from __future__ import annotations

import pytest

from cli.verbs_config import docker_config, secret_manifest
from api.config import encode_bytes
from tests.integration.cri.test_cri_pods import container, pod, state
from testkit.registry import private_registry
from testkit.waiting import wait_until

LOGIN = ("puller", "s3cret-pull")


@pytest.fixture
def private(procs, tmp_path, request):
    """The registry that asks for logins (its host:port), and a cri cluster whose containerd pulls from it."""
    with private_registry(tmp_path / "private", LOGIN) as url:
        procs.env["KUBUS_REGISTRY_HOSTS"] = url
        yield url.split("://", 1)[1], request.getfixturevalue("cri_cluster")


def test_a_pull_secret_lets_the_image_of_a_registry_with_logins_run(private):
    host, client = private
    client.create(secret_manifest("regcred", "kubernetes.io/dockerconfigjson",
                                  {".dockerconfigjson": encode_bytes(docker_config(host, *LOGIN, ""))}))
    image = f"{host}/private/busybox:1.35"
    with_secret = pod("with-secret", "echo pulled", image=image)
    with_secret["spec"]["imagePullSecrets"] = [{"name": "regcred"}]
    client.create(with_secret)
    # Always: with IfNotPresent the image the other pod pulled would do (as in Kubernetes before 1.33's
    # KubeletEnsureSecretPulledImages)
    client.create(pod("without", "echo pulled", image=image, imagePullPolicy="Always"))
    done = wait_until(lambda: state(client, "with-secret", "terminated"), 60, what="with-secret to run")
    assert (done["exitCode"], done["reason"]) == (0, "Completed"), done
    seen: dict[str, str] = {}
    wait_until(lambda: seen.setdefault(state(client, "without", "waiting").get("reason", ""),
                                       state(client, "without", "waiting").get("message", "")) is not None
               and {"ErrImagePull", "ImagePullBackOff"} <= set(seen), 60, what="without: ErrImagePull, then back-off")
    assert "401 Unauthorized" in seen["ErrImagePull"], seen
    assert container(client, "without")["restartCount"] == 0 and not state(client, "without", "terminated")

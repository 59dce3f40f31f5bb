"""Image references, pull policy, pull back-off and the kubelet's image messages (k8s-containers.md §4.2)."""
from __future__ import annotations

import pytest
from google.protobuf.json_format import ParseDict

from actors.kubelet.cri import images
from actors.kubelet.cri.api import cri_pb2
from actors.kubelet.runtimes.base import StartError

HEX64 = "a" * 64


@pytest.mark.parametrize("image, expected", [
    pytest.param("busybox", "busybox:latest", id="no-tag-gets-latest"),
    pytest.param("busybox:1.35", "busybox:1.35", id="tag-kept"),
    pytest.param(f"busybox@sha256:{HEX64}", f"busybox@sha256:{HEX64}", id="digest-kept"),
    pytest.param(f"busybox:1.35@sha256:{HEX64}", f"busybox:1.35@sha256:{HEX64}", id="tag-and-digest"),
    pytest.param("127.0.0.1:5000/busybox", "127.0.0.1:5000/busybox:latest", id="registry-with-port"),
    pytest.param("localhost/team/app:v1", "localhost/team/app:v1", id="localhost-domain"),
    pytest.param("Registry.Example.com/app", "Registry.Example.com/app:latest", id="uppercase-domain-ok"),
    pytest.param("busybox:V1.x_y-z", "busybox:V1.x_y-z", id="tag-characters"),
    pytest.param("docker.io/library/busybox:latest", "docker.io/library/busybox:latest", id="fully-qualified"),
])
def test_reference(image, expected):
    assert images.reference(image) == expected
    spec = ParseDict({"image": images.reference(image)}, cri_pb2.ImageSpec())
    assert spec.image == expected


@pytest.mark.parametrize("image, error", [
    pytest.param("BusyBox", "invalid reference format: repository name (library/BusyBox) must be lowercase",
                 id="uppercase-repository"),
    pytest.param("busybox:", "invalid reference format", id="empty-tag"),
    pytest.param("busy box", "invalid reference format", id="space"),
    pytest.param("busybox@sha256:abc", "invalid reference format", id="short-digest"),
    pytest.param("busybox@sha256:" + "a" * 32, "invalid checksum digest length", id="digest-length"),
    pytest.param("busybox@md5:" + "a" * 32, "unsupported digest algorithm", id="digest-algorithm"),
    pytest.param(HEX64, f"invalid repository name ({HEX64}), cannot specify 64-byte hexadecimal strings",
                 id="image-id"),
    pytest.param("r.io/" + "a" * 260, "repository name must not be more than 255 characters", id="too-long"),
])
def test_invalid_image_name(image, error):  # §4.2: InvalidImageName with the kubelet's wording
    with pytest.raises(StartError) as caught:
        images.reference(image)
    assert caught.value.reason == "InvalidImageName"
    assert caught.value.message == (f'Failed to apply default image tag "{image}": '
                                    f'couldn\'t parse image name "{image}": {error}')


@pytest.mark.parametrize("container, policy", [
    pytest.param({"image": "busybox"}, "Always", id="no-tag"),
    pytest.param({"image": "busybox:latest"}, "Always", id="latest"),
    pytest.param({"image": "busybox:1.35"}, "IfNotPresent", id="tag"),
    pytest.param({"image": f"busybox@sha256:{HEX64}"}, "IfNotPresent", id="digest"),
    pytest.param({"image": f"busybox:latest@sha256:{HEX64}"}, "Always", id="latest-and-digest"),
    pytest.param({"image": "busybox", "imagePullPolicy": "Never"}, "Never", id="given"),
    pytest.param({"image": "Bad Name"}, "IfNotPresent", id="unparsable"),
])
def test_pull_policy(container, policy):
    assert images.pull_policy(container) == policy


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_backoff_doubles_to_the_cap():  # flowcontrol.NewBackOff(10s, 300s)
    clock = Clock()
    backoff = images.PullBackoff(clock)
    key = images.PullBackoff.key("uid-1", "busybox:9")
    assert key == "uid-1_busybox:9" and not backoff.in_backoff(key)
    delays = []
    for _ in range(8):
        delays.append(backoff.failed(key))
        clock.now += delays[-1]
    assert delays == [10, 20, 40, 80, 160, 300, 300, 300]


@pytest.mark.parametrize("after, inside", [
    pytest.param(0, True, id="at-failure"), pytest.param(9.9, True, id="just-inside"),
    pytest.param(10, False, id="window-over"), pytest.param(700, False, id="expired"),
])
def test_in_backoff_window(after, inside):
    clock = Clock()
    backoff = images.PullBackoff(clock)
    backoff.failed("k")
    clock.now += after
    assert backoff.in_backoff("k") is inside


@pytest.mark.parametrize("idle, next_delay", [
    pytest.param(600, 20, id="idle-600s-still-doubles"), pytest.param(600.5, 10, id="idle-over-600s-restarts"),
])
def test_idle_entry_starts_again(idle, next_delay):
    clock = Clock()
    backoff = images.PullBackoff(clock)
    backoff.failed("k")
    clock.now += idle
    assert backoff.failed("k") == next_delay


def test_success_forgets_the_key():
    clock = Clock()
    backoff = images.PullBackoff(clock)
    backoff.failed("k"), backoff.failed("k")
    backoff.succeeded("k")
    assert not backoff.in_backoff("k") and backoff.failed("k") == 10


@pytest.mark.parametrize("text, expected", [
    pytest.param(images.pulling("busybox:1.35"), 'Pulling image "busybox:1.35"', id="pulling"),
    pytest.param(images.already_present("busybox:1.35"),
                 'Container image "busybox:1.35" already present on machine', id="present"),
    pytest.param(images.pulled("busybox:1.35", 0.8127, 1.5009, 2048),
                 'Successfully pulled image "busybox:1.35" in 812ms (1.5s including waiting). Image size: 2048 bytes.',
                 id="pulled"),
    pytest.param(images.failed_to_pull("x:1", "rpc error: not found"), 'Failed to pull image "x:1": rpc error: not found',
                 id="failed"),
    pytest.param(images.back_off("x:1"), 'Back-off pulling image "x:1"', id="backoff"),
    pytest.param(images.never_pull("x:1"), 'Container image "x:1" is not present with pull policy of Never',
                 id="never"),
])
def test_messages(text, expected):
    assert text == expected


@pytest.mark.parametrize("error, reason, message", [
    pytest.param("failed to resolve", "ErrImagePull", "failed to resolve", id="plain"),
    pytest.param("RegistryUnavailable: down", "RegistryUnavailable",
                 "image pull failed for x:1 because the registry is unavailable: down", id="registry"),
    pytest.param("SignatureValidationFailed", "SignatureValidationFailed",
                 "image pull failed for x:1 because the signature validation failed", id="signature"),
])
def test_pull_error(error, reason, message):
    err = images.pull_error("x:1", error)
    assert (err.reason, err.message) == (reason, message)


@pytest.mark.parametrize("seconds, text", [
    pytest.param(0, "0s", id="zero"), pytest.param(0.0004, "0s", id="under-a-ms"),
    pytest.param(0.5129, "512ms", id="ms"), pytest.param(1, "1s", id="second"),
    pytest.param(61.25, "1m1.25s", id="minute"), pytest.param(3600, "1h0m0s", id="hour"),
    pytest.param(3723.004, "1h2m3.004s", id="all"),
])
def test_go_duration(seconds, text):
    assert images.go_duration(seconds) == text


@pytest.mark.parametrize("policy, present, backing_off, outcome", [
    pytest.param("IfNotPresent", True, True, ("Normal", "Pulled", 'Container image "x:1" already present on machine'),
                 id="present"),
    pytest.param("Never", True, False, ("Normal", "Pulled", 'Container image "x:1" already present on machine'),
                 id="never-present"),
    pytest.param("Never", False, False, ("ErrImageNeverPull",
                                         'Container image "x:1" is not present with pull policy of Never'),
                 id="never-absent"),
    pytest.param("IfNotPresent", False, True, ("ImagePullBackOff", 'Back-off pulling image "x:1"'), id="backoff"),
    pytest.param("Always", True, True, ("ImagePullBackOff", 'Back-off pulling image "x:1"'), id="always-backoff"),
    pytest.param("Always", True, False, ("Normal", "Pulling", 'Pulling image "x:1"'), id="always-pulls"),
    pytest.param("IfNotPresent", False, False, ("Normal", "Pulling", 'Pulling image "x:1"'), id="absent-pulls"),
])
def test_plan_pull(policy, present, backing_off, outcome):  # §4.2 EnsureImageExists
    try:
        event = images.plan_pull("x:1", policy, present, backing_off)
    except StartError as err:
        assert (err.reason, err.message) == outcome
    else:
        assert (event.type, event.reason, event.message) == outcome

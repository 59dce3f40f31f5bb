"""Images as the kubelet names and pulls them (k8s-containers.md §4.2): the reference with its default
tag, the default pull policy, the per-image pull back-off, and the events' and reasons' wording.

The grammar is distribution/reference's (what `ParseNormalizedNamed` accepts), with its error texts;
the reference sent to the CRI stays short (`busybox:latest`, not `docker.io/library/busybox:latest`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from actors.kubelet.runtimes.base import StartError

# ---- distribution/reference's grammar (regexp.go), anchored --------------------------------------
_ALNUM = r"[a-z0-9]+"
_PATH = rf"{_ALNUM}(?:(?:[._]|__|[-]+){_ALNUM})*"
_DOMAIN_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = rf"(?:{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*|\[(?:[a-fA-F0-9:]+)\])"
_NAME = rf"(?:{_HOST}(?::[0-9]+)?/)?{_PATH}(?:/{_PATH})*"
_TAG = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE = re.compile(rf"^({_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?$")
_IDENTIFIER = re.compile(r"^[a-f0-9]{64}$")
_DIGEST_HEX = {"sha256": 64, "sha384": 96, "sha512": 128}
NAME_TOTAL_LENGTH_MAX = 255
DEFAULT_DOMAIN, LEGACY_DOMAIN, OFFICIAL_PREFIX = "docker.io", "index.docker.io", "library/"


class ImageNameError(ValueError):
    """A name distribution/reference refuses; the text is its error's."""


def _split_domain(name: str) -> tuple[str, str]:
    """splitDockerDomain: `busybox` → (docker.io, library/busybox)."""
    first, slash, rest = name.partition("/")
    if not slash:
        return DEFAULT_DOMAIN, OFFICIAL_PREFIX + name
    if first == "localhost" or any(c in first for c in ".:") or first.lower() != first:
        domain, remote = first, rest
    elif first == LEGACY_DOMAIN:
        domain, remote = DEFAULT_DOMAIN, rest
    else:
        domain, remote = DEFAULT_DOMAIN, name
    if domain == DEFAULT_DOMAIN and "/" not in remote:
        remote = OFFICIAL_PREFIX + remote
    return domain, remote


def _parse(text: str) -> tuple[str, str, str]:
    """reference.Parse: (name, tag, digest)."""
    match = _REFERENCE.match(text)
    if match is None:
        if not text:
            raise ImageNameError("repository name must have at least one component")
        if _REFERENCE.match(text.lower()):
            raise ImageNameError("repository name must be lowercase")
        raise ImageNameError("invalid reference format")
    name, tag, digest = match.group(1), match.group(2) or "", match.group(3) or ""
    if len(name) > NAME_TOTAL_LENGTH_MAX:
        raise ImageNameError(f"repository name must not be more than {NAME_TOTAL_LENGTH_MAX} characters")
    if digest:
        algorithm, _, hexa = digest.partition(":")
        if algorithm not in _DIGEST_HEX:
            raise ImageNameError("unsupported digest algorithm")
        if len(hexa) != _DIGEST_HEX[algorithm]:
            raise ImageNameError("invalid checksum digest length")
    return name, tag, digest


def parse_normalized(image: str) -> tuple[str, str, str]:
    """reference.ParseNormalizedNamed: (full name, tag, digest) or ImageNameError."""
    if _IDENTIFIER.match(image):
        raise ImageNameError(f"invalid repository name ({image}), cannot specify 64-byte hexadecimal strings")
    domain, remainder = _split_domain(image)
    remote = remainder.split(":", 1)[0]
    if remote.lower() != remote:
        raise ImageNameError(f"invalid reference format: repository name ({remote}) must be lowercase")
    return _parse(f"{domain}/{remainder}")


def parse_image_name(image: str) -> tuple[str, str, str]:
    """parsers.ParseImageName: (repository, tag, digest), the tag `latest` when neither is given."""
    try:
        name, tag, digest = parse_normalized(image)
    except ImageNameError as err:
        raise ImageNameError(f"couldn't parse image name {_q(image)}: {err}") from None
    return name, tag or ("" if digest else "latest"), digest


def reference(image: str) -> str:
    """The image as the kubelet asks the runtime for it: `:latest` added when it has no tag and no
    digest (applyDefaultImageTag). A name that does not parse is InvalidImageName."""
    try:
        _, tag, digest = parse_image_name(image)
    except ImageNameError as err:
        raise StartError(INVALID_IMAGE_NAME, f"Failed to apply default image tag {_q(image)}: {err}") from None
    if not digest and tag and not image.endswith(":" + tag):
        return f"{image}:{tag}"
    return image


def pull_policy(container: dict) -> str:
    """The container's imagePullPolicy, else the API's default: Always for `latest`, else IfNotPresent."""
    if container.get("imagePullPolicy"):
        return container["imagePullPolicy"]
    try:
        _, tag, _ = parse_image_name(container.get("image") or "")
    except ImageNameError:
        tag = ""
    return "Always" if tag == "latest" else "IfNotPresent"


# ---- the pull back-off: flowcontrol.NewBackOff(10s, 300s), jitter 0 -------------------------------
class PullBackoff:
    """Per `<podUID>_<image>` key: each failure doubles the delay from 10 s up to 300 s; an entry not
    updated for more than twice the max (600 s) starts again at 10 s. `clock` returns seconds."""

    def __init__(self, clock: Callable[[], float], initial: float = 10.0, maximum: float = 300.0):
        self.clock, self.initial, self.maximum = clock, initial, maximum
        self.entries: dict[str, tuple[float, float]] = {}  # key -> (delay, last update)

    @staticmethod
    def key(pod_uid: str, image: str) -> str:
        return f"{pod_uid}_{image}"

    def _expired(self, now: float, updated: float) -> bool:
        return now - updated > 2 * self.maximum

    def in_backoff(self, key: str) -> bool:
        """IsInBackOffSinceUpdate(key, now)."""
        entry, now = self.entries.get(key), self.clock()
        if entry is None or self._expired(now, entry[1]):
            return False
        return now - entry[1] < entry[0]

    def failed(self, key: str) -> float:
        """Next(key, now): the delay before the next pull may be tried."""
        entry, now = self.entries.get(key), self.clock()
        if entry is None or self._expired(now, entry[1]):
            delay = self.initial
        else:
            delay = min(entry[0] * 2, self.maximum)
        self.entries[key] = (delay, now)
        return delay

    def succeeded(self, key: str) -> None:
        """A pull worked: the kubelet GCs expired entries (it keeps this one, which then expires);
        kubus forgets the key at once, so a later failure starts again at 10 s."""
        self.entries.pop(key, None)
        now = self.clock()
        for other, (_, updated) in list(self.entries.items()):
            if self._expired(now, updated):
                del self.entries[other]


# ---- reasons and messages (image_manager.go, images/types.go) -------------------------------------
INVALID_IMAGE_NAME, ERR_IMAGE_PULL, IMAGE_PULL_BACKOFF = "InvalidImageName", "ErrImagePull", "ImagePullBackOff"
ERR_IMAGE_NEVER_PULL, IMAGE_INSPECT_ERROR = "ErrImageNeverPull", "ImageInspectError"
REGISTRY_UNAVAILABLE, SIGNATURE_VALIDATION_FAILED = "RegistryUnavailable", "SignatureValidationFailed"
PULLING, PULLED, FAILED, BACKOFF = "Pulling", "Pulled", "Failed", "BackOff"  # event reasons
# the events of a failure: Warning Failed (failed_to_pull), then Normal BackOff (back_off) while backing off


def pulling(image: str) -> str:
    return f"Pulling image {_q(image)}"


def already_present(image: str) -> str:
    return f"Container image {_q(image)} already present on machine"


def pulled(image: str, pull_seconds: float, total_seconds: float, size: int) -> str:
    return (f"Successfully pulled image {_q(image)} in {go_duration(pull_seconds)} "
            f"({go_duration(total_seconds)} including waiting). Image size: {size} bytes.")


def failed_to_pull(image: str, error: str) -> str:
    return f"Failed to pull image {_q(image)}: {error}"


def back_off(image: str) -> str:
    return f"Back-off pulling image {_q(image)}"


def never_pull(image: str) -> str:
    return f"Container image {_q(image)} is not present with pull policy of Never"


@dataclass(frozen=True)
class Event:
    type: str  # Normal or Warning
    reason: str
    message: str


def plan_pull(image: str, policy: str, present: bool, backing_off: bool) -> Event:
    """EnsureImageExists up to the pull: the event to record when the image is used as it is (Pulled)
    or is to be pulled now (Pulling); Never without the image and a pull in back-off are StartErrors
    (ErrImageNeverPull, ImagePullBackOff). `image` is the spec's, as the kubelet's messages show it."""
    if policy == "Never" or (policy == "IfNotPresent" and present):
        if present:
            return Event("Normal", PULLED, already_present(image))
        raise StartError(ERR_IMAGE_NEVER_PULL, never_pull(image))
    if backing_off:
        raise StartError(IMAGE_PULL_BACKOFF, back_off(image))
    return Event("Normal", PULLING, pulling(image))


def pull_error(image: str, error: str) -> StartError:
    """evalCRIPullErr: the waiting reason and message for a runtime's pull error."""
    for reason, why in ((REGISTRY_UNAVAILABLE, "the registry is unavailable"),
                        (SIGNATURE_VALIDATION_FAILED, "the signature validation failed")):
        if error.startswith(reason):
            return StartError(reason, f"image pull failed for {image} because {why}{error[len(reason):]}")
    return StartError(ERR_IMAGE_PULL, error)


def go_duration(seconds: float) -> str:
    """Go's time.Duration.String() of a duration truncated to milliseconds (`512ms`, `1.5s`, `2m3.25s`)."""
    ms = int(round(seconds * 1e6)) // 1000
    if ms == 0:
        return "0s"
    sign, ms = ("-" if ms < 0 else ""), abs(ms)
    if ms < 1000:
        return f"{sign}{ms}ms"
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs = f"{rest // 1000}.{rest % 1000:03d}".rstrip("0").rstrip(".")
    head = f"{hours}h{minutes}m" if hours else (f"{minutes}m" if minutes else "")
    return f"{sign}{head}{secs}s"


def _q(text: str) -> str:
    """Go's %q of a printable string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

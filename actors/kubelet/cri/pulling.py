"""Getting a container's image onto the node as the kubelet does (k8s-containers.md §4.2): the
reference with its default tag, the pull policy, the per-pod-and-image back-off, and the waiting
reasons a failure shows (InvalidImageName, ErrImageNeverPull, ErrImagePull, ImagePullBackOff)."""
from __future__ import annotations

import structlog

from actors.kubelet.cri import images
from actors.kubelet.cri.keyring import Keyring
from actors.kubelet.cri.client import CRIError, RuntimeClient
from actors.kubelet.cri.api import cri_pb2 as pb
from actors.kubelet.runtimes.base import StartError

log = structlog.get_logger("kubelet")


class Puller:
    def __init__(self, client: RuntimeClient, backoff: images.PullBackoff):
        self.client, self.backoff = client, backoff

    def ensure(self, pod_uid: str, container: dict, keyring: Keyring | None = None) -> pb.Image:
        """The image, pulled if the policy asks (with each of the keyring's credentials for its
        repository in turn, or none when it has none); raises StartError with the kubelet's reason."""
        given = container.get("image") or ""
        reference = images.reference(given)
        policy = images.pull_policy(container)
        present = self._status(reference)
        if present is not None and policy != "Always":
            return present
        if policy == "Never":
            raise StartError("ErrImageNeverPull", images.never_pull(given))
        key = images.PullBackoff.key(pod_uid, given)
        if self.backoff.in_backoff(key):
            raise StartError("ImagePullBackOff", images.back_off(given))
        log.info("kubelet.pulling", image=given, pod_uid=pod_uid)
        error = self._pull(reference, keyring.lookup(images.parse_image_name(given)[0]) if keyring else [])
        if error:
            self.backoff.failed(key)
            log.info("kubelet.pull_failed", image=given, pod_uid=pod_uid, error=error[:300])
            raise images.pull_error(given, error)
        self.backoff.succeeded(key)
        pulled = self._status(reference)
        if pulled is None:
            raise StartError("ErrImagePull", f'image "{given}" vanished right after its pull')
        return pulled

    def _pull(self, reference: str, auths: list[dict]) -> str:
        """Pull with each credential until one works; the errors, as an aggregate's text, if none did."""
        errors: list[str] = []
        for auth in auths or [None]:
            try:
                self.client.pull(reference, auth)
                return ""
            except CRIError as exc:
                if exc.message not in errors:
                    errors.append(exc.message)
        return errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"

    def _status(self, reference: str) -> pb.Image | None:
        try:
            return self.client.image(reference)
        except CRIError as exc:
            raise StartError("ImageInspectError", f'Failed to inspect image "{reference}": {exc.message}') from None

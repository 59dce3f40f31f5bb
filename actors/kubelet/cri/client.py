"""A CRI v1 client: the runtime and image services over the runtime's unix socket (gRPC). Each call
has a deadline; a failure is a `CRIError` carrying gRPC's code and the runtime's message, which is
what the kubelet shows as a waiting reason's message."""
from __future__ import annotations

import json

import grpc
from google.protobuf import json_format

from actors.kubelet.cri.api import cri_pb2 as pb
from actors.kubelet.cri.api import cri_pb2_grpc

KUBELET_CRI_VERSION = "0.1.0"  # what the kubelet sends in Version (k8s-containers.md §1.1)
TIMEOUT_S = 10.0  # the kubelet's runtimeRequestTimeout is 2 min; a local containerd answers in ms
PULL_TIMEOUT_S = 300.0


class CRIError(Exception):
    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def not_found(self) -> bool:
        return self.code == grpc.StatusCode.NOT_FOUND


def message(dictionary: dict, kind: type):
    """A CRI message from a dict keyed by the proto's field names."""
    return json_format.ParseDict(dictionary, kind(), ignore_unknown_fields=False)


class RuntimeClient:
    def __init__(self, endpoint: str, timeout: float = TIMEOUT_S):
        target = endpoint if endpoint.startswith("unix:") else f"unix://{endpoint}"
        self.channel = grpc.insecure_channel(target, options=[("grpc.max_receive_message_length", 16 << 20),
                                                         # a restarted containerd is found again within 2 s
                                                         ("grpc.max_reconnect_backoff_ms", 2000)])
        self.runtime = cri_pb2_grpc.RuntimeServiceStub(self.channel)
        self.images = cri_pb2_grpc.ImageServiceStub(self.channel)
        self.timeout = timeout

    def close(self) -> None:
        self.channel.close()

    def _call(self, method, request, timeout: float | None = None):
        try:
            return method(request, timeout=timeout or self.timeout)
        except grpc.RpcError as exc:
            raise CRIError(exc.code(), exc.details() or str(exc.code())) from None

    # ---- the runtime ------------------------------------------------------------------------------
    def version(self) -> pb.VersionResponse:
        return self._call(self.runtime.Version, pb.VersionRequest(version=KUBELET_CRI_VERSION))

    def status(self) -> dict[str, pb.RuntimeCondition]:
        answer = self._call(self.runtime.Status, pb.StatusRequest())
        return {c.type: c for c in answer.status.conditions}

    def run_sandbox(self, config: dict) -> str:
        request = pb.RunPodSandboxRequest(config=message(config, pb.PodSandboxConfig))
        return self._call(self.runtime.RunPodSandbox, request, timeout=PULL_TIMEOUT_S).pod_sandbox_id

    def stop_sandbox(self, sandbox_id: str) -> None:
        self._call(self.runtime.StopPodSandbox, pb.PodSandboxIdRequest(pod_sandbox_id=sandbox_id), timeout=60)

    def remove_sandbox(self, sandbox_id: str) -> None:
        self._call(self.runtime.RemovePodSandbox, pb.PodSandboxIdRequest(pod_sandbox_id=sandbox_id), timeout=60)

    def sandbox_status(self, sandbox_id: str) -> pb.PodSandboxStatus:
        return self._call(self.runtime.PodSandboxStatus, pb.PodSandboxStatusRequest(pod_sandbox_id=sandbox_id)).status

    def sandbox_info(self, sandbox_id: str) -> dict:
        """The runtime's verbose information about a sandbox (containerd's: its `pid`, its spec, …)."""
        request = pb.PodSandboxStatusRequest(pod_sandbox_id=sandbox_id, verbose=True)
        info = self._call(self.runtime.PodSandboxStatus, request).info.get("info", "{}")
        return json.loads(info)

    def sandboxes(self, labels: dict[str, str] | None = None) -> list[pb.PodSandbox]:
        request = pb.ListPodSandboxRequest(filter=pb.PodSandboxFilter(label_selector=labels or {}))
        return list(self._call(self.runtime.ListPodSandbox, request).items)

    def create_container(self, sandbox_id: str, config: dict, sandbox_config: dict) -> str:
        request = pb.CreateContainerRequest(pod_sandbox_id=sandbox_id, config=message(config, pb.ContainerConfig),
                                            sandbox_config=message(sandbox_config, pb.PodSandboxConfig))
        return self._call(self.runtime.CreateContainer, request, timeout=60).container_id

    def start_container(self, container_id: str) -> None:
        self._call(self.runtime.StartContainer, pb.ContainerIdRequest(container_id=container_id), timeout=60)

    def stop_container(self, container_id: str, timeout_s: int) -> None:
        """TERM (or the image's StopSignal), KILL after `timeout_s` seconds; returns when it is gone."""
        request = pb.StopContainerRequest(container_id=container_id, timeout=timeout_s)
        self._call(self.runtime.StopContainer, request, timeout=timeout_s + 30)

    def remove_container(self, container_id: str) -> None:
        self._call(self.runtime.RemoveContainer, pb.ContainerIdRequest(container_id=container_id))

    def containers(self, labels: dict[str, str] | None = None, sandbox_id: str = "") -> list[pb.Container]:
        request = pb.ListContainersRequest(filter=pb.ContainerFilter(label_selector=labels or {},
                                                                     pod_sandbox_id=sandbox_id))
        return list(self._call(self.runtime.ListContainers, request).containers)

    def container_status(self, container_id: str) -> pb.ContainerStatus:
        return self._call(self.runtime.ContainerStatus, pb.ContainerStatusRequest(container_id=container_id)).status

    def reopen_log(self, container_id: str) -> None:
        self._call(self.runtime.ReopenContainerLog, pb.ContainerIdRequest(container_id=container_id))

    def exec_sync(self, container_id: str, command: list[str], timeout_s: int) -> pb.ExecSyncResponse:
        request = pb.ExecSyncRequest(container_id=container_id, cmd=command, timeout=timeout_s)
        return self._call(self.runtime.ExecSync, request, timeout=(timeout_s or 60) + 5)

    def exec_url(self, container_id: str, command: list[str], *, tty: bool, stdin: bool, stdout: bool,
                 stderr: bool) -> str:
        request = pb.ExecRequest(container_id=container_id, cmd=command, tty=tty, stdin=stdin, stdout=stdout,
                                 stderr=stderr)
        return self._call(self.runtime.Exec, request).url

    def attach_url(self, container_id: str, *, tty: bool, stdin: bool, stdout: bool, stderr: bool) -> str:
        request = pb.AttachRequest(container_id=container_id, tty=tty, stdin=stdin, stdout=stdout, stderr=stderr)
        return self._call(self.runtime.Attach, request).url

    def port_forward_url(self, sandbox_id: str, ports: list[int]) -> str:
        return self._call(self.runtime.PortForward, pb.PortForwardRequest(pod_sandbox_id=sandbox_id, port=ports)).url

    def stats(self, labels: dict[str, str] | None = None) -> list[pb.ContainerStats]:
        request = pb.ListContainerStatsRequest(filter=pb.ContainerStatsFilter(label_selector=labels or {}))
        return list(self._call(self.runtime.ListContainerStats, request).stats)

    # ---- images -----------------------------------------------------------------------------------
    def image(self, reference: str) -> pb.Image | None:
        """None when the runtime does not have it (containerd answers success with no image)."""
        answer = self._call(self.images.ImageStatus, pb.ImageStatusRequest(image=pb.ImageSpec(image=reference)))
        return answer.image if answer.HasField("image") else None

    def pull(self, reference: str, auth: dict | None = None) -> str:
        request = pb.PullImageRequest(image=pb.ImageSpec(image=reference),
                                      auth=message(auth, pb.AuthConfig) if auth else None)
        return self._call(self.images.PullImage, request, timeout=PULL_TIMEOUT_S).image_ref

    def remove_image(self, reference: str) -> None:
        self._call(self.images.RemoveImage, pb.RemoveImageRequest(image=pb.ImageSpec(image=reference)))

    def list_images(self) -> list[pb.Image]:
        return list(self._call(self.images.ListImages, pb.ListImagesRequest()).images)

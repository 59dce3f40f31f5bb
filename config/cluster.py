"""The cluster file: which actors to start, how many of each, (for kubelets) which nodes, and on a
RabbitMQ cluster which host each runs on: a host's actors connect to its own broker node first."""
from __future__ import annotations

import os
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

DEFAULT_FILE = Path(__file__).with_name("cluster.yaml")


class ActorSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][-a-z0-9]*$")
    module: str  # run as `python -m <module>`
    instances: int = Field(1, ge=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    host: str | None = None  # a key of the file's `hosts`


class NodeSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    runtime: str = "cri"  # process: host processes (a trusted developer's machine); simulated: no processes
    capacity: dict[str, str] = Field(default_factory=lambda: {"cpu": "4", "memory": "8Gi", "pods": "110"})
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[dict] = Field(default_factory=list)
    host: str | None = None  # where its kubelet runs


class HostSpec(BaseModel):
    """A machine of the control plane: `broker` is its own node, by place (1, 2, …) in KUBUS_AMQP_URL's
    list; `env` is what its actors share (each store its own KUBUS_DATA_DIR, for one)."""
    model_config = ConfigDict(extra="forbid")

    broker: int = Field(ge=1)
    env: dict[str, str] = Field(default_factory=dict)


class ClusterFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cluster: str | None = None
    actors: list[ActorSpec]
    nodes: list[NodeSpec] = Field(default_factory=list)
    hosts: dict[str, HostSpec] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _known_hosts(self) -> "ClusterFile":
        for where, placed in (("actors", self.actors), ("nodes", self.nodes)):
            for i, item in enumerate(placed):
                if item.host is not None and item.host not in self.hosts:
                    raise ValueError(f"{where}[{i}].host: Not found: {item.host!r} (hosts: {sorted(self.hosts)})")
        return self


def load_cluster(path: str | Path | None = None) -> ClusterFile:
    """The cluster file; KUBUS_NODE_RUNTIME, when set, is every node's runtime (`make demo` falls back
    to `process` where containerd cannot run)."""
    spec = ClusterFile.model_validate(yaml.safe_load(Path(path or DEFAULT_FILE).read_text()))
    runtime = os.environ.get("KUBUS_NODE_RUNTIME")
    if runtime:
        spec = spec.model_copy(update={"nodes": [n.model_copy(update={"runtime": runtime}) for n in spec.nodes]})
    return spec

"""The cluster file: which actors to start, how many of each, and (for kubelets) which nodes."""
from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

DEFAULT_FILE = Path(__file__).with_name("cluster.yaml")


class ActorSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][-a-z0-9]*$")
    module: str  # run as `python -m <module>`
    instances: int = Field(1, ge=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)


class NodeSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    runtime: str = "process"
    capacity: dict[str, str] = Field(default_factory=lambda: {"cpu": "4", "memory": "8Gi", "pods": "110"})
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[dict] = Field(default_factory=list)


class ClusterFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cluster: str | None = None
    actors: list[ActorSpec]
    nodes: list[NodeSpec] = Field(default_factory=list)


def load_cluster(path: str | Path | None = None) -> ClusterFile:
    return ClusterFile.model_validate(yaml.safe_load(Path(path or DEFAULT_FILE).read_text()))

"""The scheduler's configuration, shaped like KubeSchedulerConfiguration (v1)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

DEFAULT_FILE = Path(__file__).with_name("scheduler.yaml")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class PluginRef(_Model):
    name: str
    weight: int | None = Field(None, ge=1, le=100)


class PluginSet(_Model):
    enabled: list[PluginRef] = Field(default_factory=list)
    disabled: list[PluginRef] = Field(default_factory=list)


class Plugins(_Model):
    multiPoint: PluginSet = Field(default_factory=PluginSet)
    filter: PluginSet = Field(default_factory=PluginSet)
    score: PluginSet = Field(default_factory=PluginSet)


class PluginConfig(_Model):
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class Profile(_Model):
    schedulerName: str = "default-scheduler"
    percentageOfNodesToScore: int | None = Field(None, ge=0, le=100)
    plugins: Plugins = Field(default_factory=Plugins)
    pluginConfig: list[PluginConfig] = Field(default_factory=list)
    recordDecisions: bool = False  # write each decision's filter verdicts and scores to the pod

    def args(self, plugin: str) -> dict[str, Any]:
        return next((c.args for c in self.pluginConfig if c.name == plugin), {})


class SchedulerConfiguration(_Model):
    apiVersion: str = "kubescheduler.config.k8s.io/v1"
    kind: str = "KubeSchedulerConfiguration"
    percentageOfNodesToScore: int | None = Field(None, ge=0, le=100)
    podInitialBackoffSeconds: float = Field(1, gt=0)
    podMaxBackoffSeconds: float = Field(10, ge=0)
    profiles: list[Profile] = Field(default_factory=lambda: [Profile()])


def load_scheduler_config(path: str | Path | None = None) -> SchedulerConfiguration:
    path = path or os.environ.get("KUBUS_SCHEDULER_CONFIG") or DEFAULT_FILE
    return SchedulerConfiguration.model_validate(yaml.safe_load(Path(path).read_text()) or {})

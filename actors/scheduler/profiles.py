"""Profiles into frameworks: Kubernetes' default plugins and weights, then the profile's changes."""
from __future__ import annotations

import random
from typing import Callable

from actors.scheduler.framework import Framework, Plugin
from actors.scheduler.plugins.basic import NodeName, NodeUnschedulable
from actors.scheduler.plugins.fit import NodeResourcesBalancedAllocation, NodeResourcesFit
from actors.scheduler.plugins.interpod import InterPodAffinity
from actors.scheduler.plugins.nodeaffinity import NodeAffinity
from actors.scheduler.plugins.ports import NodePorts
from actors.scheduler.plugins.spread import PodTopologySpread
from actors.scheduler.plugins.taints import TaintToleration
from actors.scheduler.plugins.volumebinding import VolumeBinding
from config.scheduler import Profile, SchedulerConfiguration


def _fit(args: dict) -> Plugin:
    strategy = args.get("scoringStrategy") or {}
    resources = [(r["name"], r.get("weight", 1)) for r in strategy.get("resources") or []] or None
    shape = [(p["utilization"], p["score"]) for p in (strategy.get("requestedToCapacityRatio") or {}).get("shape") or []]
    kw = {k: v for k, v in (("resources", resources), ("shape", shape or None)) if v}
    return NodeResourcesFit(strategy.get("type", "LeastAllocated"), ignored=tuple(args.get("ignoredResources") or ()),
                            **kw)


def _balanced(args: dict) -> Plugin:
    resources = [(r["name"], r.get("weight", 1)) for r in args.get("resources") or []]
    return NodeResourcesBalancedAllocation(resources) if resources else NodeResourcesBalancedAllocation()


REGISTRY: dict[str, Callable[[dict], Plugin]] = {
    "NodeUnschedulable": lambda a: NodeUnschedulable(),
    "NodeName": lambda a: NodeName(),
    "TaintToleration": lambda a: TaintToleration(),
    "NodeAffinity": NodeAffinity,
    "NodePorts": lambda a: NodePorts(),
    "NodeResourcesFit": _fit,
    "PodTopologySpread": lambda a: PodTopologySpread(a.get("defaultingType", "System")),
    "InterPodAffinity": lambda a: InterPodAffinity(a.get("hardPodAffinityWeight", 1)),
    "NodeResourcesBalancedAllocation": _balanced,
    "VolumeBinding": lambda a: VolumeBinding(),
}

# Kubernetes' default MultiPoint list (the order filters run in) and score weights.
DEFAULT_PLUGINS = ("NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
                   "NodeResourcesFit", "VolumeBinding", "PodTopologySpread", "InterPodAffinity",
                   "NodeResourcesBalancedAllocation")
DEFAULT_WEIGHTS = {"TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1, "PodTopologySpread": 2,
                   "InterPodAffinity": 2, "NodeResourcesBalancedAllocation": 1}


def _enabled(profile: Profile, point: str) -> list[tuple[str, int]]:
    sets = [profile.plugins.multiPoint, getattr(profile.plugins, point)]
    disabled = {ref.name for s in sets for ref in s.disabled}
    names = [] if "*" in disabled else [n for n in DEFAULT_PLUGINS if n not in disabled]
    weights = dict(DEFAULT_WEIGHTS)
    for s in sets:
        for ref in s.enabled:
            if ref.name not in REGISTRY:
                raise ValueError(f"profile {profile.schedulerName!r}: unknown plugin {ref.name!r}")
            if ref.name not in names:
                names.append(ref.name)
            if ref.weight:
                weights[ref.name] = ref.weight
    return [(n, weights.get(n, 1)) for n in names]


def build(profile: Profile, config: SchedulerConfiguration, rng: random.Random | None = None) -> Framework:
    plugins: dict[str, Plugin] = {}

    def plugin(name: str) -> Plugin:
        if name not in plugins:
            try:
                plugins[name] = REGISTRY[name](profile.args(name))
            except ValueError as exc:
                raise ValueError(f"profile {profile.schedulerName!r}: {exc}") from exc
        return plugins[name]

    filters = [plugin(n) for n, _w in _enabled(profile, "filter") if plugin(n).filters]
    scorers = [(plugin(n), w) for n, w in _enabled(profile, "score") if plugin(n).scores]
    pct = profile.percentageOfNodesToScore if profile.percentageOfNodesToScore is not None \
        else config.percentageOfNodesToScore
    return Framework(profile.schedulerName, filters, scorers, pct, profile.recordDecisions, rng)


def build_all(config: SchedulerConfiguration, rng: random.Random | None = None) -> dict[str, Framework]:
    return {p.schedulerName: build(p, config, rng) for p in config.profiles}

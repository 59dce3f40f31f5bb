"""Which Ingress rules one controller serves when namespaces are tenants (pure logic): a host belongs
to the namespace that claimed it first, as OpenShift's router decides it.

- age: `creationTimestamp`, then namespace/name — the oldest Ingress claims first;
- a host (compared without case; `""` for the rules without one) is its first claimant's namespace's:
  the rules of any other namespace for it are not served. An exact host under a `*.` wildcard an
  older Ingress of another namespace claimed is that namespace's too (the wildcard covers it);
- the cluster's default backend is the oldest Ingress's `defaultBackend`; every other is not served;
- each rule or `defaultBackend` not served is a Refusal, for an Event on its Ingress that says why.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

Pair = tuple[dict, dict]  # (Ingress, one of its rules)


@dataclass(frozen=True)
class Refusal:
    ingress: dict
    reason: str
    message: str
    host: str = ""


@dataclass
class Plan:
    rules: dict[str, list[Pair]] = field(default_factory=lambda: defaultdict(list))  # host -> served, oldest first
    default: dict | None = None  # the Ingress whose defaultBackend is the cluster's
    refused: list[Refusal] = field(default_factory=list)


def age(ingress: dict) -> tuple[str, str, str]:
    meta = ingress["metadata"]
    return meta.get("creationTimestamp") or "", meta.get("namespace") or "", meta["name"]


def namespace(ingress: dict) -> str:
    return ingress["metadata"].get("namespace") or ""


def wildcard_of(host: str) -> str | None:
    """The `*.` host that covers `host`, if any covers it."""
    first, _, rest = host.partition(".")
    return f"*.{rest}" if first and rest and first != "*" else None


def plan(served: list[dict]) -> Plan:
    result, owners = Plan(), {}
    for ingress in sorted(served, key=age):
        refused: set[str] = set()
        for rule in (ingress.get("spec") or {}).get("rules") or []:
            host = (rule.get("host") or "").lower()
            owner = owners.setdefault(host, _covering(owners, host) or ingress)
            if namespace(owner) == namespace(ingress):
                result.rules[host].append((ingress, rule))
            elif host not in refused:
                refused.add(host)
                result.refused.append(Refusal(ingress, "HostAlreadyClaimed", _host_message(host), host))
        if ((ingress.get("spec") or {}).get("defaultBackend") or {}).get("service"):
            if result.default is None:
                result.default = ingress
            else:
                result.refused.append(Refusal(ingress, "DefaultBackendAlreadyClaimed", DEFAULT_MESSAGE))
    return result


def _covering(owners: dict[str, dict], host: str) -> dict | None:
    wildcard = wildcard_of(host)
    return owners.get(wildcard) if wildcard else None


def _host_message(host: str) -> str:
    shown = f'host "{host}"' if host else "the rules without a host"
    return (f"{shown} is claimed by an older Ingress in another namespace: this Ingress's rules for it are not "
            f"served")


DEFAULT_MESSAGE = ("the cluster's default backend is an older Ingress's: this Ingress's defaultBackend is not served "
                   "(a defaultBackend serves only requests that match no host of any Ingress)")

"""Which backend an HTTP request goes to, by the Ingress rules of this controller's class (pure
logic; `k8s-networking.md` §6.2–6.4 and ingress-nginx's habits):

- served: an Ingress naming this class (`spec.ingressClassName`, or the deprecated
  `kubernetes.io/ingress.class` annotation), or naming none while this class is the default one;
- whose: a host is the namespace's that claimed it first (actors/ingress/claims); the rules of
  other namespaces for it are not served;
- host: the rules for exactly the request's host, else for a `*.` wildcard covering its first label
  only, else the rules without a host — as ingress-nginx's server blocks, a host's own rules hide
  the others; compared without case or port;
- path: the longest matching path wins, Exact before Prefix at equal length; Prefix compares whole
  `/`-separated elements and ignores a trailing slash; ImplementationSpecific is taken as Prefix;
- no path of the host's rules matches: None (the caller's 404) — a host's traffic never leaves its
  namespace; no host matches and no rule without a host does: the cluster's default backend (the
  oldest Ingress's `defaultBackend`), else None;
- a conflict (the same host and path in two Ingresses of the host's namespace): the oldest wins.
"""
from __future__ import annotations

from dataclasses import dataclass

from actors.ingress.claims import Pair, Plan, plan, wildcard_of
from api.ingress_validation import CLASS_ANNOTATION, DEFAULT_CLASS_ANNOTATION


@dataclass(frozen=True)
class Route:
    namespace: str
    service: str
    port: int | str  # the Service port's number or name
    ingress: str  # namespace/name, for logs
    path: str = ""
    path_type: str = ""


def elements(path: str) -> list[str]:
    return [part for part in path.split("/") if part]


def path_matches(path_type: str, rule: str, request: str) -> bool:
    if path_type == "Exact":
        return rule == request
    want = elements(rule)
    return elements(request)[:len(want)] == want


def host_matches(rule: str, host: str) -> bool:
    """An exact host, or `*.` covering exactly one more label."""
    if not rule.startswith("*."):
        return rule == host
    first, _, rest = host.partition(".")
    return bool(first) and rest == rule[2:]


class RouteTable:
    def __init__(self, class_name: str, controller: str):
        self.class_name, self.controller = class_name, controller
        self.ingresses: dict[tuple[str, str], dict] = {}
        self.classes: dict[str, dict] = {}
        self._plan: Plan | None = None  # made again after a change, when first needed

    def apply(self, kind: str, obj: dict) -> None:
        meta, self._plan = obj["metadata"], None
        if kind == "IngressClass":
            self.classes[meta["name"]] = obj
        else:
            self.ingresses[(meta.get("namespace") or "", meta["name"])] = obj

    def remove(self, kind: str, obj: dict) -> None:
        meta, self._plan = obj["metadata"], None
        if kind == "IngressClass":
            self.classes.pop(meta["name"], None)
        else:
            self.ingresses.pop((meta.get("namespace") or "", meta["name"]), None)

    # ---- which Ingresses are this controller's -----------------------------------------------------
    def serves(self, ingress: dict) -> bool:
        named = (ingress.get("spec") or {}).get("ingressClassName") or \
            (ingress["metadata"].get("annotations") or {}).get(CLASS_ANNOTATION)
        ours = self.classes.get(self.class_name)
        if named:
            return named == self.class_name and (ours is None or (ours.get("spec") or {}).get("controller")
                                                 == self.controller)
        return ours is not None and (ours["metadata"].get("annotations") or {}).get(DEFAULT_CLASS_ANNOTATION) == "true"

    def plan(self) -> Plan:
        if self._plan is None:
            self._plan = plan([i for i in self.ingresses.values() if self.serves(i)])
        return self._plan

    # ---- matching -------------------------------------------------------------------------------------
    def match(self, host: str, path: str) -> Route | None:
        host = host.lower().rsplit(":", 1)[0] if not host.startswith("[") else host.lower()
        rules = self.plan().rules
        claimed = (rules.get(host) if host else None) or rules.get(wildcard_of(host) or "*")
        if claimed:
            return self._by_path(claimed, path)
        return self._by_path(rules.get("") or [], path) or self._default()

    def _by_path(self, rules: list[Pair], path: str) -> Route | None:
        best, rank = None, None
        for order, (ingress, rule) in enumerate(rules):
            for item in (rule.get("http") or {}).get("paths") or []:
                kind, rule_path = item.get("pathType") or "Prefix", item.get("path") or "/"
                if not path_matches(kind, rule_path, path):
                    continue
                key = (-len(rule_path.rstrip("/") or "/"), kind != "Exact", order)
                if rank is None or key < rank:
                    best, rank = _route(ingress, item.get("backend") or {}, rule_path, kind), key
        return best

    def _default(self) -> Route | None:
        chosen = self.plan().default
        return _route(chosen, chosen["spec"]["defaultBackend"]) if chosen else None


def _route(ingress: dict, backend: dict, path: str = "", path_type: str = "") -> Route | None:
    service = backend.get("service")
    if not service:
        return None  # a `resource` backend: nothing this controller can forward to
    port = service.get("port") or {}
    meta = ingress["metadata"]
    return Route(meta.get("namespace") or "", service.get("name", ""), port.get("number") or port.get("name", ""),
                 f"{meta.get('namespace')}/{meta['name']}", path, path_type)

"""Answers as CoreDNS's `kubernetes` plugin gives them (`k8s-networking.md` §5; `pods insecure`), pure
logic on dnslib records:

- `<svc>.<ns>.svc.<zone>`: A for a ClusterIP (with or without endpoints), the ready endpoints of a
  headless Service (NXDOMAIN when none), CNAME for ExternalName; AAAA is NODATA (IPv4 only);
- `<endpoint>.<svc>.<ns>.svc.<zone>`: the endpoint whose hostname, or dashed address, it is;
- `_<port>._<proto>.<svc>.<ns>.svc.<zone>` and plain SRV on the Service: priority 0, weight
  100/N, the Service's port and name (a headless Service's: each endpoint's port and name), the
  targets' A records in the additional section;
- `a-b-c-d.<ns>.pod.<zone>`: A for any address, as long as the namespace exists;
- PTR for a ClusterIP, then for endpoints; `dns-version.<zone>` TXT "1.1.0";
- NXDOMAIN and NODATA are authoritative with the zone's SOA; AXFR/IXFR are REFUSED; SERVFAIL until
  the cache has synced. A name outside the zone is not answered here (None): the caller forwards it
  or refuses it.
"""
from __future__ import annotations

import ipaddress

from dnslib import CNAME, NS, PTR, QTYPE, RCODE, RR, SOA, SRV, TXT, A, DNSRecord

from actors.dns.zone import Zone, headless

SCHEMA_VERSION, SCHEMA_TTL = "1.1.0", 28800
Records = tuple[list[RR], list[RR]]  # (answers, additional); None: the name does not exist


def answer(zone: Zone, request: DNSRecord, synced: bool = True) -> DNSRecord | None:
    name = str(request.q.qname).lower().rstrip(".")
    qtype = request.q.qtype
    if name.endswith(".in-addr.arpa"):
        return _reverse(zone, request, name)
    if name != zone.domain and not name.endswith("." + zone.domain):
        return None
    reply = request.reply()
    if qtype in (QTYPE.AXFR, QTYPE.IXFR):
        reply.header.rcode = RCODE.REFUSED
        return reply
    if not synced:
        reply.header.rcode = RCODE.SERVFAIL
        return reply
    found = _records(zone, name, qtype)
    if found is None:
        reply.header.rcode = RCODE.NXDOMAIN
    if not found or not found[0]:
        reply.add_auth(_soa(zone))
        return reply
    for rr in found[0]:
        reply.add_answer(rr)
    for rr in found[1]:
        reply.add_ar(rr)
    return reply


def _soa(zone: Zone) -> RR:
    return RR(zone.domain + ".", QTYPE.SOA, ttl=min(zone.ttl, 300),
              rdata=SOA(f"ns.dns.{zone.domain}.", f"hostmaster.{zone.domain}.",
                        (zone.serial, 7200, 1800, 86400, zone.ttl)))


def _records(zone: Zone, name: str, qtype: int) -> Records | None:
    labels = name[:-len(zone.domain)].rstrip(".").split(".") if name != zone.domain else []
    if not labels:
        return _apex(zone, name, qtype)
    if labels == ["dns-version"]:
        return ([RR(name, QTYPE.TXT, ttl=SCHEMA_TTL, rdata=TXT(SCHEMA_VERSION))] if qtype == QTYPE.TXT else [], [])
    if labels[-1] == "svc":
        return _service_records(zone, labels[:-1], qtype)
    if labels[-1] == "pod":
        return _pod(zone, name, labels[:-1], qtype)
    return None


def _apex(zone: Zone, name: str, qtype: int) -> Records:
    if qtype == QTYPE.SOA:
        return [_soa(zone)], []
    if qtype == QTYPE.NS:
        return [RR(name, QTYPE.NS, ttl=zone.ttl, rdata=NS(f"ns.dns.{zone.domain}."))], []
    return [], []


def _pod(zone: Zone, name: str, labels: list[str], qtype: int) -> Records | None:
    if not labels:
        return [], []
    if len(labels) != 2 or labels[1] not in zone.namespaces or labels[0].count("-") != 3:
        return None
    try:
        address = str(ipaddress.IPv4Address(labels[0].replace("-", ".")))
    except ValueError:
        return None
    return ([RR(name, QTYPE.A, ttl=zone.ttl, rdata=A(address))] if qtype == QTYPE.A else [], [])


def _service_records(zone: Zone, labels: list[str], qtype: int) -> Records | None:
    """`labels`: what comes before `svc`, right to left: namespace, service, then an endpoint or port."""
    if not labels:
        return [], []
    if len(labels) > 4 or labels[-1] not in zone.namespaces:
        return None
    if len(labels) == 1:
        return [], []
    namespace, service_name = labels[-1], labels[-2]
    svc = zone.service(namespace, service_name)
    if svc is None:
        return None
    base = f"{service_name}.{namespace}.svc.{zone.domain}"
    if len(labels) == 2:
        return _service(zone, svc, base, qtype)
    if len(labels) == 3:
        return _endpoint(zone, svc, base, labels[0], qtype)
    return _srv(zone, svc, base, labels[0], labels[1], qtype)


def _service(zone: Zone, svc: dict, base: str, qtype: int) -> Records | None:
    spec = svc.get("spec") or {}
    if spec.get("type") == "ExternalName":
        target = (spec.get("externalName") or "").rstrip(".")
        if not target or _is_ip(target):
            return None
        return ([RR(base, QTYPE.CNAME, ttl=zone.ttl, rdata=CNAME(target + "."))]
                if qtype not in (QTYPE.SRV, QTYPE.TXT) else [], [])
    if qtype == QTYPE.SRV:
        return _srv(zone, svc, base, "", "", qtype)
    if headless(svc):
        ready = zone.ready_endpoints(*_key(svc))
        if not ready:
            return None
        return ([RR(base, QTYPE.A, ttl=zone.ttl, rdata=A(e.address)) for e in ready] if qtype == QTYPE.A else [], [])
    return ([RR(base, QTYPE.A, ttl=zone.ttl, rdata=A(ip)) for ip in _cluster_ips(spec)] if qtype == QTYPE.A else [],
            [])


def _endpoint(zone: Zone, svc: dict, base: str, label: str, qtype: int) -> Records | None:
    found = [e for e in zone.ready_endpoints(*_key(svc)) if e.label == label]
    if not found:
        return None
    name = f"{label}.{base}"
    return ([RR(name, QTYPE.A, ttl=zone.ttl, rdata=A(e.address)) for e in found] if qtype == QTYPE.A else [], [])


def _srv(zone: Zone, svc: dict, base: str, port: str, proto: str, qtype: int) -> Records | None:
    """SRV for `_port._proto` (both empty: every port, unnamed ones too)."""
    port_name, protocol = port.removeprefix("_"), proto.removeprefix("_")
    if (port and not port.startswith("_")) or (proto and not proto.startswith("_")):
        return None
    if (svc.get("spec") or {}).get("type") == "ExternalName":
        return None

    def wanted(name: str, proto_of: str) -> bool:
        return (not port_name or name == port_name) and (not protocol or proto_of.lower() == protocol)

    if headless(svc):
        targets = [(f"{e.label}.{base}", e.address, number) for e in zone.ready_endpoints(*_key(svc))
                   for name, p, number in e.ports if wanted(name, p)]
    else:
        ips = _cluster_ips(svc.get("spec") or {})
        targets = [(base, ips[0], p["port"]) for p in (svc.get("spec") or {}).get("ports") or []
                   if ips and wanted(p.get("name") or "", p.get("protocol", "TCP"))]
    if not targets:
        return None if port else ([], [])
    if qtype != QTYPE.SRV:
        return [], []
    weight = max(1, 100 // len(targets))
    answers = [RR(base if not port else f"{port}.{proto}.{base}", QTYPE.SRV, ttl=zone.ttl,
                  rdata=SRV(0, weight, number, target + ".")) for target, _, number in targets]
    extra = {target: RR(target, QTYPE.A, ttl=zone.ttl, rdata=A(ip)) for target, ip, _ in targets}
    return answers, list(extra.values())


def _reverse(zone: Zone, request: DNSRecord, name: str) -> DNSRecord | None:
    parts = name.removesuffix(".in-addr.arpa").split(".")
    if len(parts) != 4 or request.q.qtype != QTYPE.PTR:
        return None
    targets = zone.names_of(".".join(reversed(parts)))
    if not targets:
        return None  # kubeadm's `fallthrough in-addr.arpa`: on to the caller's forwarding
    reply = request.reply()
    for target in targets:
        reply.add_answer(RR(name, QTYPE.PTR, ttl=zone.ttl, rdata=PTR(target + ".")))
    return reply


def _key(svc: dict) -> tuple[str, str]:
    return svc["metadata"].get("namespace") or "", svc["metadata"]["name"]


def _cluster_ips(spec: dict) -> list[str]:
    return [ip for ip in (spec.get("clusterIPs") or [spec.get("clusterIP")]) if ip and _is_ip(ip)]


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return False


"""Kubernetes' IP and CIDR libraries (apiserver `pkg/cel/library/ip.go`, `cidr.go`, since 1.30) over Go's
`net/netip` rules: IPv4 octets without leading zeros, no zones, no IPv4-mapped IPv6 (`::ffff:1.2.3.4`).
An IP or a CIDR is kept as the text Go's `String()` prints (lower case, RFC 5952 compression; a CIDR's
address unmasked), so equal addresses are equal values. Errors carry Kubernetes' (and Go's) words."""
from __future__ import annotations

import ipaddress
import re

from celpy import celtypes
from celpy.evaluation import CELEvalError

IPv4_SHAPE = re.compile(r"[0-9.]*\Z")


def _error(message: str) -> CELEvalError:
    return CELEvalError(message, ValueError, None)


class IP(celtypes.StringType):
    """`net.IP`: an address, kept as its canonical text."""

    @property
    def address(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
        return ipaddress.ip_address(str(self))


class CIDR(celtypes.StringType):
    """`net.CIDR`: an address and a prefix length (`10.0.0.1/8` keeps its host bits until `masked()`)."""

    @property
    def interface(self) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface:
        return ipaddress.ip_interface(str(self))


# ---- parsing, as netip.ParseAddr / ParsePrefix say it -----------------------------------------
def _v4_reason(text: str) -> str:
    fields = text.split(".")
    for field in fields[:4]:
        if not field:
            return "IPv4 field must have at least one digit"
        if int(field) > 255:
            return "IPv4 field has value >255"
        if len(field) > 1 and field[0] == "0":
            return "IPv4 field has octet with leading zero"
    return "IPv4 address too short" if len(fields) < 4 else "IPv4 address too long"


def _parse_addr(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """netip.ParseAddr: ValueError with Go's message."""
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    reason = _v4_reason(text) if text and IPv4_SHAPE.match(text) else "unable to parse IP"
    raise ValueError(f'ParseAddr("{text}"): {reason}')


def parse_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """Kubernetes' parseIPAddr: ValueError with Kubernetes' message."""
    address, _, zone = text.partition("%")
    try:
        parsed = _parse_addr(address if zone else text)
    except ValueError as exc:
        raise ValueError(f'IP Address "{text}" parse error during conversion from string: {exc}') from None
    if zone:
        if parsed.version == 4:
            raise ValueError(f'IP Address "{text}" parse error during conversion from string: '
                             f'ParseAddr("{text}"): unexpected character (at "%{zone}")')
        raise ValueError(f'IP address "{text}" with zone value is not allowed')
    if parsed.version == 6 and parsed.ipv4_mapped is not None:
        raise ValueError(f'IPv4-mapped IPv6 address "{text}" is not allowed')
    return parsed


def parse_cidr(text: str) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface:
    """Kubernetes' parseCIDR over netip.ParsePrefix: ValueError with Kubernetes' message."""
    def refused(reason: str) -> ValueError:
        return ValueError(f'network address parse error during conversion from string: '
                          f'netip.ParsePrefix("{text}"): {reason}')

    address, slash, bits = text.rpartition("/")
    if not slash:
        raise refused("no '/'")
    if "%" in address:
        raise refused("IPv6 zones cannot be present in a prefix")
    try:
        parsed = _parse_addr(address)
    except ValueError as exc:
        raise refused(str(exc)) from None
    if not bits.isdigit() or not bits.isascii() or (len(bits) > 1 and bits[0] == "0"):
        raise refused(f'bad bits after slash: "{bits}"')
    if int(bits) > parsed.max_prefixlen:
        raise refused("prefix length out of range")
    if parsed.version == 6 and parsed.ipv4_mapped is not None:
        raise ValueError(f'IPv4-mapped IPv6 address "{text}" is not allowed')
    return ipaddress.ip_interface(f"{parsed}/{bits}")


def _cidr_text(interface) -> str:
    return f"{interface.ip}/{interface.network.prefixlen}"


# ---- functions ---------------------------------------------------------------------------------
def ip(value):
    """`ip(string)` parses; `<CIDR>.ip()` is the CIDR's address."""
    if isinstance(value, CIDR):
        return IP(str(value.interface.ip))
    try:
        return IP(str(parse_ip(str(value))))
    except ValueError as exc:
        return _error(str(exc))


def is_ip(text):
    try:
        parse_ip(str(text))
    except ValueError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def is_canonical(text):
    try:
        return celtypes.BoolType(str(parse_ip(str(text))) == str(text))
    except ValueError as exc:
        return _error(str(exc))


def cidr(text):
    try:
        return CIDR(_cidr_text(parse_cidr(str(text))))
    except ValueError as exc:
        return _error(f"network address parse error during conversion from string: {exc}")


def is_cidr(text):
    try:
        parse_cidr(str(text))
    except ValueError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def contains_ip(prefix: CIDR, other):
    address = other if isinstance(other, IP) else ip(other)
    if isinstance(address, CELEvalError):
        return address
    return celtypes.BoolType(address.address in prefix.interface.network)


def contains_cidr(prefix: CIDR, other):
    inner = other if isinstance(other, CIDR) else cidr(other)
    if isinstance(inner, CELEvalError):
        return inner
    outer, inside = prefix.interface.network, inner.interface.network
    return celtypes.BoolType(outer.version == inside.version and inside.subnet_of(outer))


def _global_unicast(a) -> bool:
    if a.version == 4 and int(a) in (0, 0xFFFFFFFF):
        return False
    return not (a.is_unspecified or _loopback(a) or _multicast(a) or _link_local_unicast(a))


def _loopback(a) -> bool:
    return (int(a) >> 24) == 127 if a.version == 4 else int(a) == 1


def _multicast(a) -> bool:
    return (int(a) >> 28) == 0xE if a.version == 4 else (int(a) >> 120) == 0xFF


def _link_local_unicast(a) -> bool:
    return (int(a) >> 16) == 0xA9FE if a.version == 4 else (int(a) >> 118) == 0x3FA


def _link_local_multicast(a) -> bool:
    return (int(a) >> 8) == 0xE00000 if a.version == 4 else (int(a) >> 112) & 0xFF0F == 0xFF02


def _on_ip(test):
    return lambda value: celtypes.BoolType(test(value.address))


FUNCTIONS = {
    "ip": ip, "isIP": is_ip, "ip.isCanonical": is_canonical,
    "family": lambda value: celtypes.IntType(value.address.version),
    "isUnspecified": _on_ip(lambda a: a.is_unspecified), "isLoopback": _on_ip(_loopback),
    "isLinkLocalMulticast": _on_ip(_link_local_multicast), "isLinkLocalUnicast": _on_ip(_link_local_unicast),
    "isGlobalUnicast": _on_ip(_global_unicast),
    "cidr": cidr, "isCIDR": is_cidr, "containsIP": contains_ip, "containsCIDR": contains_cidr,
    "prefixLength": lambda value: celtypes.IntType(value.interface.network.prefixlen),
    "masked": lambda value: CIDR(str(value.interface.network)),
}

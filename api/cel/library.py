"""Kubernetes' CEL libraries (apiserver `pkg/cel/library`) over cel-python: Lists (`isSorted`, `sum`,
`min`, `max`, `indexOf`, `lastIndexOf`), Regex (`find`, `findAll`), URLs (`url`, `isURL`, `getScheme`,
`getHost`, `getHostname`, `getPort`, `getEscapedPath`, `getQuery`), Quantity (`quantity`, `isQuantity`,
`sign`, `isGreaterThan`, `isLessThan`, `compareTo`, `asApproximateFloat`, `asInteger`, `isInteger`,
`add`, `sub`) and the common string extensions (`lowerAscii`, `upperAscii`, `replace`, `split`,
`trim`, `join`, `substring`, `charAt`). A function that cannot answer returns a CELEvalError, as
cel-python's own do. The FUNCTIONS table gathers the libraries of their own files: IP and CIDR (`net.py`),
Format (`formats.py`), Semver (`semver.py`), sets (`sets.py`), lists ext v3 (`lists.py`), optional types
(`optional.py`; their syntax is `syntax.py`'s). cel-python calls a function by name alone, so a name two
libraries share (`isGreaterThan` of a Quantity and of a Semver, `ip` of a string and of a CIDR) is one
function that picks by its receiver's type. The authorizer is `authz.py`'s, given only where Kubernetes
gives it. Not here: strings.quote, strings.format, two-variable comprehensions, optional list and map entries (`[?x]`, `{?k: v}`)."""
from __future__ import annotations

from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

import re2
from celpy import celtypes
from celpy.evaluation import CELEvalError

from api.cel import formats, lists, net, optional, semver, sets
from api.quantity import parse_quantity


def _error(message: str) -> CELEvalError:
    return CELEvalError(message, ValueError, None)


# ---- lists -----------------------------------------------------------------------------------
def is_sorted(items):
    return celtypes.BoolType(all(a <= b for a, b in zip(items, items[1:])))


def sum_(items):
    if not items:
        return celtypes.IntType(0)
    total = items[0]
    for item in items[1:]:
        total = total + item
    return total


def min_(items):
    return min(items) if items else _error("min called on empty list")


def max_(items):
    return max(items) if items else _error("max called on empty list")


def index_of(haystack, needle, start=None):
    if isinstance(haystack, str):
        return celtypes.IntType(haystack.find(needle, int(start or 0)))
    return celtypes.IntType(next((i for i, item in enumerate(haystack) if item == needle), -1))


def last_index_of(haystack, needle):
    if isinstance(haystack, str):
        return celtypes.IntType(haystack.rfind(needle))
    return celtypes.IntType(next((i for i in range(len(haystack) - 1, -1, -1) if haystack[i] == needle), -1))


# ---- regex -----------------------------------------------------------------------------------
def find(text, pattern):
    try:
        match = re2.search(pattern, text)
    except re2.error as exc:
        return _error(f"regex error: {exc}")
    return celtypes.StringType(match.group(0) if match else "")


def find_all(text, pattern, limit=None):
    try:
        found = [m.group(0) for m in re2.finditer(pattern, text)]
    except re2.error as exc:
        return _error(f"regex error: {exc}")
    if limit is not None and int(limit) >= 0:
        found = found[:int(limit)]
    return celtypes.ListType(celtypes.StringType(s) for s in found)


# ---- URLs ------------------------------------------------------------------------------------
class URL(celtypes.StringType):
    """A parsed URL (Kubernetes' `kubernetes.URL`), kept as its text."""


def _parsed(text: str):
    parts = urlsplit(text)
    if not (parts.scheme or text.startswith("/")) or " " in text:
        raise ValueError(f"URL parse error during conversion from string: parse {text!r}: invalid URI for request")
    return parts


def url(text):
    try:
        _parsed(text)
    except ValueError as exc:
        return _error(str(exc))
    return URL(text)


def is_url(text):
    try:
        _parsed(text)
    except ValueError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def get_scheme(u):
    return celtypes.StringType(urlsplit(u).scheme)


def get_host(u):
    return celtypes.StringType(urlsplit(u).netloc.rpartition("@")[2])


def get_hostname(u):
    return celtypes.StringType(urlsplit(u).hostname or "")


def get_port(u):
    port = urlsplit(u).netloc.rpartition("@")[2].rpartition("]")[2].partition(":")[2]
    return celtypes.StringType(port)


def get_escaped_path(u):
    return celtypes.StringType(urlsplit(u).path)


def get_query(u):
    query = parse_qs(urlsplit(u).query, keep_blank_values=True)
    return celtypes.MapType({celtypes.StringType(k): celtypes.ListType(celtypes.StringType(v) for v in vs)
                             for k, vs in query.items()})


# ---- quantities ------------------------------------------------------------------------------
class Quantity(celtypes.StringType):
    """A resource quantity (Kubernetes' `kubernetes.Quantity`); compared by value."""

    @property
    def amount(self) -> Decimal:
        return parse_quantity(str(self))

    def __eq__(self, other) -> bool:
        return isinstance(other, Quantity) and self.amount == other.amount

    def __hash__(self) -> int:
        return hash(self.amount)


def quantity(text):
    try:
        parse_quantity(str(text))
    except ValueError as exc:
        return _error(str(exc))
    return Quantity(text)


def is_quantity(text):
    try:
        parse_quantity(str(text))
    except ValueError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def _amount(value) -> Decimal:
    return value.amount if isinstance(value, Quantity) else Decimal(int(value))


def _from(amount: Decimal) -> Quantity:
    return Quantity(format(amount.normalize(), "f"))


QUANTITY = {
    "quantity": quantity, "isQuantity": is_quantity,
    "sign": lambda q: celtypes.IntType((q.amount > 0) - (q.amount < 0)),
    "isGreaterThan": lambda q, o: celtypes.BoolType(q.amount > _amount(o)),
    "isLessThan": lambda q, o: celtypes.BoolType(q.amount < _amount(o)),
    "compareTo": lambda q, o: celtypes.IntType((q.amount > _amount(o)) - (q.amount < _amount(o))),
    "asApproximateFloat": lambda q: celtypes.DoubleType(float(q.amount)),
    "asInteger": lambda q: celtypes.IntType(int(q.amount)) if q.amount == int(q.amount)
    else _error("cannot convert value to integer"),
    "isInteger": lambda q: celtypes.BoolType(q.amount == int(q.amount)),
    "add": lambda q, o: _from(q.amount + _amount(o)),
    "sub": lambda q, o: _from(q.amount - _amount(o)),
}


# ---- strings ---------------------------------------------------------------------------------
def split(text, sep, limit=None):
    parts = text.split(sep) if limit is None or int(limit) < 0 else text.split(sep, max(int(limit) - 1, 0))
    return celtypes.ListType(celtypes.StringType(p) for p in parts) if limit != 0 else celtypes.ListType()


STRINGS = {
    "lowerAscii": lambda s: celtypes.StringType(s.lower()),
    "upperAscii": lambda s: celtypes.StringType(s.upper()),
    "replace": lambda s, a, b, n=None: celtypes.StringType(s.replace(a, b, -1 if n is None else int(n))),
    "split": split,
    "trim": lambda s: celtypes.StringType(s.strip()),
    "join": lambda items, sep="": celtypes.StringType(sep.join(items)),
    "substring": lambda s, a, b=None: celtypes.StringType(s[int(a):] if b is None else s[int(a):int(b)]),
    "charAt": lambda s, i: celtypes.StringType(s[int(i):int(i) + 1]),
}

def by_receiver(*choices):
    """One function for a name several types define: the first (type, function) whose type the receiver has."""
    def call(receiver, *args):
        for kind, function in choices:
            if isinstance(receiver, kind):
                return function(receiver, *args)
        return _error(f"no such overload: {type(receiver).__name__}")
    return call


SHARED = {name: by_receiver((Quantity, QUANTITY[name]), (semver.Semver, semver.COMPARISONS[name]))
          for name in semver.COMPARISONS}

FUNCTIONS = {
    "isSorted": is_sorted, "sum": sum_, "min": min_, "max": max_, "indexOf": index_of,
    "lastIndexOf": last_index_of, "find": find, "findAll": find_all,
    "url": url, "isURL": is_url, "getScheme": get_scheme, "getHost": get_host, "getHostname": get_hostname,
    "getPort": get_port, "getEscapedPath": get_escaped_path, "getQuery": get_query,
    **QUANTITY, **STRINGS, **net.FUNCTIONS, **formats.FUNCTIONS, **semver.FUNCTIONS, **sets.FUNCTIONS,
    **lists.FUNCTIONS, **optional.FUNCTIONS, **SHARED,
}

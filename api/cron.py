"""A CronJob's schedule as Kubernetes reads it: robfig/cron v3's `ParseStandard` (five fields minute
hour day-of-month month day-of-week; lists, ranges, steps, names, `?`, the `@yearly @annually @monthly
@weekly @daily @midnight @hourly` descriptors and `@every <duration>`), its error messages, and
`Schedule.next` (robfig's `SpecSchedule.Next`) in a time zone. Written here rather than taken from
PyPI: croniter is archived and differs from robfig in its errors and in the day-of-month/day-of-week
rule; the whole parser is a page. Pure: no clock, no I/O."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

STAR = 1 << 63  # robfig's starBit: the field was `*` or `?`


class CronError(ValueError):
    """A schedule robfig/cron refuses; the message is robfig's."""


@dataclass(frozen=True)
class Bounds:
    low: int
    high: int
    names: dict[str, int]


MONTHS = {m: i + 1 for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())}
DAYS = {d: i for i, d in enumerate("sun mon tue wed thu fri sat".split())}
FIELDS = (Bounds(0, 59, {}), Bounds(0, 23, {}), Bounds(1, 31, {}), Bounds(1, 12, MONTHS), Bounds(0, 6, DAYS))


def _bits(low: int, high: int, step: int) -> int:
    return sum(1 << i for i in range(low, high + 1, step))


def _every(b: Bounds) -> int:
    return _bits(b.low, b.high, 1) | STAR


# minute, hour, dom, month, dow of each descriptor (robfig parseDescriptor)
DESCRIPTORS = {
    "@yearly": (1, 1, 1 << 1, 1 << 1, _every(FIELDS[4])),
    "@monthly": (1, 1, 1 << 1, _every(FIELDS[3]), _every(FIELDS[4])),
    "@weekly": (1, 1, _every(FIELDS[2]), _every(FIELDS[3]), 1),
    "@daily": (1, 1, _every(FIELDS[2]), _every(FIELDS[3]), _every(FIELDS[4])),
    "@hourly": (1, _every(FIELDS[1]), _every(FIELDS[2]), _every(FIELDS[3]), _every(FIELDS[4])),
}
DESCRIPTORS["@annually"], DESCRIPTORS["@midnight"] = DESCRIPTORS["@yearly"], DESCRIPTORS["@daily"]
DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


def _number(expr: str, names: dict[str, int]) -> int:
    if expr.lower() in names:
        return names[expr.lower()]
    if not re.fullmatch(r"[+-]?\d+", expr):
        raise CronError(f'failed to parse int from {expr}: strconv.Atoi: parsing "{expr}": invalid syntax')
    num = int(expr)
    if num < 0:
        raise CronError(f"negative number ({num}) not allowed: {expr}")
    return num


def _range(expr: str, b: Bounds) -> int:
    """`number | number "-" number ["/" number]`, `*` or `?` with an optional step."""
    range_and_step = expr.split("/")
    low_high = range_and_step[0].split("-")
    extra = 0
    if low_high[0] in ("*", "?"):
        start, end, extra = b.low, b.high, STAR
    else:
        start = _number(low_high[0], b.names)
        if len(low_high) > 2:
            raise CronError(f"too many hyphens: {expr}")
        end = _number(low_high[1], b.names) if len(low_high) == 2 else start
    step = 1
    if len(range_and_step) > 2:
        raise CronError(f"too many slashes: {expr}")
    if len(range_and_step) == 2:
        step = _number(range_and_step[1], {})
        if len(low_high) == 1:
            end = b.high  # "N/step" means "N-max/step"
        if step > 1:
            extra = 0
    if start < b.low:
        raise CronError(f"beginning of range ({start}) below minimum ({b.low}): {expr}")
    if end > b.high:
        raise CronError(f"end of range ({end}) above maximum ({b.high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")
    return _bits(start, end, step) | extra


def _field(text: str, b: Bounds) -> int:
    bits = 0
    for expr in (e for e in text.split(",") if e):
        bits |= _range(expr, b)
    return bits


@dataclass(frozen=True)
class Schedule:
    minute: int = 0
    hour: int = 0
    dom: int = 0
    month: int = 0
    dow: int = 0
    every: float | None = None  # `@every`: a constant delay, in seconds
    zone: str | None = None  # `TZ=`/`CRON_TZ=` in the schedule (Kubernetes refuses it on create)

    def next(self, after: datetime, zone: tzinfo = timezone.utc) -> datetime | None:
        """The first activation strictly after `after` (an aware datetime), as robfig's Next: None when
        nothing matches within five years."""
        if self.every is not None:
            return (after + timedelta(seconds=self.every)).replace(microsecond=0)
        t = after.astimezone(zone).replace(second=0, microsecond=0, tzinfo=None) + timedelta(minutes=1)
        limit = t.year + 5
        while t.year <= limit:
            if not self.month >> t.month & 1:
                t = datetime(t.year + t.month // 12, t.month % 12 + 1, 1)
            elif not self._day(t):
                t = datetime(t.year, t.month, t.day) + timedelta(days=1)
            elif not self.hour >> t.hour & 1:
                t = datetime(t.year, t.month, t.day, t.hour) + timedelta(hours=1)
            elif not self.minute >> t.minute & 1:
                t += timedelta(minutes=1)
            else:
                return t.replace(tzinfo=zone).astimezone(timezone.utc)
        return None

    def _day(self, t: datetime) -> bool:
        """robfig's dayMatches: both must match when either field is `*`, else either may."""
        dom, dow = bool(self.dom >> t.day & 1), bool(self.dow >> (t.isoweekday() % 7) & 1)
        return dom and dow if self.dom & STAR or self.dow & STAR else dom or dow


def _duration(text: str) -> float:
    """Go's time.ParseDuration for the positive durations `@every` takes."""
    if text == "0":
        return 0.0
    if not text or DURATION.sub("", text) != "":
        raise CronError(f'failed to parse duration @every {text}: time: invalid duration "{text}"')
    return sum(float(n) * UNITS[u] for n, u in DURATION.findall(text))


def parse(spec: str) -> Schedule:
    """robfig/cron v3 ParseStandard; raises CronError with robfig's message."""
    if not spec:
        raise CronError("empty spec string")
    zone = None
    if spec.startswith(("TZ=", "CRON_TZ=")):
        first, _, spec = spec.partition(" ")
        zone = first.split("=", 1)[1]
        try:
            ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise CronError(f"provided bad location {zone}: unknown time zone {zone}") from exc
        spec = spec.strip()
    return replace(_parse(spec), zone=zone)


def _parse(spec: str) -> Schedule:
    if spec.startswith("@"):
        if spec.startswith("@every "):
            return Schedule(every=max(_duration(spec[len("@every "):]), 1.0))
        if spec not in DESCRIPTORS:
            raise CronError(f"unrecognized descriptor: {spec}")
        return Schedule(*DESCRIPTORS[spec])
    fields = spec.split()
    if len(fields) != 5:
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    return Schedule(*(_field(text, b) for text, b in zip(fields, FIELDS)))

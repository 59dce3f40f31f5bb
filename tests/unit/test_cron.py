"""The schedule syntax as robfig/cron v3 ParseStandard reads it (api/cron.py): next times and errors."""
from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from api import cron

UTC = timezone.utc


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize("spec, after, expected", [
    ("*/1 * * * *", "2024-01-01T00:00:00", "2024-01-01T00:01:00"),
    ("*/1 * * * *", "2024-01-01T00:00:30", "2024-01-01T00:01:00"),
    ("*/15 * * * *", "2024-01-01T00:16:00", "2024-01-01T00:30:00"),
    ("5 * * * *", "2024-01-01T00:05:00", "2024-01-01T01:05:00"),
    ("0 9-17/4 * * *", "2024-01-01T10:00:00", "2024-01-01T13:00:00"),
    ("30 6 * * mon-fri", "2024-01-05T07:00:00", "2024-01-08T06:30:00"),  # Friday, then Monday
    ("0 0 1,15 * *", "2024-01-02T00:00:00", "2024-01-15T00:00:00"),
    ("0 0 1 jan,JUL *", "2024-02-01T00:00:00", "2024-07-01T00:00:00"),
    ("0 0 13 * 5", "2024-01-01T00:00:00", "2024-01-05T00:00:00"),  # day-of-month OR day-of-week
    ("0 0 * * 0", "2024-01-01T00:00:00", "2024-01-07T00:00:00"),
    ("0 0 ? * 7/1", "2024-01-01T00:00:00", None),  # robfig: 7 is above Saturday's 6 -> parse error below
    ("0 0 29 2 *", "2024-03-01T00:00:00", "2028-02-29T00:00:00"),
    ("@hourly", "2024-01-01T00:30:00", "2024-01-01T01:00:00"),
    ("@daily", "2024-01-01T00:30:00", "2024-01-02T00:00:00"),
    ("@midnight", "2024-01-01T00:30:00", "2024-01-02T00:00:00"),
    ("@weekly", "2024-01-01T00:30:00", "2024-01-07T00:00:00"),
    ("@monthly", "2024-01-01T00:30:00", "2024-02-01T00:00:00"),
    ("@yearly", "2024-01-01T00:30:00", "2025-01-01T00:00:00"),
    ("@annually", "2024-01-01T00:30:00", "2025-01-01T00:00:00"),
    ("@every 90s", "2024-01-01T00:00:00", "2024-01-01T00:01:30"),
    ("0 0 31 2 *", "2024-01-01T00:00:00", "never"),  # parses, never fires
])
def test_the_next_time_is_robfigs(spec, after, expected):
    if expected is None:
        with pytest.raises(cron.CronError):
            cron.parse(spec)
        return
    found = cron.parse(spec).next(at(after))
    assert (found.isoformat()[:19] if found else "never") == expected


def test_a_time_zone_moves_the_wall_clock_times():
    zone = ZoneInfo("America/New_York")
    assert cron.parse("0 2 * * *").next(at("2024-01-10T12:00:00"), zone) == at("2024-01-11T07:00:00")
    assert cron.parse("0 9 * * *").next(at("2024-07-10T12:00:00"), zone) == at("2024-07-10T13:00:00")


@pytest.mark.parametrize("spec, message", [
    ("", "empty spec string"),
    ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
    ("* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"),
    ("60 * * * *", "end of range (60) above maximum (59): 60"),
    ("* 24 * * *", "end of range (24) above maximum (23): 24"),
    ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
    ("5-2 * * * *", "beginning of range (5) beyond end of range (2): 5-2"),
    ("*/0 * * * *", "step of range should be a positive number: */0"),
    ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
    ("*/2/3 * * * *", "too many slashes: */2/3"),
    ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
    ("* * * foo *", 'failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax'),
    ("@fortnightly", "unrecognized descriptor: @fortnightly"),
    ("@every x", 'failed to parse duration @every x: time: invalid duration "x"'),
    ("TZ=Nowhere/Land * * * * *", "provided bad location Nowhere/Land: unknown time zone Nowhere/Land"),
])
def test_a_bad_schedule_has_robfigs_message(spec, message):
    with pytest.raises(cron.CronError) as caught:
        cron.parse(spec)
    assert str(caught.value) == message


def test_tz_in_the_schedule_parses_with_its_zone():
    assert cron.parse("TZ=Europe/Paris 0 1 * * *").zone == "Europe/Paris"

"""`since` of a logs request as the kubelet reads PodLogOptions: the later of now − sinceSeconds and sinceTime."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from actors.kubelet.logs import since

NOW = datetime(2026, 11, 27, 12, 0, 0, tzinfo=timezone.utc).timestamp()


@pytest.mark.parametrize("options, expected", [
    pytest.param({}, None, id="none"),
    pytest.param({"sinceSeconds": 60}, "2026-11-27T11:59:00", id="seconds"),
    pytest.param({"sinceTime": "2026-11-27T11:00:00Z"}, "2026-11-27T11:00:00", id="time"),
    pytest.param({"sinceSeconds": 60, "sinceTime": "2026-11-27T11:00:00Z"}, "2026-11-27T11:59:00", id="the-later"),
    pytest.param({"sinceSeconds": 7200, "sinceTime": "2026-11-27T11:30:00.5Z"}, "2026-11-27T11:30:00.500000",
                 id="the-later-time"),
])
def test_since_is_the_later_of_both(options, expected):
    found = since(options, now=NOW)
    assert (found.replace(tzinfo=None).isoformat() if found else None) == expected

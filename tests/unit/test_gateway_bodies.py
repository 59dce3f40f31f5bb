"""`limit`/`continue` pages (the protobuf bodies kubectl sends: tests/unit/protobuf/)."""
from __future__ import annotations

import pytest

from actors.gateway.pages import Pages
from api.status import StatusError


def test_pages_cover_the_list_once_at_its_revision():
    pages, items = Pages(), [{"n": i} for i in range(5)]
    seen, (page, rev, more) = [], pages.first("me", items, "42", 2)
    while True:
        seen += page
        assert rev == "42"
        if more is None:
            break
        assert more["remainingItemCount"] == 5 - len(seen)
        page, rev, more = pages.next("me", more["continue"], 2)
    assert seen == items


def test_a_continue_token_is_good_once_and_only_for_its_owner():
    pages = Pages()
    _, _, more = pages.first("me", [{}, {}, {}], "7", 1)
    with pytest.raises(StatusError) as other:
        pages.next("someone else", more["continue"], 1)
    assert other.value.code == 410
    assert pages.next("me", more["continue"], 1)[0] == [{}]
    with pytest.raises(StatusError) as again:
        pages.next("me", more["continue"], 1)
    assert again.value.code == 410
    with pytest.raises(StatusError) as garbage:
        pages.next("me", "!!", 1)
    assert garbage.value.code == 400

"""The linearizability checker on histories whose answer is known (so it can fail either way)."""
from __future__ import annotations

import pytest

from testkit.linearizability import Op, linearizable


def cas(client, call, ret, expect, value, result=True, key="k") -> Op:
    return Op(client, call, ret, "cas", key, expect, value, result)


def read(client, call, ret, result, key="k") -> Op:
    return Op(client, call, ret, "read", key, result=result)


def test_sequential_history_is_linearizable():
    assert linearizable([cas("a", 0, 1, None, "x"), read("b", 2, 3, "x"), cas("b", 4, 5, "x", "y"),
                         read("a", 6, 7, "y")]) == []


def test_a_read_of_an_overwritten_value_after_the_write_returned_is_not():
    assert linearizable([cas("a", 0, 1, None, "x"), cas("a", 2, 3, "x", "y"), read("b", 4, 5, "x")]) == ["k"]


def test_concurrent_operations_may_take_effect_in_either_order():
    assert linearizable([cas("a", 0, 10, None, "x"), read("b", 1, 2, None), read("c", 3, 4, "x")]) == []


def test_two_successful_cas_from_the_same_value_cannot_both_win():
    assert linearizable([cas("a", 0, 1, None, "x"), cas("b", 2, 5, "x", "y"), cas("c", 3, 6, "x", "z")]) == ["k"]


def test_a_refused_cas_must_have_seen_another_value():
    assert linearizable([cas("a", 0, 1, None, "x"), cas("b", 2, 3, "x", "y", result=False)]) == ["k"]
    assert linearizable([cas("a", 0, 1, None, "x"), cas("b", 2, 5, "x", "y"),
                         cas("c", 3, 6, "x", "z", result=False)]) == []


def test_an_unknown_outcome_may_have_happened_or_not():
    unknown = Op.unknown("a", 0, "k", None, "x")
    assert linearizable([unknown, read("b", 5, 6, "x")]) == []
    assert linearizable([unknown, read("b", 5, 6, None)]) == []
    assert linearizable([unknown, read("b", 5, 6, "x"), read("b", 7, 8, None)]) == ["k"]  # no going back


def test_an_unknown_write_seen_before_it_was_sent_is_not():
    assert linearizable([read("b", 0, 1, "x"), Op.unknown("a", 2, "k", None, "x")]) == ["k"]


def test_an_unknown_write_nobody_saw_may_explain_refusals_at_the_end_only():
    unknown = Op.unknown("a", 0, "k", None, "x")
    assert linearizable([unknown, cas("b", 2, 3, None, "y", result=False)]) == []
    assert linearizable([unknown, cas("b", 2, 3, None, "y", result=False), read("c", 4, 5, None)]) == ["k"]


def test_an_unknown_write_another_must_have_followed_took_effect():
    first, second = Op.unknown("a", 0, "k", None, "x"), Op.unknown("b", 1, "k", "x", "y")
    assert linearizable([first, second, read("c", 2, 3, "y")]) == []
    assert linearizable([first, second, read("c", 2, 3, "y"), read("c", 4, 5, "x")]) == ["k"]


def test_unknown_writes_of_repeated_values_may_take_effect_anywhere():
    twice = [cas("a", 0, 1, None, "x"), Op.unknown("b", 2, "k", "x", None), Op.unknown("c", 3, "k", None, "x"),
             read("d", 4, 5, "x")]
    assert linearizable(twice) == []
    assert linearizable([read("a", 0, 1, None), Op.unknown("b", 10, "k", "a", None)]) == []


@pytest.mark.timeout(10)
def test_a_long_history_with_many_unknown_writes_is_checked():
    """The failover bench's shape: thousands of operations, writes timing out throughout (most never
    applied, some applied and read later). The plain search tries every order of the unknowns."""
    history, value, t = [], "0", 0.0
    for i in range(2000):
        history.append(read("r", t, t + 1, value))
        if i % 5 == 0:
            history.append(Op.unknown("u", t + 1, "k", value, f"lost-{i}"))  # never applied
        if i % 7 == 0:  # applied, its reply lost: the next read sees it
            history.append(Op.unknown("u", t + 1, "k", value, f"late-{i}"))
            value = f"late-{i}"
        else:
            history.append(cas("w", t + 1, t + 2, value, f"v{i}"))
            value = f"v{i}"
        t += 3
    assert linearizable(history, {"k": "0"}) == []
    assert linearizable(history + [read("r", t, t + 1, "0")], {"k": "0"}) == ["k"]


def test_keys_are_checked_apart():
    assert linearizable([cas("a", 0, 1, None, "x", key="p"), read("b", 2, 3, "x", key="p"),
                         read("b", 2, 3, "zzz", key="q")]) == ["q"]

"""The linearizability checker on histories whose answer is known (so it can fail either way)."""
from __future__ import annotations

from tests.linearizability import Op, linearizable


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


def test_keys_are_checked_apart():
    assert linearizable([cas("a", 0, 1, None, "x", key="p"), read("b", 2, 3, "x", key="p"),
                         read("b", 2, 3, "zzz", key="q")]) == ["q"]

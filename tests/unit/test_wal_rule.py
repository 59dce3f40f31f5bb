"""The rule every reader of the store's log applies: claims raise the epoch, only the owner's batches
that continue the accepted revision count, a deposed store's late batches are rejected whatever the
broker confirmed, and readers that see the same entries agree."""
from __future__ import annotations

import random

import pytest

from store.wal import Rule, batch, beat, claim, decode, encode


def test_a_claim_then_the_owners_batches_in_sequence():
    rule = Rule()
    assert rule.apply(claim(1, "a")) and rule.apply(batch(1, "a", 0, 3)) and rule.apply(batch(1, "a", 3, 5))
    assert (rule.epoch, rule.owner, rule.rev, rule.accepted) == (1, "a", 5, [3, 5])
    assert not rule.apply(batch(1, "a", 3, 6))  # does not continue revision 5
    assert not rule.apply(batch(1, "b", 5, 6))  # not the owner
    assert rule.apply(beat(1, "a", 5)) and not rule.apply(beat(1, "b", 5))
    assert rule.rejected == 3 and rule.owns("a", 1) and not rule.owns("a", 2)


def test_a_deposed_store_is_not_believed_even_by_itself():
    rule = Rule()
    for entry in (claim(1, "a"), batch(1, "a", 0, 1), claim(2, "b"), batch(1, "a", 1, 2), batch(2, "b", 1, 2)):
        rule.apply(entry)
    assert (rule.owner, rule.rev, rule.accepted) == ("b", 2, [1, 2])  # a's revision 2 never happened
    assert not rule.apply(claim(2, "a")) and not rule.apply(claim(1, "a"))  # no claim at or below the epoch


def test_a_takeover_mid_stream_continues_from_the_last_accepted_revision():
    rng = random.Random(7)
    log, revs = [claim(1, "a")], {"a": 0, "b": 0}
    for i in range(400):  # a writes without reading; b claims at 150 and continues what it read
        if i == 150:
            log.append(claim(2, "b"))
            revs["b"] = _replay(log).rev
        writer = "a" if i < 150 or rng.random() < 0.5 else "b"
        log.append(batch(1 if writer == "a" else 2, writer, revs[writer], revs[writer] + 1))
        revs[writer] += 1
    final = _replay(log)
    assert final.owner == "b" and final.accepted == list(range(1, final.rev + 1))  # no gap, no fork
    assert final.rev == 150 + sum(1 for e in log[152:] if e["store"] == "b")
    assert final.rejected == sum(1 for e in log[152:] if e["store"] == "a")


def test_a_reader_that_starts_past_a_cut_knows_it_missed_entries():
    log = [claim(1, "a"), batch(1, "a", 0, 2), batch(1, "a", 2, 4), claim(2, "b"), batch(2, "b", 4, 5)]
    whole = Rule()
    assert not any(whole.missed(e) or not whole.apply(e) for e in log)  # read from the start: nothing missed
    for cut in range(1, len(log)):
        rule = Rule()
        seen = [rule.missed(e) or (rule.apply(e) and False) for e in log[cut:]]
        assert any(seen), f"a reader starting at entry {cut} did not notice the cut"
    deposed = Rule()
    for entry in log:
        deposed.apply(entry)
    assert not deposed.missed(batch(1, "a", 4, 6)) and not deposed.missed(batch(2, "c", 9, 10))  # only rejected


def test_entries_survive_the_wire_and_garbage_is_refused():
    entry = batch(3, "store-x", 10, 12, {"changes": [1, 2], "blob": b"\x00\xff"})
    assert decode(encode(entry)) == entry
    with pytest.raises(ValueError):
        decode(encode({"t": "other"}))


def _replay(log: list[dict]) -> Rule:
    rule = Rule()
    for entry in log:
        rule.apply(entry)
    return rule


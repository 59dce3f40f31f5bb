"""The matchers of binding sets (bus/topology): a client's snapshot keys build them, so what one
holds is estimated, the cache of them is bounded in bytes, and a run of `#` costs nothing more."""
from __future__ import annotations

import tracemalloc

import pytest

from bus.messages import MAX_SNAPSHOT_KEYS, parse_request
from bus.topology import MATCHERS_BYTES, Matcher, _Matchers, key_matches
from api.status import StatusError


def keys(n: int, tag: str) -> tuple[str, ...]:
    return tuple(f"pod.team-{tag}.node-{i}" for i in range(n))


@pytest.mark.parametrize("bindings", [
    pytest.param(keys(20_000, "a"), id="one-namespace-many-nodes"),
    pytest.param(tuple(f"k{i}.ns{i}.n{i}" for i in range(20_000)), id="every-word-distinct"),
    pytest.param(tuple(f"{'k' * 80}{i}.{'n' * 80}{i}.{'x' * 80}{i}" for i in range(5_000)), id="long-words"),
])
def test_the_estimate_covers_what_a_matcher_holds(bindings):
    tracemalloc.start()
    try:
        built = Matcher(bindings)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    trie = built.bytes - Matcher.MEMO_BYTES - sum(64 + len(b) for b in bindings)  # the tuple is the caller's
    assert held * 0.8 <= trie <= held * 3, (held, trie)


def test_the_cache_keeps_at_most_its_bytes_and_the_newest():
    cache = _Matchers(MATCHERS_BYTES)
    sets = [keys(2_000, str(i)) for i in range(20)]  # 2.8 MB each
    for bindings in sets:
        cache.get(bindings)
    assert cache.bytes <= MATCHERS_BYTES and len(cache.kept) > 5 and cache.bytes == sum(m.bytes for m in cache.kept.values())
    assert sets[-1] in cache.kept and sets[0] not in cache.kept
    assert cache.get(sets[-1]) is cache.kept[sets[-1]]  # a hit, not a rebuild


def test_a_set_larger_than_a_quarter_of_the_bound_is_not_kept():
    cache = _Matchers(MATCHERS_BYTES)
    small = keys(10, "small")
    cache.get(small)
    huge = keys(MAX_SNAPSHOT_KEYS, "huge")
    assert cache.get(huge).matches("pod.team-huge.node-7")
    assert list(cache.kept) == [small]


def test_a_run_of_hashes_is_one_hash():
    built = Matcher(("pod.team-a." + "#." * 120 + "zz", "#.#.n1"))
    assert built.root == {"pod": {"team-a": {"#": {"zz": {None: True}}}}, "#": {"n1": {None: True}}}
    assert not built.matches("pod.team-a.node-1") and built.matches("pod.team-a.zz")
    assert built.matches("node.-.n1") and key_matches("#.#", "pod.a.b") and key_matches("a.#.#.b", "a.b")


def test_a_snapshot_of_too_many_keys_is_refused_naming_the_field():
    with pytest.raises(StatusError) as refused:
        parse_request({"verb": "snapshot", "kind": "*", "options": {"keys": ["pod.#"] * (MAX_SNAPSHOT_KEYS + 1)}})
    assert (refused.value.reason, refused.value.code) == ("BadRequest", 400)
    assert refused.value.causes[0].field == "options.keys"
    assert refused.value.causes[0].message == f"Too many: {MAX_SNAPSHOT_KEYS + 1}: must have at most " \
                                              f"{MAX_SNAPSHOT_KEYS} items"

"""What a patch may build (api/patch/jsonpatch, api/patch/apply): JSON patch `copy` amplification is refused
while applying, before the copy is made (kube-apiserver's fix of CVE-2019-1002100), and at most
10,000 operations; the memory an attack costs is measured before and after."""
from __future__ import annotations

import copy
import tracemalloc

import pytest

from api.patch.apply import apply_patch
from api.patch.jsonpatch import MAX_COPY_BYTES, apply_json_patch
from api.status import StatusError

CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"},
             "data": {"a": "x" * 60}}


def doubling(copies: int) -> list[dict]:
    """The issue's attack: a list copied into itself, doubling it per operation (1.4 KB for 16)."""
    ops = [{"op": "add", "path": "/metadata/annotations", "value": {"l": [["y" * 80]]}}]
    return ops + [{"op": "copy", "from": "/metadata/annotations/l", "path": "/metadata/annotations/l/-"}] * copies


def refusal(run) -> StatusError:
    with pytest.raises(StatusError) as refused:
        run()
    return refused.value


def test_the_doubling_copy_attack_is_refused_while_applying_at_little_cost():
    tracemalloc.start()
    try:
        err = refusal(lambda: apply_patch("ConfigMap", CONFIGMAP, doubling(16), "json"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (err.reason, err.code) == ("Invalid", 422)
    assert err.causes[0].message.startswith("Unable to complete the copy, the accumulated size increase of copy is ")
    assert err.causes[0].message.endswith(f", exceeding the limit {MAX_COPY_BYTES}")
    assert peak < 4 * MAX_COPY_BYTES, f"{peak} bytes at the peak (17 MB before the bound)"


def test_the_limit_counts_every_copy_of_the_patch_as_json_patch_does():
    """json-patch's own case: `"A"` and 49 A's quoted are 51 bytes a copy; two of them exceed 100."""
    doc = {"foo": ["A", "A" * 49]}
    one = [{"op": "copy", "path": "/foo/-", "from": "/foo/1"}]
    assert apply_json_patch(doc, one, copy_limit=100)["foo"] == ["A", "A" * 49, "A" * 49]
    err = refusal(lambda: apply_json_patch(doc, one * 2, copy_limit=100))
    assert err.causes[0].message == ("Unable to complete the copy, the accumulated size increase of copy is 102, "
                                     "exceeding the limit 100")
    assert doc == {"foo": ["A", "A" * 49]}  # left as it was


def test_the_object_limit_is_the_callers():
    ops = doubling(5)
    assert len(apply_patch("ConfigMap", CONFIGMAP, ops, "json")["metadata"]["annotations"]["l"]) == 6
    err = refusal(lambda: apply_patch("ConfigMap", CONFIGMAP, ops, "json", max_bytes=1024))
    assert err.causes[0].message.endswith("exceeding the limit 1024")


def test_more_than_ten_thousand_operations_is_413_before_any_is_applied():
    ops = [{"op": "test", "path": "/kind", "value": "ConfigMap"}] * 10_001
    err = refusal(lambda: apply_patch("ConfigMap", CONFIGMAP, ops, "json"))
    assert (err.reason, err.code) == ("RequestEntityTooLarge", 413)
    assert err.message == "The allowed maximum operations in a JSON patch is 10000, got 10001"
    assert apply_patch("ConfigMap", CONFIGMAP, ops[:10_000], "json") == CONFIGMAP


@pytest.mark.parametrize("patch_type, patch", [
    pytest.param("merge", {"data": {"b": "y" * 1000}}, id="merge"),
    pytest.param("strategic", {"data": {"b": "y" * 1000}}, id="strategic"),
])
def test_merge_patches_build_nothing_beyond_their_inputs(patch_type, patch):
    """No operation of a merge patch copies: the result is at most the object and the patch."""
    before = copy.deepcopy(CONFIGMAP)
    out = apply_patch("ConfigMap", CONFIGMAP, patch, patch_type)
    assert out["data"] == {"a": "x" * 60, "b": "y" * 1000}
    assert CONFIGMAP == before

"""Node-selector requirements that labels.NewRequirement refuses, and NodeAffinity's addedAffinity
(NodeAffinityArgs) ANDed into Filter and added to Score."""
import random

import numpy as np
import pytest

from actors.scheduler.framework import UNRESOLVABLE, Context
from actors.scheduler.plugins.nodeaffinity import NodeAffinity
from actors.scheduler.podinfo import pod_info
from actors.scheduler.profiles import build
from config.scheduler import Profile, SchedulerConfiguration
from tests.unit.scheduler.kit import ctx, node, pod, scores, table, verdicts

# b's cores is no Go integer (Python's int() reads it as 10); c's overflows int64
NODES = (node("a", labels={"zone": "a", "cores": "8", "pool": "main"}), node("b", labels={"zone": "b", "cores": "1_0"}),
         node("c", labels={"cores": "99999999999999999999"}))
BAD = "___@#$%^"


def expr(key: str, op: str, *values: str) -> dict:
    return {"key": key, "operator": op, "values": list(values)}


def required(*terms: list[dict]) -> dict:
    return {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": t} for t in terms]}}


def passing(plugin: NodeAffinity, p: dict) -> list[str]:
    return [n for n, v in zip("abc", verdicts(plugin, table(*NODES), p)) if v == 0]


@pytest.mark.parametrize("terms,nodes", [
    pytest.param([[expr("zone", "NotIn", BAD)]], [], id="notin-invalid-value-matches-nothing"),
    pytest.param([[expr("zone", "In", "a", "not valid")]], [], id="in-one-invalid-value-among-valid"),
    pytest.param([[expr("zone", "NotIn", "x" * 64)]], [], id="value-over-63-chars"),
    pytest.param([[expr("zone", "NotIn", "")]], ["a", "b", "c"], id="empty-value-is-a-label-value"),
    pytest.param([[expr("cores", "Gt", "-1")]], [], id="negative-operand-is-no-label-value"),
    pytest.param([[expr("cores", "Lt", "99999999999999999999")]], [], id="operand-overflows-int64"),
    pytest.param([[expr("cores", "Gt", "5")]], ["a"], id="node-values-parsed-as-go-int64"),
    pytest.param([[expr("zone", "Exists"), expr("zone", "NotIn", BAD)]], [], id="spoils-its-whole-term"),
    pytest.param([[expr("zone", "NotIn", BAD)], [expr("zone", "In", "b")]], ["b"], id="other-terms-still-ored"),
])
def test_requirement_that_does_not_parse_matches_nothing(terms, nodes):
    assert passing(NodeAffinity(), pod(affinity={"nodeAffinity": required(*terms)})) == nodes


def test_bad_match_fields_and_foreign_field_keys():
    def by_field(*reqs):
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchFields": list(reqs)}]}}}

    assert passing(NodeAffinity(), pod(affinity=by_field(expr("metadata.name", "In", "a", "b")))) == []
    assert passing(NodeAffinity(), pod(affinity=by_field(expr("metadata.name", "NotIn", "b")))) == ["a", "c"]
    # upstream reads a field other than metadata.name as empty (fields.Set.Get)
    assert passing(NodeAffinity(), pod(affinity=by_field(expr("spec.x", "NotIn", "b")))) == ["a", "b", "c"]


def test_preferred_term_that_does_not_parse_scores_nothing():
    preferred = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 5, "preference": {"matchExpressions": [expr("zone", "NotIn", BAD)]}},
        {"weight": 1, "preference": {"matchExpressions": [expr("zone", "In", "a")]}}]}}
    assert scores(NodeAffinity(), table(*NODES), pod(affinity=preferred)) == [100, 0, 0]


MAIN_POOL = required([expr("pool", "In", "main")])
PREFER_B = {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 3, "preference": {"matchExpressions": [expr("zone", "In", "b")]}}]}


def _profile_framework(added: dict):
    args = {"addedAffinity": added}
    return build(Profile(pluginConfig=[{"name": "NodeAffinity", "args": args}]), SchedulerConfiguration(),
                 random.Random(3))


def _plugin(framework) -> NodeAffinity:
    return next(p for p in framework.filters if p.name == "NodeAffinity")


@pytest.mark.parametrize("spec,codes,reasons", [
    pytest.param({}, [0, UNRESOLVABLE, UNRESOLVABLE],
                 {1: "node(s) didn't match scheduler-enforced node affinity"}, id="added-alone-filters"),
    pytest.param({"nodeSelector": {"zone": "b"}}, [UNRESOLVABLE] * 3,
                 {0: "node(s) didn't match Pod's node affinity/selector",
                  1: "node(s) didn't match scheduler-enforced node affinity"}, id="anded-with-the-pods"),
    pytest.param({"affinity": {"nodeAffinity": required([expr("zone", "Exists")])}}, [0, UNRESOLVABLE, UNRESOLVABLE],
                 {2: "node(s) didn't match scheduler-enforced node affinity"}, id="enforced-reason-checked-first"),
])
def test_added_required_affinity_is_anded_into_filter(spec, codes, reasons):
    plugin = _plugin(_profile_framework(MAIN_POOL))
    c = ctx(table(*NODES), pod(**spec))
    assert plugin.pre_filter(c)
    verdict = plugin.filter(c, np.arange(3))
    assert [int(x) for x in verdict.codes] == codes
    assert {pos: verdict.reasons(pos) for pos in reasons} == {pos: [r] for pos, r in reasons.items()}


def test_fit_error_names_the_enforced_affinity():
    decision = _profile_framework(MAIN_POOL).schedule(Context(pod_info(pod(nodeSelector={"zone": "b"})),
                                                              table(*NODES)))
    assert decision.node is None
    assert decision.diagnosis.message() == ("0/3 nodes are available: 1 node(s) didn't match Pod's node "
                                            "affinity/selector, 2 node(s) didn't match scheduler-enforced "
                                            "node affinity.")


@pytest.mark.parametrize("affinity,expected", [
    pytest.param(None, [0, 100, 0], id="added-alone"),
    pytest.param({"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "preference": {"matchExpressions": [expr("zone", "In", "a")]}}]}}, [33, 100, 0],
        id="summed-with-the-pods"),
])
def test_added_preferred_terms_add_to_score(affinity, expected):
    plugin = next(p for p, _w in _profile_framework(PREFER_B).scorers if p.name == "NodeAffinity")
    assert scores(plugin, table(*NODES), pod(**({"affinity": affinity} if affinity else {}))) == expected


def test_added_affinity_decides_the_node():
    t = table(*NODES, node("d", labels={"pool": "main", "zone": "b"}))  # a and d pass; d is in the preferred zone
    assert _profile_framework({**MAIN_POOL, **PREFER_B}).schedule(Context(pod_info(pod()), t)).node == "d"


def test_pre_filter_skips_only_without_any_required_selection():
    t = table(*NODES)
    assert not NodeAffinity().pre_filter(ctx(t, pod()))
    assert _plugin(_profile_framework(MAIN_POOL)).pre_filter(ctx(t, pod()))
    assert not _plugin(_profile_framework(PREFER_B)).pre_filter(ctx(t, pod()))


@pytest.mark.parametrize("args", [
    pytest.param({"addedAffinity": required([expr("zone", "NotIn", BAD)])}, id="required-value-not-a-label-value"),
    pytest.param({"addedAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "preference": {"matchExpressions": [expr("cores", "Gt", "many")]}}]}}, id="preferred-gt-no-int"),
    pytest.param({"addedAffinity": required([expr("zone", "Equal", "a")])}, id="unknown-operator"),
    pytest.param({"addedAfinity": MAIN_POOL}, id="misspelt-field"),
    pytest.param({"addedAffinity": {"requiredDuringSchedulingRequiredDuringExecution": {}}},
                 id="unknown-affinity-field"),
])
def test_added_affinity_that_does_not_parse_refuses_the_profile(args):
    with pytest.raises(ValueError, match="profile 'default-scheduler': NodeAffinity args"):
        build(Profile(pluginConfig=[{"name": "NodeAffinity", "args": args}]), SchedulerConfiguration())


def test_args_may_name_their_kind():
    args = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "NodeAffinityArgs", "addedAffinity": MAIN_POOL}
    fw = build(Profile(pluginConfig=[{"name": "NodeAffinity", "args": args}]), SchedulerConfiguration())
    assert verdicts(_plugin(fw), table(*NODES), pod()) == [0, UNRESOLVABLE, UNRESOLVABLE]

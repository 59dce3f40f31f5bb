"""TaintToleration, NodeAffinity, NodeUnschedulable, NodeName and NodePorts."""
import numpy as np
import pytest

from actors.scheduler.framework import UNRESOLVABLE, UNSCHEDULABLE, Context
from actors.scheduler.plugins.basic import NodeName, NodeUnschedulable
from actors.scheduler.plugins.nodeaffinity import NodeAffinity
from actors.scheduler.plugins.ports import NodePorts
from actors.scheduler.plugins.taints import TaintToleration
from actors.scheduler.podinfo import pod_info
from actors.scheduler.profiles import build
from api.tolerations import tolerates
from config.scheduler import Profile, SchedulerConfiguration
from tests.unit.scheduler.kit import ctx, node, pod, scores, table, verdicts

TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


@pytest.mark.parametrize("toleration,ok", [
    pytest.param({"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}, True, id="equal"),
    pytest.param({"key": "dedicated", "value": "gpu"}, True, id="equal-is-default-any-effect"),
    pytest.param({"key": "dedicated", "operator": "Equal", "value": "cpu"}, False, id="other-value"),
    pytest.param({"key": "dedicated", "operator": "Exists"}, True, id="exists"),
    pytest.param({"operator": "Exists"}, True, id="empty-key-exists-tolerates-all"),
    pytest.param({"key": "dedicated", "operator": "Exists", "effect": "NoExecute"}, False, id="effect-mismatch"),
    pytest.param({"key": "other", "operator": "Exists"}, False, id="other-key"),
])
def test_toleration_operators(toleration, ok):
    assert tolerates(toleration, TAINT) is ok


@pytest.mark.parametrize("taints,code", [
    pytest.param([TAINT], UNRESOLVABLE, id="no-schedule"),
    pytest.param([{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}], UNRESOLVABLE, id="no-execute"),
    pytest.param([{"key": "k", "value": "v", "effect": "PreferNoSchedule"}], 0, id="prefer-no-schedule-never-blocks"),
    pytest.param([{"key": "a", "value": "1", "effect": "NoSchedule"}, {"key": "b", "effect": "NoExecute"}],
                 UNRESOLVABLE, id="two-untolerated"),
])
def test_taint_filter_reason_names_no_taint(taints, code):
    """v1.35 (kubernetes PR #134740): taint keys and values may be sensitive, so the reason names none."""
    t = table(node("clean"), node("tainted", taints=taints))
    verdict = TaintToleration().filter(ctx(t, pod()), np.arange(2))
    assert [int(x) for x in verdict.codes] == [0, code]
    if code:
        assert verdict.reasons(1) == ["node(s) had untolerated taint(s)"]


def test_fit_error_counts_every_untolerated_taint_as_one_reason():
    nodes = [node(f"n{i}", taints=[{"key": f"team-{i}", "value": str(i), "effect": ("NoSchedule", "NoExecute")[i % 2]}])
             for i in range(5)]
    decision = build(Profile(), SchedulerConfiguration()).schedule(Context(pod_info(pod()), table(*nodes)))
    assert decision.diagnosis.message() == "0/5 nodes are available: 5 node(s) had untolerated taint(s)."


def test_taint_score_prefers_fewer_untolerated_soft_taints():
    soft = [{"key": f"k{i}", "value": "", "effect": "PreferNoSchedule"} for i in range(2)]
    t = table(node("none"), node("one", taints=soft[:1]), node("two", taints=soft))
    assert scores(TaintToleration(), t, pod()) == [100, 50, 0]
    tolerant = pod(tolerations=[{"key": "k0", "operator": "Exists", "effect": "PreferNoSchedule"}])
    assert scores(TaintToleration(), t, tolerant) == [100, 100, 0]


ZONES = (node("a", labels={"zone": "a", "cores": "8"}), node("b", labels={"zone": "b", "cores": "16"}),
         node("c", labels={"cores": "x"}))


def _required(*exprs):
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": list(exprs)}]}}}


@pytest.mark.parametrize("expr,passing", [
    pytest.param({"key": "zone", "operator": "In", "values": ["a", "z"]}, ["a"], id="in"),
    pytest.param({"key": "zone", "operator": "NotIn", "values": ["a"]}, ["b", "c"], id="notin-absent-matches"),
    pytest.param({"key": "zone", "operator": "Exists"}, ["a", "b"], id="exists"),
    pytest.param({"key": "zone", "operator": "DoesNotExist"}, ["c"], id="does-not-exist"),
    pytest.param({"key": "cores", "operator": "Gt", "values": ["10"]}, ["b"], id="gt"),
    pytest.param({"key": "cores", "operator": "Lt", "values": ["10"]}, ["a"], id="lt-non-integer-never"),
    pytest.param({"key": "cores", "operator": "Gt", "values": ["ten"]}, [], id="unparsable-term-never"),
])
def test_required_node_affinity_operators(expr, passing):
    t = table(*ZONES)
    got = verdicts(NodeAffinity(), t, pod(affinity=_required(expr)))
    assert [n for n, v in zip("abc", got) if v == 0] == passing
    assert set(got) <= {0, UNRESOLVABLE}


def test_node_selector_and_empty_terms():
    t = table(*ZONES)
    assert verdicts(NodeAffinity(), t, pod(nodeSelector={"zone": "b"})) == [UNRESOLVABLE, 0, UNRESOLVABLE]
    empty = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{}]}}}
    assert verdicts(NodeAffinity(), t, pod(affinity=empty)) == [UNRESOLVABLE] * 3
    by_name = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["c"]}]}]}}}
    assert verdicts(NodeAffinity(), t, pod(affinity=by_name)) == [UNRESOLVABLE, UNRESOLVABLE, 0]


def test_preferred_node_affinity_scores():
    preferred = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 2, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}},
        {"weight": 6, "preference": {"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["4"]}]}}]}}
    assert scores(NodeAffinity(), table(*ZONES), pod(affinity=preferred)) == [100, 75, 0]


def test_unschedulable_and_node_name():
    t = table(node("cordoned", unschedulable=True), node("open"))
    assert verdicts(NodeUnschedulable(), t, pod()) == [UNRESOLVABLE, 0]
    tolerant = pod(tolerations=[{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                                 "effect": "NoSchedule"}])
    assert verdicts(NodeUnschedulable(), t, tolerant) == [0, 0]
    assert verdicts(NodeName(), t, pod(node_name="open")) == [UNRESOLVABLE, 0]


def _with_port(name, port, ip="", proto="TCP"):
    p = pod(name)
    p["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": port, "hostIP": ip, "protocol": proto}]
    return p


@pytest.mark.parametrize("used,wanted,conflict", [
    pytest.param(("", 80, "TCP"), ("", 80, "TCP"), True, id="same-port"),
    pytest.param(("10.0.0.1", 80, "TCP"), ("", 80, "TCP"), True, id="any-ip-conflicts-with-specific"),
    pytest.param(("10.0.0.1", 80, "TCP"), ("10.0.0.2", 80, "TCP"), False, id="different-ips"),
    pytest.param(("", 80, "TCP"), ("", 80, "UDP"), False, id="different-protocols"),
    pytest.param(("", 80, "TCP"), ("", 81, "TCP"), False, id="different-ports"),
])
def test_host_ports(used, wanted, conflict):
    t = table(node("n"), pods=((_with_port("old", used[1], used[0], used[2]), "n"),))
    got = verdicts(NodePorts(), t, _with_port("new", wanted[1], wanted[0], wanted[2]))
    assert got == [UNSCHEDULABLE if conflict else 0]

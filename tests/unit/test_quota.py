import pytest

from api import quantity, quota
from api.status import StatusError


def pod(name="p", requests=None, limits=None, phase=None, init=None, **spec):
    res = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    body = {"metadata": {"name": name, "namespace": "ns"},
            "spec": {"containers": [{"name": "app", "resources": res}], **spec}}
    if init:
        body["spec"]["initContainers"] = init
    if phase:
        body["status"] = {"phase": phase}
    return body


def rq(name, hard, used=None, **spec):
    return {"metadata": {"name": name, "namespace": "ns"}, "spec": {"hard": hard, **spec},
            "status": {"hard": hard, "used": used if used is not None else {k: "0" for k in hard}}}


@pytest.mark.parametrize("text,shown", [
    pytest.param("0.5", "500m", id="fraction-to-milli"),
    pytest.param("1000m", "1", id="milli-to-whole"),
    pytest.param("1.5Gi", "1536Mi", id="binary-down"),
    pytest.param("1024Mi", "1Gi", id="binary-up"),
    pytest.param("0.5Ki", "512", id="small-binary-is-decimal"),
    pytest.param("2000k", "2M", id="decimal-up"),
    pytest.param("1e3", "1e3", id="exponent-kept"),
    pytest.param("0", "0", id="zero"),
    pytest.param(2, "2", id="number"),
])
def test_show_prints_like_kubernetes(text, shown):
    assert quantity.show(text) == shown


def test_sum_keeps_the_first_format():
    assert str(quantity.amount("1G") + quantity.amount("512Mi")) == "1536870912"
    assert str(quantity.amount("0") + quantity.amount("512Mi")) == "512Mi"


@pytest.mark.parametrize("p,expected", [
    pytest.param(pod(requests={"cpu": "100m", "memory": "1Gi"}, limits={"cpu": "1"}),
                 {"count/pods": "1", "pods": "1", "cpu": "100m", "requests.cpu": "100m", "limits.cpu": "1",
                  "memory": "1Gi", "requests.memory": "1Gi"}, id="one-container"),
    pytest.param(pod(requests={"cpu": "100m"}, init=[{"name": "i", "resources": {"requests": {"cpu": "2"}}}]),
                 {"count/pods": "1", "pods": "1", "cpu": "2", "requests.cpu": "2"}, id="init-container-peak"),
    pytest.param(pod(requests={"cpu": "100m"}, phase="Succeeded"), {"count/pods": "1"}, id="terminal-only-counted"),
    pytest.param(pod(requests={"cpu": "100m"}, overhead={"cpu": "50m"}),
                 {"count/pods": "1", "pods": "1", "cpu": "150m", "requests.cpu": "150m"}, id="overhead"),
])
def test_pod_usage(p, expected):
    assert {k: str(v) for k, v in quota.pod_usage(p).items()} == expected


def test_object_count_usage_names_the_group_resource():
    assert set(quota.object_count_usage("Deployment")) == {"count/deployments.apps"}
    assert set(quota.object_count_usage("ResourceQuota")) == {"count/resourcequotas", "resourcequotas"}


@pytest.mark.parametrize("quotas,p,message", [
    pytest.param([rq("compute-resources", {"requests.memory": "1Gi"}, {"requests.memory": "600Mi"})],
                 pod(requests={"memory": "700Mi"}),
                 'pods "p" is forbidden: exceeded quota: compute-resources, requested: requests.memory=700Mi, '
                 'used: requests.memory=600Mi, limited: requests.memory=1Gi', id="exceeded"),
    pytest.param([rq("q", {"pods": "1", "cpu": "10"}, {"pods": "1", "cpu": "0"})], pod(requests={"cpu": "1"}),
                 'pods "p" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1',
                 id="masked-to-exceeded"),
    pytest.param([rq("compute-resources", {"limits.cpu": "2", "limits.memory": "2Gi"})], pod(requests={"cpu": "1"}),
                 'pods "p" is forbidden: failed quota: compute-resources: must specify limits.cpu for: app; '
                 'limits.memory for: app', id="must-specify"),
    pytest.param([rq("q", {"pods": "2"}, {})], pod(),
                 'pods "p" is forbidden: status unknown for quota: q, resources: pods', id="status-unknown"),
])
def test_check_refuses(quotas, p, message):
    with pytest.raises(StatusError) as err:
        quota.check(quotas, p, "Pod")
    assert err.value.message == message and err.value.reason == "Forbidden"


def test_check_returns_new_usage_of_matching_quotas():
    quotas = [rq("b", {"pods": "3", "requests.cpu": "2"}, {"pods": "1", "requests.cpu": "500m"}),
              rq("a", {"count/deployments.apps": "2"})]
    [(matched, used)] = quota.check(quotas, pod(requests={"cpu": "0.5"}), "Pod")
    assert matched["metadata"]["name"] == "b" and used == {"pods": "2", "requests.cpu": "1"}


@pytest.mark.parametrize("scopes,p,charged", [
    pytest.param(["BestEffort"], pod(), True, id="best-effort-matches"),
    pytest.param(["BestEffort"], pod(requests={"cpu": "1"}), False, id="burstable-skips-best-effort"),
    pytest.param(["Terminating"], pod(activeDeadlineSeconds=10), True, id="terminating"),
    pytest.param(["NotTerminating"], pod(activeDeadlineSeconds=10), False, id="not-terminating-skips"),
])
def test_scopes(scopes, p, charged):
    assert bool(quota.check([rq("q", {"pods": "5"}, scopes=scopes)], p, "Pod")) == charged


def test_priority_class_scope_selector():
    q = rq("q", {"pods": "5"}, scopeSelector={"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]})
    assert quota.check([q], pod(priorityClassName="high"), "Pod")
    assert not quota.check([q], pod(priorityClassName="low"), "Pod")


def test_object_count_check():
    deploy = {"metadata": {"name": "d", "namespace": "ns"}}
    with pytest.raises(StatusError, match=r'deployments.apps "d" is forbidden: exceeded quota: q, requested: '
                                          r'count/deployments.apps=1, used: count/deployments.apps=2'):
        quota.check([rq("q", {"count/deployments.apps": "2"}, {"count/deployments.apps": "2"})], deploy, "Deployment")


def test_recompute_counts_live_objects():
    q = rq("q", {"pods": "10", "requests.cpu": "4", "count/pods": "10", "secrets": "3"}, {"secrets": "1"})
    del q["status"]["hard"]
    pods = [pod("a", requests={"cpu": "1"}), pod("b", requests={"cpu": "500m"}), pod("c", phase="Failed")]
    status = quota.recompute(q, {"Pod": pods})
    assert status == {"hard": {"pods": "10", "requests.cpu": "4", "count/pods": "10", "secrets": "3"},
                      "used": {"secrets": "1", "pods": "2", "requests.cpu": "1500m", "count/pods": "3"}}
    assert quota.kinds_counted(q) == {"Pod", "Secret"}  # secrets: a served kind since ConfigMap and Secret came

"""The StatefulSet controller's decisions (stspods.py, stssync.py): ordinal identity, claims before
pods, OrderedReady and Parallel, scale-down from the highest ordinal, the partitioned rolling update,
the claims' owners under the retention policy and the status (k8s-config-workloads.md §7); and the
kind's defaults, validation messages and columns."""
from __future__ import annotations

import pytest

from actors.controllers import history, stssync
from actors.controllers.stspods import POD_INDEX_LABEL, POD_NAME_LABEL, claim_owners, new_pod
from api import statefulset_validation
from api.printers.columns import header, row
from api.validation import validate
from api.registry import KINDS
from api.updates import update_causes

NOW = 1_000_000.0
STAMP = "1970-01-12T13:46:40Z"  # NOW


def sts(replicas: int = 3, image: str = "nginx:1", **spec) -> dict:
    obj = {"apiVersion": "apps/v1", "kind": "StatefulSet",
           "metadata": {"name": "web", "namespace": "default", "uid": "set-uid", "generation": 1},
           "spec": {"replicas": replicas, "serviceName": "nginx", "selector": {"matchLabels": {"app": "nginx"}},
                    "template": {"metadata": {"labels": {"app": "nginx"}},
                                 "spec": {"containers": [{"name": "nginx", "image": image,
                                                          "volumeMounts": [{"name": "www", "mountPath": "/w"}]}]}},
                    "volumeClaimTemplates": [{"metadata": {"name": "www"},
                                              "spec": {"accessModes": ["ReadWriteOnce"],
                                                       "resources": {"requests": {"storage": "1Gi"}}}}],
                    **spec}}
    statefulset_validation.defaults(obj)
    return obj


def revisions_of(*sets: dict) -> stssync.Revisions:
    made = [history.snapshot(s, i + 1) for i, s in enumerate(sets)]
    return stssync.Revisions(made[0], made[-1])


def running(s: dict, ordinal: int, revs: stssync.Revisions, ready: bool = True, revision: dict | None = None) -> dict:
    revision = revision or revs.update
    pod = new_pod(s, {"metadata": {"labels": {"app": "nginx"}}, "spec": {}}, revision["metadata"]["name"], ordinal)
    pod["metadata"]["uid"] = f"uid-{ordinal}"
    pod["status"] = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True" if ready else "False",
                                                         "lastTransitionTime": STAMP}]}
    return pod


def claims_for(s: dict, *ordinals: int) -> dict[str, dict]:
    return {f"www-web-{o}": {"metadata": {"name": f"www-web-{o}", "namespace": "default"}} for o in ordinals}


def names(pods: list[dict]) -> list[str]:
    return [p["metadata"]["name"] for p in pods]


def test_ordered_ready_creates_the_claim_and_the_lowest_pod_first():
    s = sts()
    revs = revisions_of(s)
    plan = stssync.sync(s, [], {}, revs, NOW)
    assert names(plan.create_claims) == ["www-web-0"] and names(plan.create_pods) == ["web-0"]
    pod = plan.create_pods[0]
    assert pod["metadata"]["labels"] == {"app": "nginx", POD_NAME_LABEL: "web-0", POD_INDEX_LABEL: "0",
                                         history.HASH_LABEL: revs.update_name}
    assert pod["spec"]["hostname"] == "web-0" and pod["spec"]["subdomain"] == "nginx"
    assert pod["spec"]["volumes"] == [{"name": "www", "persistentVolumeClaim": {"claimName": "www-web-0"}}]
    assert plan.create_claims[0]["metadata"]["labels"] == {"app": "nginx"}


def test_ordered_ready_waits_for_the_previous_pod_to_be_ready():
    s = sts()
    revs = revisions_of(s)
    plan = stssync.sync(s, [running(s, 0, revs, ready=False)], claims_for(s, 0), revs, NOW)
    assert not plan.writes
    plan = stssync.sync(s, [running(s, 0, revs)], claims_for(s, 0), revs, NOW)
    assert names(plan.create_pods) == ["web-1"]


def test_parallel_creates_every_pod_at_once_and_ordinals_start():
    s = sts(podManagementPolicy="Parallel", ordinals={"start": 5})
    plan = stssync.sync(s, [], {}, revisions_of(s), NOW)
    assert names(plan.create_pods) == ["web-5", "web-6", "web-7"]
    assert names(plan.create_claims) == ["www-web-5", "www-web-6", "www-web-7"]


def test_scale_down_removes_the_highest_one_at_a_time_and_keeps_claims():
    s = sts(replicas=1)
    revs = revisions_of(s)
    pods = [running(s, o, revs) for o in range(3)]
    plan = stssync.sync(s, pods, claims_for(s, 0, 1, 2), revs, NOW)
    assert names(plan.delete_pods) == ["web-2"] and not plan.claim_owners
    pods[2]["metadata"]["deletionTimestamp"] = STAMP
    assert not stssync.sync(s, pods, claims_for(s, 0, 1, 2), revs, NOW).writes
    plan = stssync.sync(s, pods[:2], claims_for(s, 0, 1, 2), revs, NOW)
    assert names(plan.delete_pods) == ["web-1"]


def test_scale_down_halts_while_another_pod_is_unhealthy():
    s = sts(replicas=1)
    revs = revisions_of(s)
    pods = [running(s, 0, revs, ready=False), running(s, 1, revs)]
    assert not stssync.sync(s, pods, claims_for(s, 0, 1), revs, NOW).writes


def test_failed_pod_is_deleted_to_be_recreated():
    s = sts(replicas=1)
    revs = revisions_of(s)
    pod = running(s, 0, revs)
    pod["status"]["phase"] = "Failed"
    assert names(stssync.sync(s, [pod], claims_for(s, 0), revs, NOW).delete_pods) == ["web-0"]


def test_rolling_update_goes_from_the_highest_ordinal_down_to_the_partition():
    old, new = sts(), sts(image="nginx:2", updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 1}})
    revs = revisions_of(old, new)
    pods = [running(new, o, revs, revision=revs.current) for o in range(3)]
    plan = stssync.sync(new, pods, claims_for(new, 0, 1, 2), revs, NOW)
    assert names(plan.delete_pods) == ["web-2"]
    assert plan.status["currentReplicas"] == 3 and plan.status["updatedReplicas"] == 0
    pods[2] = running(new, 2, revs)
    plan = stssync.sync(new, pods, claims_for(new, 0, 1, 2), revs, NOW)
    assert names(plan.delete_pods) == ["web-1"]
    pods[1] = running(new, 1, revs)
    plan = stssync.sync(new, pods, claims_for(new, 0, 1, 2), revs, NOW)
    assert not plan.writes  # web-0 is below the partition
    assert plan.status["updatedReplicas"] == 2 and plan.status["currentRevision"] == revs.current_name
    pods.pop(0)  # a pod below the partition comes back at the current revision
    created = stssync.sync(new, pods, claims_for(new, 0, 1, 2), revs, NOW).create_pods[0]
    assert created["metadata"]["labels"][history.HASH_LABEL] == revs.current_name


def test_on_delete_never_deletes_and_completed_update_moves_the_current_revision():
    old, new = sts(), sts(image="nginx:2", updateStrategy={"type": "OnDelete"})
    revs = revisions_of(old, new)
    pods = [running(new, o, revs, revision=revs.current) for o in range(3)]
    assert not stssync.sync(new, pods, claims_for(new, 0, 1, 2), revs, NOW).writes
    rolled = sts(image="nginx:2")
    status = stssync.compute_status(rolled, [running(rolled, o, revs) for o in range(3)], revs, NOW)
    assert status["currentRevision"] == revs.update_name and status["currentReplicas"] == 3
    assert status["readyReplicas"] == status["availableReplicas"] == 3 and status["observedGeneration"] == 1


def test_min_ready_seconds_holds_availability_and_requeues():
    s = sts(minReadySeconds=10)
    revs = revisions_of(s)
    plan = stssync.sync(s, [running(s, 0, revs)], claims_for(s, 0), revs, NOW)
    assert not plan.create_pods and plan.status["availableReplicas"] == 0 and plan.requeue_after == 10


@pytest.mark.parametrize("policy, ordinal, expected", [
    ({"whenDeleted": "Retain", "whenScaled": "Retain"}, 0, None),
    ({"whenDeleted": "Delete", "whenScaled": "Retain"}, 0, ["StatefulSet"]),
    ({"whenDeleted": "Retain", "whenScaled": "Delete"}, 0, None),
    ({"whenDeleted": "Retain", "whenScaled": "Delete"}, 2, ["Pod"]),
    ({"whenDeleted": "Delete", "whenScaled": "Delete"}, 2, ["Pod"]),
    ({"whenDeleted": "Delete", "whenScaled": "Delete"}, 0, ["StatefulSet"]),
])
def test_claim_owners_follow_the_retention_policy(policy, ordinal, expected):
    s = sts(replicas=1, persistentVolumeClaimRetentionPolicy=policy)
    pod = running(s, ordinal, revisions_of(s))
    owners = claim_owners(s, {"metadata": {"name": f"www-web-{ordinal}"}}, ordinal, pod)
    assert (owners if owners is None else [r["kind"] for r in owners]) == expected


def test_a_claim_another_controller_owns_is_left_alone():
    s = sts(persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Retain"})
    claim = {"metadata": {"name": "www-web-0", "ownerReferences": [{"kind": "X", "uid": "u", "controller": True}]}}
    assert claim_owners(s, claim, 0, None) is None


def messages(obj: dict) -> list[str]:
    return [f"{c.field}: {c.message}" for c in validate(KINDS["StatefulSet"], obj)]


def test_defaults_as_kubernetes():
    spec = sts()["spec"]
    assert spec["podManagementPolicy"] == "OrderedReady" and spec["revisionHistoryLimit"] == 10
    assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    assert spec["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Retain", "whenScaled": "Retain"}
    assert spec["minReadySeconds"] == 0 and spec["volumeClaimTemplates"][0]["spec"]["volumeMode"] == "Filesystem"


@pytest.mark.parametrize("change, expected", [
    pytest.param(lambda s: None, [], id="valid-with-claim-mount"),
    pytest.param(lambda s: s["spec"].update(selector={"matchLabels": {"app": "other"}}), [
        "spec.template.metadata.labels: Invalid value: {'app': 'nginx'}: `selector` does not match template "
        "`labels`"], id="selector"),
    pytest.param(lambda s: s["spec"].update(podManagementPolicy="Sometimes"), [
        "spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'"], id="policy"),
    pytest.param(lambda s: s["spec"]["persistentVolumeClaimRetentionPolicy"].update(whenScaled="Keep"), [
        'spec.persistentVolumeClaimRetentionPolicy.whenScaled: Unsupported value: "Keep": supported values: '
        '"Retain", "Delete"'], id="retention"),
    pytest.param(lambda s: s["spec"]["template"]["spec"].update(restartPolicy="Never"), [
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'], id="restart"),
    pytest.param(lambda s: s["spec"]["updateStrategy"]["rollingUpdate"].update(partition=-1), [
        "spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0"],
        id="partition"),
    pytest.param(lambda s: s["spec"]["volumeClaimTemplates"][0]["spec"].pop("accessModes"), [
        "spec.volumeClaimTemplates[0].spec.accessModes: Required value: at least 1 access mode is required"],
        id="claim-template"),
])
def test_validation_messages(change, expected):
    s = sts()
    change(s)
    assert messages(s) == expected


def test_only_the_updatable_fields_change():
    old = sts()
    assert update_causes("StatefulSet", old, sts(replicas=5, image="nginx:2", minReadySeconds=3)) == []
    moved = sts()
    moved["spec"]["serviceName"] = "other"
    assert [f"{c.field}: {c.message}" for c in update_causes("StatefulSet", old, moved)] == [
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
        "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"]


def test_columns():
    s = sts()
    s["metadata"]["creationTimestamp"] = STAMP
    s["status"] = {"readyReplicas": 2}
    assert header("StatefulSet", True, False) == ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"]
    assert row("StatefulSet", s, True, False)[:2] + row("StatefulSet", s, True, False)[3:] == [
        "web", "2/3", "nginx", "nginx:1"]

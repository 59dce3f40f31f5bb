"""DaemonSet and ControllerRevision in api/: validation with Kubernetes' messages (ValidateDaemonSetSpec,
ValidateDaemonSetUpdate, ValidateControllerRevision[Update]) and kubectl's columns."""
from __future__ import annotations

import pytest

from api import apps_validation
from api.printers.columns import header, row
from api.registry import KINDS
from api.validation import validate


def daemonset(**spec) -> dict:
    obj = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": "agent"}},
                    "template": {"metadata": {"labels": {"app": "agent"}},
                                 "spec": {"containers": [{"name": "c", "image": "agent:1"}]}}, **spec}}
    apps_validation.defaults(obj)
    return obj


def messages(causes) -> list[str]:
    return [f"{c.field}: {c.message}" for c in causes]


@pytest.mark.parametrize("change, expected", [
    pytest.param(lambda d: d["spec"].update(selector={}), [
        "spec.selector: Invalid value: {}: empty selector is invalid for daemonset"], id="empty-selector"),
    pytest.param(lambda d: d["spec"]["template"]["spec"].update(activeDeadlineSeconds=5), [
        "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported"],
        id="active-deadline"),
    pytest.param(lambda d: d["spec"].update(updateStrategy={"type": "Recreate"}), [
        'spec.updateStrategy: Unsupported value: "Recreate": supported values: "RollingUpdate", "OnDelete"'],
        id="strategy-type"),
    pytest.param(lambda d: d["spec"].update(updateStrategy={"type": "RollingUpdate"}), [
        "spec.updateStrategy.rollingUpdate: Required value"], id="rolling-update-missing"),
    pytest.param(lambda d: d["spec"].update(updateStrategy={"type": "OnDelete"}), [], id="on-delete"),
    pytest.param(lambda d: d["spec"].update(revisionHistoryLimit=-1), [
        "spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0"], id="history-limit"),
    pytest.param(lambda d: d["spec"]["updateStrategy"]["rollingUpdate"].update(maxUnavailable="ten"), [
        "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: \"ten\": a valid percent string must be a "
        "numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"],
        id="not-a-percent"),
])
def test_daemonset_validation(change, expected):
    obj = daemonset()
    change(obj)
    assert messages(apps_validation.validate_daemonset(obj)) == expected


def test_a_valid_daemonset_passes_the_whole_chain():
    assert validate(KINDS["DaemonSet"], daemonset()) == []


def test_the_selector_is_immutable():
    old, new = daemonset(), daemonset()
    new["spec"]["selector"] = {"matchLabels": {"app": "other"}}
    assert messages(apps_validation.daemonset_update(old, new)) == [
        "spec.selector: Invalid value: {'matchLabels': {'app': 'other'}}: field is immutable"]


def test_controller_revision_validation():
    revision = {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "agent-abc"},
                "revision": -1}
    assert messages(apps_validation.validate_controller_revision(revision)) == [
        "data: Required value: data is mandatory", "revision: Invalid value: -1: must be greater than or equal to 0"]
    old, new = {**revision, "data": {"a": 1}}, {**revision, "data": {"a": 2}}
    assert messages(apps_validation.controller_revision_update(old, new)) == ['data: Invalid value: "": field is '
                                                                               'immutable']


def test_kubectl_columns():
    obj = daemonset()
    obj["spec"]["template"]["spec"]["nodeSelector"] = {"role": "edge", "disk": "ssd"}
    obj["status"] = {"desiredNumberScheduled": 3, "currentNumberScheduled": 3, "numberReady": 2,
                     "updatedNumberScheduled": 1, "numberAvailable": 2}
    assert header("DaemonSet", False, False) == ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE",
                                                 "NODE SELECTOR", "AGE"]
    assert row("DaemonSet", obj, False, False)[:7] == ["agent", "3", "3", "2", "1", "2", "disk=ssd,role=edge"]
    revision = {"metadata": {"name": "agent-abc", "ownerReferences": [
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": "u", "controller": True}]},
        "revision": 2}
    assert header("ControllerRevision", False, False) == ["NAME", "CONTROLLER", "REVISION", "AGE"]
    assert row("ControllerRevision", revision, False, False)[:3] == ["agent-abc", "daemonset.apps/agent", "2"]

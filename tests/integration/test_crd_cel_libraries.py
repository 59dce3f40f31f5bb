"""x-kubernetes-validations using Kubernetes' CEL libraries, through the real apiserver: a CRD whose rules
call the CIDR, Format and Semver libraries is accepted, and a custom object breaking each rule is refused
in Kubernetes' words (the Format one with apimachinery's own message, through messageExpression)."""
from __future__ import annotations

import copy

import pytest

from api.status import StatusError
from testkit.waiting import wait_until
from tests.crds import widget_crd
from tests.integration.test_crd import established

pytestmark = pytest.mark.shared_plane  # one control plane for the module, a namespace per test
PLANE_ACTORS = [("actors.controllers", "crd")]

RULES = [
    {"rule": "isCIDR(self.cidr) && cidr(self.cidr).containsIP(self.gateway)"},
    {"rule": "!format.dns1123Label().validate(self.name).hasValue()",
     "messageExpression": "format.dns1123Label().validate(self.name).value().join(', ')"},
    {"rule": "semver(self.version, true).isGreaterThan(semver('1.0.0'))", "message": "version must be above 1.0.0"},
]
SPEC = {"type": "object", "required": ["cidr", "gateway", "name", "version"], "x-kubernetes-validations": RULES,
        "properties": {key: {"type": "string", "maxLength": 64} for key in ("cidr", "gateway", "name", "version")}}
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
         "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")



def subnet_crd() -> dict:
    crd = widget_crd()
    crd["metadata"]["name"] = "subnets.example.com"
    crd["spec"]["names"] = {"plural": "subnets", "singular": "subnet", "kind": "Subnet"}
    version = crd["spec"]["versions"][0]
    version["schema"] = {"openAPIV3Schema": {"type": "object", "properties": {"spec": copy.deepcopy(SPEC)}}}
    version.pop("additionalPrinterColumns")
    return crd


def subnet(name: str, spec: dict | None = None) -> dict:
    good = {"cidr": "10.0.0.0/16", "gateway": "10.0.0.1", "name": "east", "version": "v1.2"}
    return {"apiVersion": "example.com/v1", "kind": "Subnet", "metadata": {"name": name},
            "spec": good | (spec or {})}


def _created(client, obj: dict):
    try:
        return client.create(obj, client.namespace)
    except StatusError as exc:
        if exc.reason == "NotFound":
            return None
        raise


@pytest.mark.parametrize("spec,message", [
    pytest.param({"cidr": "10.0.0.0"}, 'spec: Invalid value: "object": failed rule: isCIDR(self.cidr) && '
                 "cidr(self.cidr).containsIP(self.gateway)", id="not-a-cidr"),
    pytest.param({"gateway": "10.1.0.1"}, 'spec: Invalid value: "object": failed rule: isCIDR(self.cidr) && '
                 "cidr(self.cidr).containsIP(self.gateway)", id="gateway-outside"),
    pytest.param({"name": "East_1"}, f'spec: Invalid value: "object": {LABEL}', id="format"),
    pytest.param({"version": "0.9"}, 'spec: Invalid value: "object": version must be above 1.0.0', id="semver"),
])
def test_library_rules_refuse_in_kubernetes_words(crds, spec, message):
    crds.create(subnet_crd())
    established(crds, "subnets.example.com")
    assert wait_until(lambda: _created(crds, subnet("good")), 10, what="Subnet served")["spec"]["name"] == "east"
    with pytest.raises(StatusError) as bad:
        crds.create(subnet("bad", spec), crds.namespace)
    assert bad.value.reason == "Invalid"
    assert bad.value.message == f'Subnet.example.com "bad" is invalid: {message}'

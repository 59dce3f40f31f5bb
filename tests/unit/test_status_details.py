"""The details of NotFound, AlreadyExists and Conflict name the resource as apimachinery's errors
do (`NewNotFound(qualifiedResource, name)`): its group and lower-case plural, not its kind — what
clients of the gateway read from the Status."""
from __future__ import annotations

import pytest

from api.errors import already_exists, conflict, not_found


@pytest.mark.parametrize("make", [not_found, already_exists, conflict])
@pytest.mark.parametrize("kind,details", [
    pytest.param("Pod", {"name": "web", "kind": "pods"}, id="core"),
    pytest.param("Deployment", {"name": "web", "group": "apps", "kind": "deployments"}, id="apps"),
])
def test_details_name_the_group_and_the_resource(make, kind, details):
    assert make(kind, "web").to_dict()["details"] == details

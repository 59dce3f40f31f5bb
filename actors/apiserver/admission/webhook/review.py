"""AdmissionReview v1 (Kubernetes' `admission/v1` and `request/admissionreview.go`): the request a
webhook is sent, and what its reply means — allowed, a denial as Kubernetes words it, or an invalid
reply (an error the failure policy judges). Pure: no I/O here."""
from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field

from api.managedfields import raw
from api.status import CODES, StatusError

API_VERSION = "admission.k8s.io/v1"
OPTIONS_KIND = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}


class InvalidReply(Exception):
    """A reply that is not an answer: `received invalid webhook response: ...`."""


@dataclass
class Verdict:
    allowed: bool
    patch: list | None = None
    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)


def request(attempt, uid: str, dry_run: bool) -> dict:
    info = attempt.info
    group, _, version = info.api_version.rpartition("/")
    kind = {"group": group, "version": version, "kind": info.kind}
    resource = {"group": group, "version": version, "resource": info.plural}
    user = attempt.user
    review = {"uid": uid, "kind": kind, "resource": resource, "requestKind": kind, "requestResource": resource,
              "name": attempt.name if attempt.operation != "CREATE" or attempt.name else "",
              "namespace": attempt.namespace, "operation": attempt.operation,
              "userInfo": {"username": user.name, "uid": user.uid, "groups": list(user.groups),
                           **({"extra": user.extra_dict()} if user.extra else {})},
              "object": _typed(info, attempt.obj), "oldObject": _typed(info, attempt.old), "dryRun": dry_run,
              "options": {"apiVersion": "meta.k8s.io/v1", "kind": OPTIONS_KIND.get(attempt.operation, "")}}
    if attempt.subresource:
        review["subResource"] = review["requestSubResource"] = attempt.subresource
    return {"apiVersion": API_VERSION, "kind": "AdmissionReview", "request": review}


def _typed(info, obj: dict | None) -> dict | None:
    """As the webhook's client library reads it: typed, each `fieldsV1` its JSON object."""
    return None if obj is None else {"apiVersion": info.api_version, "kind": info.kind, **raw.expanded(obj)}


def verdict(reply: object, uid: str, mutating: bool) -> Verdict:
    """The reply read, or InvalidReply saying why it cannot be."""
    if not isinstance(reply, dict) or not isinstance(reply.get("response"), dict):
        raise InvalidReply("webhook response was absent")
    if reply.get("apiVersion") != API_VERSION or reply.get("kind") != "AdmissionReview":
        raise InvalidReply(f"expected webhook response of {API_VERSION}, Kind=AdmissionReview, got "
                           f"{reply.get('apiVersion')}, Kind={reply.get('kind')}")
    response = reply["response"]
    if response.get("uid") != uid:
        raise InvalidReply(f'expected response.uid="{uid}", got "{response.get("uid")}"')
    patch, patch_type = response.get("patch"), response.get("patchType")
    if patch and not patch_type:
        raise InvalidReply("webhook returned response.patch but not response.patchType")
    if patch_type and not patch:
        raise InvalidReply("webhook returned response.patchType but not response.patch")
    if patch and not mutating:
        raise InvalidReply("validating webhook may not return response.patch")
    if patch_type and patch_type != "JSONPatch":
        raise InvalidReply(f'webhook returned invalid response.patchType of "{patch_type}"')
    return Verdict(bool(response.get("allowed")), _decoded(patch) if patch else None,
                   [str(w) for w in response.get("warnings") or ()],
                   {str(k): str(v) for k, v in (response.get("auditAnnotations") or {}).items()})


def _decoded(patch: str) -> list:
    try:
        ops = json.loads(base64.b64decode(patch))
    except (ValueError, TypeError) as exc:
        raise InvalidReply(f"the patch is not base64 JSON: {exc}") from None
    if not isinstance(ops, list):
        raise InvalidReply("the patch is not a JSON Patch (a list of operations)")
    return ops


def denied(name: str, reply: dict) -> StatusError:
    """`admission webhook "<name>" denied the request: <message>` with the webhook's reason and code."""
    status = (reply.get("response") or {}).get("status") or {}
    detail = status.get("message") or status.get("reason")
    message = f'admission webhook "{name}" denied the request' + (
        f": {detail}" if detail else " without explanation")
    code = status.get("code") if isinstance(status.get("code"), int) and status["code"] >= 400 else 400
    reason = status.get("reason") if CODES.get(status.get("reason")) == code else _reason_of(code)
    return StatusError(reason, message)


def _reason_of(code: int) -> str:
    return next((reason for reason, known in CODES.items() if known == code), "BadRequest")

"""How the apiserver answers a patch that does not apply (apiserver pkg/endpoints/handlers/patch.go).

- A body that is not a patch of its type, and the strategic patch's format errors: 400 BadRequest
  with the library's message (`invalid patch format of retainKeys`).
- A JSON patch operation that fails (a `test`, a missing path) and a list of lists: 422 Invalid,
  "the server rejected our request due to an error in our request". Kubernetes drops the library's
  message there; kubus keeps it as a cause of type UnexpectedServerResponse, so the user sees
  which operation failed.
- Any other error of strategicpatch (an item without its merge key, an unknown `$patch`):
  Kubernetes answers 500 with the message; kubus answers 400 BadRequest with the same message, as
  it is the request that is wrong.
"""
from __future__ import annotations

from api.gojson import go_str, type_name
from api.status import Cause, StatusError, bad_request

REJECTED = "the server rejected our request due to an error in our request"


def unprocessable(detail: str) -> StatusError:
    return StatusError("Invalid", REJECTED, [Cause("", detail, "UnexpectedServerResponse")])


def malformed(message: str) -> StatusError:
    return bad_request(message)


def no_merge_key(item: dict, key: str) -> StatusError:
    return malformed(f"map: {go_str(item)} does not contain declared merge key: {key}")


def bad_arg_type(expected: str, value: object) -> StatusError:
    return malformed(f"expected a {expected}, but received a {type_name(value)}")


BAD_RETAIN_KEYS = "invalid patch format of retainKeys"
BAD_PRIMITIVE_LIST = "invalid patch format of primitive list"
BAD_SET_ORDER = "invalid patch format of setElementOrder list"
LIST_OF_LISTS = "lists of lists are not supported"

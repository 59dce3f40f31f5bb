"""`kubus patch`: a merge patch through the apiserver's patch verb, or a JSON patch (RFC 6902)
applied here to the current object and written back with its resourceVersion.

`jsonpatch` is not installed, so RFC 6902 is implemented below (add, remove, replace, move, copy,
test; `-` appends to an array). Kubernetes' apiserver applies JSON patches itself; when kubus's
apiserver does, `apply_json_patch` belongs in `api/` and this command sends the patch as it is.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

import click
import yaml

from api.registry import KindInfo
from api.status import StatusError
from cli.session import connected, kind_info
from runtime.client import Client

CONFLICT_RETRIES = 5  # a read-modify-write that loses the race this often reports the Conflict


class PatchError(ValueError):
    """A JSON patch that does not apply: a bad operation, a missing path or a failed test."""


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f"invalid JSON pointer {path!r}: must start with '/'")
    return [token.replace("~1", "/").replace("~0", "~") for token in path[1:].split("/")]


def _index(container: list, token: str, appending: bool = False) -> int:
    if appending and token == "-":
        return len(container)
    if not token.isdigit() or (token != "0" and token.startswith("0")):
        raise PatchError(f"invalid array index {token!r}")
    index = int(token)
    if index > len(container) - (0 if appending else 1):
        raise PatchError(f"array index {index} out of bounds")
    return index


def _child(node: Any, token: str) -> Any:
    if isinstance(node, dict) and token in node:
        return node[token]
    if isinstance(node, list):
        return node[_index(node, token)]
    raise PatchError(f"path element {token!r} does not exist")


def _resolve(doc: Any, tokens: list[str]) -> Any:
    for token in tokens:
        doc = _child(doc, token)
    return doc


def _add(doc: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value
    parent = _resolve(doc, tokens[:-1])
    if isinstance(parent, dict):
        parent[tokens[-1]] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, tokens[-1], appending=True), value)
    else:
        raise PatchError(f"cannot add to a {type(parent).__name__}")
    return doc


def _remove(doc: Any, tokens: list[str]) -> tuple[Any, Any]:
    """The document without the value at `tokens`, and that value."""
    if not tokens:
        raise PatchError("cannot remove the whole document")
    parent = _resolve(doc, tokens[:-1])
    value = _child(parent, tokens[-1])
    if isinstance(parent, dict):
        del parent[tokens[-1]]
    else:
        del parent[_index(parent, tokens[-1])]
    return doc, value


def _replace(doc: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value
    parent = _resolve(doc, tokens[:-1])
    _child(parent, tokens[-1])  # the target must exist
    parent[tokens[-1] if isinstance(parent, dict) else _index(parent, tokens[-1])] = value
    return doc


def _apply_op(doc: Any, op: dict) -> Any:
    kind, path = op.get("op"), _pointer(op.get("path", ""))
    if kind in ("add", "replace", "test") and "value" not in op:
        raise PatchError(f"{kind} operation needs a value")
    if kind == "add":
        return _add(doc, path, copy.deepcopy(op["value"]))
    if kind == "remove":
        return _remove(doc, path)[0]
    if kind == "replace":
        return _replace(doc, path, copy.deepcopy(op["value"]))
    if kind == "test":
        if _resolve(doc, path) != op["value"]:
            raise PatchError(f"testing value {op.get('path')} failed")
        return doc
    if kind in ("move", "copy"):
        source = _pointer(op.get("from", ""))
        if kind == "move" and path[:len(source)] == source and path != source:
            raise PatchError(f"cannot move {op.get('from')} into its own child {op.get('path')}")
        doc, value = _remove(doc, source) if kind == "move" else (doc, copy.deepcopy(_resolve(doc, source)))
        return _add(doc, path, value)
    raise PatchError(f"unknown operation {kind!r}")


def apply_json_patch(doc: Any, operations: list[dict]) -> Any:
    """`doc` with each operation applied in order (a copy; `doc` is left as it was)."""
    if not isinstance(operations, list) or not all(isinstance(op, dict) for op in operations):
        raise PatchError("a JSON patch is a list of operations")
    result = copy.deepcopy(doc)
    for op in operations:
        result = _apply_op(result, op)
    return result


def read_modify_write(client: Client, info: KindInfo, name: str, ns: str | None,
                      change: Callable[[dict], dict]) -> tuple[dict, bool]:
    """Get the object, change a copy, update it with its resourceVersion; again on Conflict.
    Returns the object as stored and whether anything changed (no write when nothing did)."""
    attempt = 1
    while True:
        current = client.get(info.kind, name, ns)
        wanted = change(copy.deepcopy(current))
        if wanted == current:
            return current, False
        try:
            return client.update(wanted), True
        except StatusError as exc:
            if exc.reason != "Conflict" or attempt >= CONFLICT_RETRIES:
                raise
            attempt += 1


def object_name(info: KindInfo, name: str) -> str:
    """How kubectl names an object in its output: `pod/x`, `deployment.apps/web`."""
    return f"{info.kind.lower()}{'.' + info.group if info.group else ''}/{name}"


def targets(args: tuple[str, ...]) -> list[tuple[KindInfo, str]]:
    """`KIND/NAME...` or `KIND NAME...`, as kubectl's resource arguments read."""
    if args and all("/" in a for a in args):
        pairs = [a.split("/", 1) for a in args]
        return [(kind_info(k), n) for k, n in pairs]
    if len(args) < 2 or any("/" in a for a in args):
        raise click.UsageError("name the objects: KIND/NAME... or KIND NAME...")
    info = kind_info(args[0])
    return [(info, n) for n in args[1:]]


def _parse(text: str, kind: str) -> Any:
    """The patch as JSON or YAML (kubectl reads either)."""
    try:
        body = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise click.BadParameter(f"unable to parse {text!r}: {exc}", param_hint="-p") from None
    if kind == "merge" and not isinstance(body, dict):
        raise click.BadParameter("a merge patch is a JSON object", param_hint="-p")
    return body


def _json_patched(operations: list[dict]) -> Callable[[dict], dict]:
    def change(obj: dict) -> dict:
        try:
            return apply_json_patch(obj, operations)
        except PatchError as exc:
            raise click.ClickException(f"The request is invalid: {exc}") from None
    return change


@click.command("patch")
@click.argument("target", nargs=-1, required=True)
@click.option("-p", "--patch", "text", required=True, help="The patch, as JSON or YAML.")
@click.option("--type", "patch_type", type=click.Choice(["merge", "json"]), default="merge",
              help="merge: RFC 7386 (the apiserver's patch verb); json: RFC 6902 operations.")
@click.option("-n", "--namespace", default=None)
def patch(target: tuple[str, ...], text: str, patch_type: str, namespace: str | None) -> None:
    """Change fields of an object: `kubus patch pod web -p '{"metadata":{"labels":{"a":"b"}}}'`."""
    found = targets(target)
    if len(found) != 1:
        raise click.UsageError("name one object: KIND NAME or KIND/NAME")
    info, name = found[0]
    ns = (namespace or "default") if info.namespaced else None
    body = _parse(text, patch_type)
    with connected() as client:
        if patch_type == "json":
            _, changed = read_modify_write(client, info, name, ns, _json_patched(body))
        else:
            before = client.get(info.kind, name, ns)["metadata"]["resourceVersion"]
            changed = client.patch(info.kind, name, body, ns)["metadata"]["resourceVersion"] != before
    click.echo(f"{object_name(info, name)} patched{'' if changed else ' (no change)'}")

"""`kubus label` and `kubus annotate`: set (`key=value`) or remove (`key-`) labels and annotations."""
from __future__ import annotations

import click

from cli.session import connected, kind_info


def parse_changes(pairs: tuple[str, ...]) -> dict[str, str | None]:
    """`key=value` sets, `key-` removes (None), as kubectl reads them."""
    changes: dict[str, str | None] = {}
    for pair in pairs:
        if pair.endswith("-") and "=" not in pair:
            changes[pair[:-1]] = None
        elif "=" in pair:
            key, _, value = pair.partition("=")
            changes[key] = value
        else:
            raise click.BadParameter(f"{pair!r}: expected key=value or key-", param_hint="KEY=VALUE")
    return changes


def conflicts(current: dict[str, str], changes: dict[str, str | None]) -> list[str]:
    """Keys that already hold another value (kubectl refuses these without --overwrite)."""
    return [k for k, v in changes.items() if v is not None and k in current and current[k] != v]


def _command(field: str, verb: str):
    @click.argument("kind")
    @click.argument("name")
    @click.argument("pairs", nargs=-1, required=True, metavar="KEY=VALUE|KEY-...")
    @click.option("-n", "--namespace", default=None)
    @click.option("--overwrite", is_flag=True, help="Replace values that are already set.")
    def command(kind: str, name: str, pairs: tuple[str, ...], namespace: str | None, overwrite: bool) -> None:
        info = kind_info(kind)
        changes = parse_changes(pairs)
        ns = (namespace or "default") if info.namespaced else None
        with connected() as c:
            current = c.get(info.kind, name, ns)["metadata"].get(field) or {}
            taken = conflicts(current, changes)
            if taken and not overwrite:
                raise click.ClickException(f"'{taken[0]}' already has a value ({current[taken[0]]}), "
                                           f"and --overwrite is false")
            c.patch(info.kind, name, {"metadata": {field: changes}}, ns)
        click.echo(f"{info.kind.lower()}/{name} {verb}")

    return command


label = click.command("label", help="Set or remove labels: `kubus label pod web tier=front old-`.")(
    _command("labels", "labeled"))
annotate = click.command("annotate", help="Set or remove annotations: `kubus annotate pod web note=hi old-`.")(
    _command("annotations", "annotated"))

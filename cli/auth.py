"""`kubus auth can-i` and `kubus auth whoami`: what the apiserver's authorizer says about you (a
SelfSubjectAccessReview), or about someone else (`--as`: a SubjectAccessReview, which needs
`create subjectaccessreviews`), and who the apiserver takes you for (a SelfSubjectReview)."""
from __future__ import annotations

import json
import sys

import click
import yaml

from api.printers import columns as printers
from api.registry import known, lookup
from cli.session import connected


@click.group()
def auth() -> None:
    """Inspect authorization."""


@auth.command("can-i")
@click.argument("verb")
@click.argument("target")
@click.option("-n", "--namespace", default=None)
@click.option("-A", "--all-namespaces", is_flag=True, help="Ask about every namespace.")
@click.option("--subresource", default="")
@click.option("--as", "as_user", default=None, help="Ask about this user (a SubjectAccessReview).")
@click.option("--as-group", "as_groups", multiple=True, help="A group of the --as user (repeatable).")
def can_i(verb, target, namespace, all_namespaces, subresource, as_user, as_groups) -> None:
    """Whether VERB is allowed on TARGET (TYPE, TYPE/NAME, or a /path); prints yes or no, exits 0 or 1."""
    spec = {"resourceAttributes" if not target.startswith("/") else "nonResourceAttributes":
            _attributes(verb, target, namespace, all_namespaces, subresource)}
    kind = "SelfSubjectAccessReview"
    if as_user:
        kind, spec = "SubjectAccessReview", {**spec, "user": as_user, "groups": list(as_groups)}
    with connected() as client:
        review = client.create({"apiVersion": "authorization.k8s.io/v1", "kind": kind, "spec": spec})
    allowed = review["status"]["allowed"]
    click.echo("yes" if allowed else "no")
    sys.exit(0 if allowed else 1)


def _attributes(verb: str, target: str, namespace, all_namespaces: bool, subresource: str) -> dict:
    if target.startswith("/"):
        return {"verb": verb, "path": target}
    resource, _, name = target.partition("/")
    group = ""
    if known(resource):
        info = lookup(resource)
        resource, group = info.plural, info.group
        namespace = "" if all_namespaces or not info.namespaced else (namespace or "default")
    attrs = {"verb": verb, "resource": resource, "group": group, "subresource": subresource, "name": name,
             "namespace": "" if all_namespaces else (namespace or "default")}
    return {k: v for k, v in attrs.items() if v}


@auth.command()
@click.option("-o", "--output", type=click.Choice(["table", "json", "yaml"]), default="table")
def whoami(output: str) -> None:
    """The user name and groups the apiserver sees."""
    with connected() as client:
        review = client.create({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    info = review["status"]["userInfo"]
    if output != "table":
        click.echo(json.dumps(review, indent=2) if output == "json" else yaml.safe_dump(review, sort_keys=False))
        return
    click.echo(printers.table([["ATTRIBUTE", "VALUE"], ["Username", info["username"]],
                               ["Groups", "[" + " ".join(info["groups"]) + "]"]]))

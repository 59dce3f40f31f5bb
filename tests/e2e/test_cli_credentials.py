"""Every `kubus` command run with credentials the cluster does not know — a fresh shell after `make demo`,
no `.kubus/demo.env` sourced, so KUBUS_AMQP_URL is the broker's `guest` — ends with a message, never a
Python traceback. The table names every command of the CLI, so a new one cannot be left out."""
from __future__ import annotations

import traceback

import click
import pytest
from click.testing import CliRunner

from cli.main import main

MANIFEST = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n"
COMMANDS = {  # a command's words → its arguments (None: not a command of the cluster's users)
    "apply": ["-f", "{manifest}"], "get": ["pods"], "delete": ["pod", "web"], "describe": ["pod", "web"],
    "rollout status": ["deployment/web"], "rollout undo": ["deployment/web"],
    "rollout history": ["deployment/web"], "rollout restart": ["deployment/web"],
    "rollout pause": ["deployment/web"], "rollout resume": ["deployment/web"],
    "scale": ["deployment/web", "--replicas", "2"], "logs": ["web"],
    "up": None,  # starts a cluster's actors, each as its own broker user
    # the local image registry's, over HTTP on this host: no cluster credentials at all
    "image build": None, "image import": None, "image list": None, "image registry": None,
    "bootstrap": None,  # the broker administrator's (KUBUS_ADMIN_URL), not a person's
    "cordon": ["n1"], "uncordon": ["n1"], "drain": ["n1"], "label": ["pod", "web", "a=b"],
    "annotate": ["pod", "web", "a=b"], "auth can-i": ["get", "pods"], "auth whoami": [],
    "dead-letters": [], "create namespace": ["team"], "create ns": ["team"],
    "create deployment": ["web", "--image", "nginx"], "create deploy": ["web", "--image", "nginx"],
    "create job": ["pi", "--image", "busybox:1.35", "--", "true"],
    "create cronjob": ["tick", "--image", "busybox:1.35", "--schedule", "*/1 * * * *"],
    "create configmap": ["cfg", "--from-literal", "a=b"], "create cm": ["cfg", "--from-literal", "a=b"],
    "create secret generic": ["s", "--from-literal", "a=b"],
    "create secret tls": ["t", "--cert", "{manifest}", "--key", "{manifest}"],
    "create secret docker-registry": ["d", "--docker-username", "u", "--docker-password", "p"],
    "run": ["web", "--image", "nginx"], "set image": ["deployment/web", "web=nginx:2"],
    "patch": ["pod/web", "-p", '{"metadata": {"labels": {"a": "b"}}}'],
    "wait": ["--for=delete", "pod/web", "--timeout=1s"], "events": [], "api-resources": [], "status": [],
    "config view": [], "config write": ["-f", "{kubeconfig}"], "expose": ["deployment", "web", "--port", "80"],
}
NOT_AS_A_PERSON = {"dead-letters", "config view", "config write"}  # the administrator's, or files on this host


def _commands(group: click.Group, words: tuple[str, ...] = ()) -> list[str]:
    found = []
    for name, command in group.commands.items():
        found += _commands(command, (*words, name)) if isinstance(command, click.Group) else [" ".join((*words, name))]
    return found


def test_the_table_names_every_command():
    assert sorted(_commands(main)) == sorted(COMMANDS)


def test_every_command_with_unknown_credentials_says_so_plainly(cluster, procs, settings, tmp_path):
    env = {**{k: v for k, v in procs.env.items() if k.startswith("KUBUS_")}, "KUBUS_AMQP_URL": settings.admin_url}
    paths = {"{manifest}": str(tmp_path / "ns.yaml"), "{kubeconfig}": str(tmp_path / "kubeconfig")}
    (tmp_path / "ns.yaml").write_text(MANIFEST)
    unclear = {}
    for words, args in COMMANDS.items():
        if args is None:
            continue
        result = CliRunner(env=env).invoke(main, [*words.split(), *(paths.get(arg, arg) for arg in args)])
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            unclear[words] = "".join(traceback.format_exception(result.exception))
        elif result.exit_code and not result.output.strip():
            unclear[words] = f"(exit {result.exit_code}, nothing said)"
        elif result.exit_code and words not in NOT_AS_A_PERSON and "Unauthorized" not in result.output:
            unclear[words] = result.output
    assert not unclear, "\n\n".join(f"kubus {words}:\n{said}" for words, said in unclear.items())

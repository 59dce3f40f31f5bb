"""kubectl 1.33 exec, cp and port-forward through the gateway into a real container (a cri node with
its own containerd): output, exit codes as kubectl reports them, stdin, a terminal, files both ways,
an HTTP server's port, and the refusals."""
from __future__ import annotations

import os
import shutil
import subprocess
import urllib.request

import pytest

from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import kubectl_at
from tests.integration.cri.conftest import cri_module  # noqa: F401  (the fixture)
from tests.integration.cri.test_cri_pods import pod, state
from testkit.people import as_person, token_of
from testkit.hosts import free_port
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl on the PATH")


@pytest.fixture(scope="module")
def kube(cri_module):  # noqa: F811
    """kubectl 1.33 as admin, through a gateway, with pod `box` running on the module's cri node
    (`.settings`: the cluster's, as admin)."""
    cri_cluster, settings, tmp_path = cri_module.client, cri_module.settings, cri_module.tmp
    cri_cluster.create(pod("box", "sleep 3600"))
    wait_until(lambda: state(cri_cluster, "box", "running"), 60, what="box to run")
    with running_gateway(cri_module.procs, settings, tmp_path) as (url, ca):
        kubectl = kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin"))
        wait_until(lambda: kubectl("exec", "box", "--", "true").returncode == 0, 30, 0.2,
                   what="containerd to run box")
        as_person(settings, "bob")  # who may read pods, not exec in them
        cri_cluster.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                            "metadata": {"name": "pod-reader", "namespace": "default"},
                            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]})
        cri_cluster.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                            "metadata": {"name": "bob-reads-pods", "namespace": "default"},
                            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                        "name": "pod-reader"},
                            "subjects": [{"kind": "User", "name": "bob", "apiGroup": "rbac.authorization.k8s.io"}]})
        kubectl.url, kubectl.ca, kubectl.settings = url, ca, settings
        kubectl.bob = kubectl_at("1.33", tmp_path / "bob", url, ca, token_of(settings, "bob"))
        yield kubectl


@pytest.mark.parametrize("args, stdin, rc, out, err", [
    (("exec", "box", "--", "echo", "hi"), None, 0, "hi\n", ""),
    (("exec", "box", "--", "sh", "-c", "echo oops >&2; exit 3"), None, 3, "",
     "oops\ncommand terminated with exit code 3\n"),
    (("exec", "-i", "box", "--", "sh", "-c", "read line; echo got:$line"), "hello\n", 0, "got:hello\n", ""),
    (("exec", "box", "-c", "nope", "--", "true"), None, 1, "",
     "Error from server (BadRequest): container nope is not valid for pod box\n"),
])
def test_kubectl_exec(kube, args, stdin, rc, out, err):
    done = kube(*args, stdin=stdin)
    assert (done.returncode, done.stdout, done.stderr) == (rc, out, err)


def test_exec_is_refused_to_a_person_without_create_pods_exec(kube):
    done = kube.bob("exec", "box", "--", "true")
    assert done.returncode == 1
    assert 'cannot create resource "pods/exec" in API group "" in the namespace "default"' in done.stderr, \
        done.stderr


def test_kubectl_cp_both_ways(kube, tmp_path):
    there = tmp_path / "there.txt"
    there.write_text("to the pod\n" * 1000)
    sent = kube("cp", str(there), "box:/tmp/there.txt")
    assert sent.returncode == 0, sent.stderr
    assert kube("exec", "box", "--", "wc", "-l", "/tmp/there.txt").stdout.split()[0] == "1000"
    back = tmp_path / "back.txt"
    got = kube("cp", "box:/tmp/there.txt", str(back))
    assert got.returncode == 0, got.stderr
    assert back.read_text() == there.read_text()


def test_kubectl_exec_with_a_terminal(kube):
    """`exec -it` from a real terminal (a pty): the shell prompts, runs, and exits with its code."""
    script = "import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)"
    argv = kube.argv("exec", "-it", "box", "--", "sh", "-c", "tty && exit 4")
    done = subprocess.run(["python3", "-c", script, *argv], capture_output=True, text=True, timeout=60)
    assert "/dev/pts/" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 4


@pytest.mark.parametrize("version", ["1.33", "1.27"])
def test_kubectl_port_forward_reaches_the_pods_port(kube, tmp_path, version):
    """`kubectl port-forward pod/web PORT:80` (WebSocket-tunneled SPDY from kubectl 1.31, plain SPDY
    before) and HTTP GETs through it to busybox's httpd in the pod, one after another (each its own
    forwarded connection)."""
    forwarder = kube if version == "1.33" else kubectl_at(version, tmp_path / "old", kube.url, kube.ca,
                                                           token_of(kube.settings, "admin"))
    web = f"web-{version.replace('.', '-')}"
    kube("run", web, "--image=busybox:1.35", "--restart=Never", "--command", "--", "sh", "-c",
         "mkdir -p /www && echo hello-from-pod > /www/index.html && exec httpd -f -p 80 -h /www")
    wait_until(lambda: kube("exec", web, "--", "wget", "-qO-", "http://127.0.0.1/").stdout == "hello-from-pod\n",
               60, 0.3, what="httpd to serve in web")
    # port-forward checks the pod's phase, which the kubelet reports a moment after exec works
    running = kube("wait", "--for=jsonpath={.status.phase}=Running", f"pod/{web}", "--timeout=60s")
    assert running.returncode == 0, running.stderr
    port = free_port()
    forward = subprocess.Popen(forwarder.argv("port-forward", f"pod/{web}", f"{port}:80"), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        assert f"Forwarding from 127.0.0.1:{port} -> 80" in forward.stdout.readline()
        for _ in range(3):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as answer:
                assert answer.read() == b"hello-from-pod\n"
    finally:
        forward.terminate()
        print(forward.communicate(timeout=10)[0])  # kubectl's account, shown when it failed


@pytest.mark.parametrize("version, env", [("1.27", {}), ("1.33", {"KUBECTL_REMOTE_COMMAND_WEBSOCKETS": "false"})])
def test_kubectl_exec_over_spdy(kube, tmp_path, version, env):
    """kubectl before 1.30 (or told not to use WebSockets) upgrades to SPDY/3.1: the same session."""
    old = kubectl_at(version, tmp_path / "spdy", kube.url, kube.ca, token_of(kube.settings, "admin"))

    def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(old.argv(*args), input=stdin, capture_output=True, text=True, timeout=60,
                              env={**os.environ, **env})
    assert (run("exec", "box", "--", "echo", "hi").stdout) == "hi\n"
    failed = run("exec", "box", "--", "sh", "-c", "exit 3")
    assert (failed.returncode, failed.stderr) == (3, "command terminated with exit code 3\n")
    assert run("exec", "-i", "box", "--", "cat", stdin="a\nb\n").stdout == "a\nb\n"  # ends with stdin's end
    refused = run("exec", "box", "-c", "nope", "--", "true")
    assert refused.stderr == "Error from server (BadRequest): container nope is not valid for pod box\n"


def test_kubectl_exec_passes_the_terminals_size_on(kube):
    """`exec -it` from a 33x101 terminal: kubectl sends the size on the resize channel, the
    container's terminal has it."""
    script = ("import fcntl, os, pty, struct, subprocess, sys, termios\n"
              "master, slave = pty.openpty()\n"
              "fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 33, 101, 0, 0))\n"
              "proc = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=slave, stderr=slave)\n"
              "os.close(slave)\n"
              "out = b''\n"
              "while True:\n"
              "    try:\n"
              "        piece = os.read(master, 4096)\n"
              "    except OSError:\n"
              "        break\n"
              "    if not piece:\n"
              "        break\n"
              "    out += piece\n"
              "proc.wait()\n"
              "sys.stdout.write(out.decode(errors='replace'))\n")
    argv = kube.argv("exec", "-it", "box", "--", "sh", "-c",  # the size comes just after the start: wait for it
                     'until stty size > /tmp/size 2>/dev/null && grep -q "^[1-9]" /tmp/size; do :; done; cat /tmp/size')
    done = subprocess.run(["python3", "-c", script, *argv], capture_output=True, text=True, timeout=60)
    assert "33 101" in done.stdout, done.stdout + done.stderr

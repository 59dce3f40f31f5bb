#!/usr/bin/env bash
# The demo: start the cluster of config/cluster.yaml in the background, apply the example
# manifests, show what the cluster holds. `make down` stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
export KUBUS_DATA_DIR="${KUBUS_DATA_DIR:-.kubus/data}"  # cluster: KUBUS_CLUSTER, default kubus
kubus=.venv/bin/kubus
mkdir -p .kubus
# The people of the demo cluster (a users file, the spirit of Kubernetes' static token file): `admin`
# in system:masters, with a password made once. `kubus bootstrap` (as the broker administrator,
# KUBUS_ADMIN_URL) makes every actor's and person's broker user with least-privilege permissions.
users=.kubus/users.yaml
if [ ! -f "$users" ]; then
  (umask 077; printf -- '- name: admin\n  password: %s\n  groups: [system:masters]\n' \
    "$(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')" > "$users")
fi
export KUBUS_USERS_FILE="$PWD/$users"
"$kubus" bootstrap --users "$users" > .kubus/bootstrap.txt
cluster="${KUBUS_CLUSTER:-kubus}"
password=$(python3 -c "import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))[0]['password'])" "$users")
(umask 077; printf 'export KUBUS_CLUSTER=%s KUBUS_USERS_FILE=%s\nexport KUBUS_AMQP_URL=amqp://%s.user.admin:%s@127.0.0.1:5672/\n' \
  "$cluster" "$KUBUS_USERS_FILE" "$cluster" "$password" > .kubus/demo.env)
. .kubus/demo.env  # from here on, kubus is the person `admin`, not the broker's guest
"$kubus" config write --user admin -f .kubus/kubeconfig >/dev/null  # kubectl, through the gateway
# The nodes run their pods as containers (containerd + runc, images from the local registry, which
# `kubus up` starts and fills). Where containerd cannot run, the demo falls back to host processes.
if why=$(.venv/bin/python -m actors.kubelet.cri.containerd --why-not); then :; else
  echo "WARNING: $why: the demo's pods run as host processes (the process runtime), not containers" >&2
  export KUBUS_NODE_RUNTIME=process
fi
if [ -f .kubus/demo.pid ] && kill -0 "$(cat .kubus/demo.pid)" 2>/dev/null; then
  echo "the demo cluster is already running (pid $(cat .kubus/demo.pid))"
else
  nohup "$kubus" up > .kubus/demo.log 2>&1 &
  echo $! > .kubus/demo.pid
  echo "started the demo cluster '${KUBUS_CLUSTER:-kubus}' (pid $!): logs in .kubus/demo.log"
fi
for _ in $(seq 1 60); do "$kubus" get namespaces >/dev/null 2>&1 && break; sleep 1; done
echo; echo "\$ kubus apply -f examples/"
"$kubus" apply -f examples/
echo; echo "\$ kubus apply -f examples/invalid/   # bad manifests: each refused with its reason"
"$kubus" apply -f examples/invalid/ || true
for _ in $(seq 1 20); do "$kubus" get pods -A 2>/dev/null | grep -q "hello .*Running" && break; sleep 0.5; done
echo; echo "\$ kubus get nodes"; "$kubus" get nodes
echo; echo "\$ kubus get deployments,replicasets,pods -A -o wide"; "$kubus" get deployments,replicasets,pods -A -o wide
echo; echo "\$ kubus logs hello"; "$kubus" logs hello
echo; echo "\$ kubus auth whoami"; "$kubus" auth whoami
if command -v kubectl >/dev/null; then
  echo; echo "\$ KUBECONFIG=.kubus/kubeconfig kubectl get pods -A   # through the gateway"
  KUBECONFIG=.kubus/kubeconfig kubectl get pods -A || true
  echo; echo "\$ kubectl exec hello -- sh -c 'hostname; id; ls /'   # a real container, through the gateway"
  KUBECONFIG=.kubus/kubeconfig kubectl exec hello -- sh -c 'hostname; id; ls /' || true
fi
echo; echo "To use kubus as admin in your shell: source .kubus/demo.env"
echo "Next: kubus get pods -A -w  |  kubus describe pod hello  |  kubus logs -f fine -n shop  |  make down"

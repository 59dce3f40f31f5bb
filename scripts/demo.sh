#!/usr/bin/env bash
# The demo: start the cluster of config/cluster.yaml in the background, apply the example
# manifests, show what the cluster holds. `make down` stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
export KUBUS_DATA_DIR="${KUBUS_DATA_DIR:-.kubus/data}"  # cluster: KUBUS_CLUSTER, default kubus
kubus=.venv/bin/kubus
mkdir -p .kubus
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
echo; echo "Next: kubus get pods -A -w  |  kubus describe pod hello  |  kubus logs -f fine -n shop  |  make down"

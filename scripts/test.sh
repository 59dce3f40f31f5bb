#!/usr/bin/env bash
# `make test`: three pytest runs side by side (a test mostly waits on its processes: the three keep the
# two cores ~85% busy). The tests that change this host's network as a whole — pods' bridges and routes, the
# proxy's service route and rules, pods' addresses — run one at a time in one; the integration tests in
# another; the unit and end-to-end tests in the third. All must pass. Extra arguments go to every run.
set -uo pipefail
cd "$(dirname "$0")/.."
# every interpreter the run starts (three pytest runs, their fork servers, kubus commands, pods' shims) reads the
# bytecode the first one wrote, instead of compiling kubus's 900 modules again (a shell that sets
# PYTHONDONTWRITEBYTECODE, as some sandboxes do, would have each of them compile everything)
unset PYTHONDONTWRITEBYTECODE
# the tests' files (stores' databases, containerd's roots, logs) in memory: every store write is an fsync, and
# on this disk those were the stores' largest cost in a full run. pytest keeps its last three runs' folders.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm/kubus-tests
  mkdir -p "$TMPDIR"
fi
host=(tests/integration/cri tests/e2e/test_kubectl_exec.py tests/e2e/test_kubectl_services.py
      tests/integration/attacks/test_small_holes.py tests/integration/test_dns.py
      tests/integration/test_pod_network.py tests/integration/test_service_traffic.py
      tests/integration/test_ingress.py tests/integration/test_images_containerd.py
      tests/e2e/test_kubectl_cri_config.py tests/e2e/test_kubectl_cri_autoscaling.py
      tests/integration/test_statefulset.py tests/integration/test_endpoints.py)
# the fuzz tests run with the unit and e2e tests: the three runs then end within a minute of each other
fuzz=(tests/integration/test_fuzz.py)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
flock /tmp/kubus-hostnet.lock .venv/bin/pytest -q "$@" "${host[@]}" > "$log" 2>&1 &  # one host-network run at a time on a host
pid=$!
# the rest in two runs: the integration tests in one, the unit and e2e tests (and the fuzz) in the other
integration=$(mktemp)
trap 'rm -f "$log" "$integration"' EXIT
.venv/bin/pytest -q "$@" tests/integration "${host[@]/#/--ignore=}" "${fuzz[@]/#/--ignore=}" > "$integration" 2>&1 &
ipid=$!
.venv/bin/pytest -q "$@" tests/unit tests/e2e "${fuzz[@]}" "${host[@]/#/--ignore=}"
rest=$?
wait "$ipid"
integrated=$?
wait "$pid"
network=$?
echo; echo "---- the integration tests (but the host-network ones):"; cat "$integration"
echo; echo "---- the host-network tests and the CLI's (${host[*]}):"; cat "$log"
exit $(( rest != 0 || integrated != 0 || network != 0 ))

#!/usr/bin/env bash
# `make test`: four pytest runs side by side (a test mostly waits on its processes: four keep the two cores
# ~85% busy, three left a third of them idle). Tests that change this host's network run one at a time in
# their run: the cri nodes' (their pods' bridges and routes, each cluster with a pod range and a service
# range of its own) in one; those on the host's default ranges (the proxy's service route and rules, pods'
# loopback addresses, kube-dns's ClusterIP) in another, after the integration tests test_i* to test_z*. The
# unit tests run with kubectl's end-to-end tests and the fuzz; the other end-to-end tests with the attacks
# and the integration tests test_a* to test_h*. All must pass. Extra arguments go to every run.
set -uo pipefail
cd "$(dirname "$0")/.."
# every interpreter the run starts (the pytest runs, their fork servers, kubus commands, pods' shims) reads the
# bytecode the first one wrote, instead of compiling kubus's 900 modules again (a shell that sets
# PYTHONDONTWRITEBYTECODE, as some sandboxes do, would have each of them compile everything)
unset PYTHONDONTWRITEBYTECODE
# the tests' files (stores' databases, containerd's roots, logs) in memory: every store write is an fsync, and
# on this disk those were the stores' largest cost in a full run. pytest keeps its last three runs' folders.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm/kubus-tests
  mkdir -p "$TMPDIR"
fi
cri=(tests/integration/cri tests/e2e/test_kubectl_exec.py tests/e2e/test_kubectl_cri_config.py
     tests/e2e/test_kubectl_cri_autoscaling.py)
hostnet=(tests/e2e/test_kubectl_services.py tests/integration/attacks/test_small_holes.py
         tests/integration/test_dns.py tests/integration/test_pod_network.py
         tests/integration/test_service_traffic.py tests/integration/test_ingress.py
         tests/integration/test_statefulset.py tests/integration/test_endpoints.py)
fuzz=tests/integration/test_fuzz.py

# the files of $@ that run in none of the runs above (nor the fuzz)
others() {
  local f h
  for f in "$@"; do
    for h in "${cri[@]}" "${hostnet[@]}" "$fuzz"; do [ "$f" = "$h" ] && continue 2; done
    echo "$f"
  done
}
mapfile -t kubectl < <(others tests/e2e/test_kubectl*.py)
mapfile -t early < <(others tests/integration/test_[a-h]*.py)
mapfile -t late < <(others tests/integration/test_[i-z]*.py)

logs=() pids=() names=()
run() {  # run NAME command…: in the background, its output kept for the end
  local log
  log=$(mktemp)
  logs+=("$log") names+=("$1")
  shift
  "$@" > "$log" 2>&1 &
  pids+=($!)
}
trap 'rm -f "${logs[@]}"' EXIT
# each host-network run holds its lock: a developer's run and a check's on one host take turns
run "the cri nodes' tests (${cri[*]})" flock /tmp/kubus-cri.lock .venv/bin/pytest -q "$@" "${cri[@]}"
run "the integration tests test_i* to test_z*, then those on the host's default ranges (${hostnet[*]})" \
  flock /tmp/kubus-hostnet.lock .venv/bin/pytest -q "$@" "${late[@]}" "${hostnet[@]}"
run "the other end-to-end tests, the attacks and the integration tests test_a* to test_h*" \
  .venv/bin/pytest -q "$@" tests/e2e --ignore-glob='tests/e2e/test_kubectl*' tests/integration/attacks \
  --ignore=tests/integration/attacks/test_small_holes.py "${early[@]}"
# the fourth in front: its dots show the run's progress
.venv/bin/pytest -q "$@" tests/unit "${kubectl[@]}" "$fuzz"
failed=$(( $? != 0 ))
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || failed=1
  echo; echo "---- ${names[$i]}:"; cat "${logs[$i]}"
done
exit $failed

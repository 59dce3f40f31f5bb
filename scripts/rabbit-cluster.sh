#!/usr/bin/env bash
# A 3-node RabbitMQ cluster on this machine, on loopback, for kubus's scale-out tests and for
# users to try (the recipe of ../shared/scale-out.md, appendix A, with docker/rabbitmq-cluster/).
#
#   scripts/rabbit-cluster.sh up              start kubus1..3@localhost and join them (AMQP 5701-5703,
#                                             management 15701-15703, guest/guest)
#   scripts/rabbit-cluster.sh status          one line per node: name, AMQP port, pid, running or not
#   scripts/rabbit-cluster.sh urls            the AMQP URLs, comma-separated
#   scripts/rabbit-cluster.sh kill|freeze|thaw|start|stop N   one node: kill -9, SIGSTOP, SIGCONT,
#                                             start again (it rejoins by itself), clean stop
#   scripts/rabbit-cluster.sh heal N          after node N was silent (frozen, a paused VM): wait until
#                                             every node counts all three and records no partition, and
#                                             if not within 10 s restart RabbitMQ on N (pause_minority
#                                             heals only a node that paused itself)
#   scripts/rabbit-cluster.sh ctl N ARGS...   rabbitmqctl on node N
#   scripts/rabbit-cluster.sh streams N ARGS... rabbitmq-streams on node N (stream_status NAME ...)
#   scripts/rabbit-cluster.sh down            stop every node and remove the data directory
#
# KUBUS_RABBIT_CLUSTER_DIR (default /tmp/kubus-rabbit-cluster) holds each node's data, logs and pid.
set -euo pipefail
cd "$(dirname "$0")/.."
CONF="$PWD/docker/rabbitmq-cluster"
DIR="${KUBUS_RABBIT_CLUSTER_DIR:-/tmp/kubus-rabbit-cluster}"
BIN="${RABBITMQ_BIN:-/usr/lib/rabbitmq/bin}"
NODES=(1 2 3)

node_env() {  # the environment of node N, as appendix A has it
  local n=$1 b="$DIR/node$1"
  export HOME="$DIR" RABBITMQ_CONF_ENV_FILE="$DIR/empty.env" ERL_EPMD_ADDRESS=127.0.0.1
  export RABBITMQ_NODENAME="kubus$n@localhost" RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
  export RABBITMQ_NODE_PORT=$((5700 + n)) RABBITMQ_DIST_PORT=$((25700 + n))
  export RABBITMQ_MNESIA_BASE="$b/mnesia" RABBITMQ_LOG_BASE="$b/log" RABBITMQ_PID_FILE="$b/pid"
  export RABBITMQ_CONFIG_FILE="$b/rabbitmq.conf" RABBITMQ_ADVANCED_CONFIG_FILE="$CONF/advanced.config"
  export RABBITMQ_ENABLED_PLUGINS_FILE="$CONF/enabled_plugins" ERL_CRASH_DUMP="$b/erl_crash.dump"
  export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"  # loopback only
}

ctl() { (node_env "$1"; "$BIN/rabbitmqctl" -q -n "kubus$1@localhost" "${@:2}"); }
pid_of() { cat "$DIR/node$1/pid" 2>/dev/null || true; }
state() {  # R, S, T (frozen), Z (killed, not yet reaped) ... or nothing when there is no such node
  local p; p=$(pid_of "$1"); [ -n "$p" ] && awk '{print $3}' "/proc/$p/stat" 2>/dev/null || true
}
alive() { local s; s=$(state "$1"); [ -n "$s" ] && [ "$s" != Z ]; }

prepare() {
  mkdir -p "$DIR"
  : > "$DIR/empty.env"  # ignore Debian's rabbitmq-env.conf (it names every node rabbit@localhost)
  [ -f "$DIR/.erlang.cookie" ] || { head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' > "$DIR/.erlang.cookie"; }
  chmod 400 "$DIR/.erlang.cookie"
  for n in "${NODES[@]}"; do
    mkdir -p "$DIR/node$n/log"
    sed "s/@N@/$n/g" "$CONF/rabbitmq.conf" > "$DIR/node$n/rabbitmq.conf"
  done
}

start() {
  alive "$1" && return 0
  rm -f "$DIR/node$1/pid"  # a killed node's file names a dead pid, which `wait` would take for it
  (node_env "$1"; setsid "$BIN/rabbitmq-server" > "$DIR/node$1/log/stdout.log" 2>&1 < /dev/null &)
  ctl "$1" wait --timeout 60 "$DIR/node$1/pid" > /dev/null && ctl "$1" await_startup --timeout 60 > /dev/null
}

joined() { ctl 1 cluster_status --formatter json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["running_nodes"]))'; }

up() {
  prepare
  for n in "${NODES[@]}"; do start "$n" & done
  wait
  for n in 2 3; do
    if ! ctl "$n" cluster_status --formatter json | grep -q '"kubus1@localhost"'; then
      { ctl "$n" stop_app && ctl "$n" reset && ctl "$n" join_cluster kubus1@localhost && ctl "$n" start_app; } \
        >> "$DIR/node$n/log/join.log" 2>&1 || { echo "kubus$n@localhost did not join: $DIR/node$n/log/join.log" >&2; exit 1; }
    fi
  done
  echo "RabbitMQ cluster: $(joined) nodes running; $(urls)"
}

urls() {
  local out=()
  for n in "${NODES[@]}"; do out+=("amqp://guest:guest@127.0.0.1:$((5700 + n))/"); done
  (IFS=,; echo "${out[*]}")
}

status() {
  printf "%-18s %-6s %-8s %s\n" NODE AMQP PID STATE
  for n in "${NODES[@]}"; do
    local s=down
    if alive "$n"; then s=running; [ "$(state "$n")" = T ] && s=frozen; fi
    printf "%-18s %-6s %-8s %s\n" "kubus$n@localhost" $((5700 + n)) "$(pid_of "$n")" "$s"
  done
}

whole() {  # every node counts all of them running and records no partition
  local n
  for n in "${NODES[@]}"; do
    (node_env "$n"; timeout 10 "$BIN/rabbitmqctl" -q -n "kubus$n@localhost" cluster_status --formatter json) 2>/dev/null | python3 -c '
import json, sys
status = json.load(sys.stdin)
sys.exit(len(status["running_nodes"]) != int(sys.argv[1]) or any(status["partitions"].values()))' "${#NODES[@]}" 2> /dev/null || return 1
  done
}

settled() { local end=$((SECONDS + $1)); until whole; do ((SECONDS < end)) || return 1; sleep 0.5; done; }

heal() {  # a node back from silence often rejoins by itself (it paused as a minority) within ~7 s
  settled 10 && { echo "cluster whole"; return 0; }
  { ctl "$1" stop_app && ctl "$1" start_app; } > /dev/null || echo "restarting RabbitMQ on kubus$1@localhost failed" >&2
  settled 60 || { echo "the cluster is still partitioned: scripts/rabbit-cluster.sh ctl N cluster_status" >&2; return 1; }
  echo "cluster whole after restarting RabbitMQ on kubus$1@localhost (it recorded a partition)"
}

down() {
  for n in "${NODES[@]}"; do
    local p; p=$(pid_of "$n")
    [ -n "$p" ] && { kill -CONT "$p" 2>/dev/null || true; kill -KILL "$p" 2>/dev/null || true; }
  done
  # a node whose pid file was not written yet (killed while booting) is found by its directory
  pkill -KILL -f -- "$DIR" 2>/dev/null || true
  for _ in $(seq 1 50); do pgrep -f -- "$DIR" > /dev/null || break; sleep 0.1; done
  rm -rf "$DIR"
  echo "RabbitMQ cluster removed"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  urls) urls ;;
  start) prepare; start "$2"; echo "kubus$2@localhost started" ;;
  stop) ctl "$2" stop; echo "kubus$2@localhost stopped" ;;
  kill) kill -KILL "$(pid_of "$2")"; until ! alive "$2"; do sleep 0.05; done; echo "kubus$2@localhost killed" ;;
  freeze) kill -STOP "$(pid_of "$2")"; echo "kubus$2@localhost frozen" ;;
  heal) heal "$2" ;;
  ctl) ctl "$2" "${@:3}" ;;
  streams) (node_env "$2"; "$BIN/rabbitmq-streams" -q -n "kubus$2@localhost" "${@:3}") ;;
  thaw) kill -CONT "$(pid_of "$2")"; echo "kubus$2@localhost thawed" ;;
  *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac

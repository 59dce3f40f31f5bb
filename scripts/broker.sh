#!/usr/bin/env bash
# Make sure a RabbitMQ with the management plugin answers at KUBUS_AMQP_URL:
# the local broker if one answers; else start one (the OS package when root, else Docker compose).
set -euo pipefail
cd "$(dirname "$0")/.."
url="${KUBUS_AMQP_URL:-amqp://guest:guest@127.0.0.1:5672/}"
read -r host port < <(python3 -c "import sys, urllib.parse as u; p = u.urlparse(sys.argv[1]); print(p.hostname or '127.0.0.1', p.port or 5672)" "$url")

answers() { python3 -c "import socket, sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), 2)" "$host" "$port" 2>/dev/null; }
wait_for_broker() {
  for _ in $(seq 1 60); do answers && return 0; sleep 1; done
  echo "RabbitMQ did not come up at $host:$port" >&2; return 1
}

if ! answers; then
  if [ "$(id -u)" = 0 ] && { command -v rabbitmq-server >/dev/null || { apt-get update -qq && apt-get install -y -qq rabbitmq-server >/dev/null; }; }; then
    echo "starting rabbitmq-server (OS package)"
    rabbitmq-server -detached
  elif docker info >/dev/null 2>&1; then
    echo "starting RabbitMQ with docker compose"
    docker compose -f docker/compose.yaml up -d rabbitmq
  else
    echo "no RabbitMQ at $host:$port, and neither root (for rabbitmq-server) nor a Docker engine to start one." >&2
    echo "Start a broker and set KUBUS_AMQP_URL=amqp://USER:PASS@HOST:PORT/" >&2
    exit 1
  fi
  wait_for_broker
fi

if [ "$(id -u)" = 0 ] && command -v rabbitmq-plugins >/dev/null && [ "$host" = 127.0.0.1 -o "$host" = localhost ]; then
  rabbitmq-plugins -q enable rabbitmq_management >/dev/null 2>&1 || echo "note: could not enable rabbitmq_management" >&2
fi
echo "RabbitMQ answers at $host:$port (management UI: http://$host:15672/, guest/guest)"

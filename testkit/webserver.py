"""A small HTTP server as a pod's container (process runtime): it listens on its pod's address, port
8080, answers its pod's name, and fails `/ready` while a file named after the pod exists in
UNREADY_DIR — how tests turn a replica's readiness off and on."""
from __future__ import annotations

SERVER = ("import http.server, os\n"
          "class H(http.server.BaseHTTPRequestHandler):\n"
          "    def log_message(self, *args): pass\n"
          "    def do_GET(self):\n"
          "        name = os.environ['POD_NAME']\n"
          "        flag = os.path.join(os.environ.get('UNREADY_DIR', '/nonexistent'), name)\n"
          "        down = self.path == '/ready' and os.path.exists(flag)\n"
          "        self.send_response(503 if down else 200)\n"
          "        self.send_header('Content-Length', str(len(name))); self.end_headers()\n"
          "        self.wfile.write(name.encode())\n"
          "class S(http.server.ThreadingHTTPServer):\n"
          "    request_queue_size = 128\n"
          "    daemon_threads = True\n"
          "S((os.environ['POD_IP'], 8080), H).serve_forever()\n")


def web_container(port_name: str = "http", unready_dir: str = "/nonexistent") -> dict:
    env = [{"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
           {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
           {"name": "UNREADY_DIR", "value": unready_dir}]
    return {"name": "web", "image": "python:3.11", "command": ["python3", "-c", SERVER], "env": env,
            "ports": [{"name": port_name, "containerPort": 8080}],
            "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}, "periodSeconds": 1,
                               "failureThreshold": 1}}


REPLICAS = 3
SERVICE = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
           "spec": {"type": "NodePort", "selector": {"app": "web"},
                    "ports": [{"name": "http", "port": 80, "targetPort": "http"}]}}


def deployment(replicas: int, unready_dir: str) -> dict:
    """Deployment `web` of the server: pods labelled app=web, port `http` 8080."""
    labels = {"app": "web"}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [web_container("http", unready_dir)],
                                           "terminationGracePeriodSeconds": 1}}}}


def is_ready(pod: dict) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def ready_pods(client) -> list[str]:
    return [p["metadata"]["name"] for p in client.list("Pod", "default", label_selector="app=web").items
            if is_ready(p)]


def get(address: str, port: int, host: str = "", path: str = "/", timeout: float = 2.0) -> tuple[int, str]:
    """One GET on a new connection (a proxy picks its endpoint per connection): status and body."""
    import http.client

    conn = http.client.HTTPConnection(address, port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Host": host} if host else {})
        answer = conn.getresponse()
        return answer.status, answer.read().decode()
    finally:
        conn.close()


def body_of(url: str, timeout: float = 2.0) -> str | None:
    """The body a GET of `url` answers, None when it answers an error or nothing (a waiter's condition)."""
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.read().decode()
    except OSError:
        return None

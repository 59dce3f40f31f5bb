"""The management API's own failures (a 500 when its internal calls time out under load) are tried again;
a refusal (4xx) is not, and a failure that lasts is the broker's text."""
from __future__ import annotations

import http.server
import json
import threading

import pytest

from bus import accounts


class Broker(http.server.BaseHTTPRequestHandler):
    answers: list[int] = []
    asked: list[str] = []

    def do_GET(self):  # noqa: N802 - http.server's name
        type(self).asked.append(self.path)
        code = type(self).answers.pop(0) if type(self).answers else 200
        body = json.dumps([{"name": "t1.store"}] if code == 200 else {"error": "timeout", "reason": "list_users"})
        self.send_response(code)
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


@pytest.fixture
def api(monkeypatch):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Broker)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    monkeypatch.setattr(accounts, "RETRY_WAITS_S", (0.01, 0.01))
    Broker.asked.clear()
    yield f"amqp://guest:guest@127.0.0.1:{server.server_address[1] - 10000}/"  # the API listens 10000 above
    server.shutdown()


def test_a_500_is_tried_again(api):
    Broker.answers[:] = [500, 500]
    assert accounts.users_with_prefix(api, "t1.") == ["t1.store"]
    assert len(Broker.asked) == 3


def test_a_500_that_lasts_is_the_brokers_text(api):
    Broker.answers[:] = [500, 500, 500]
    with pytest.raises(accounts.AccountError, match="500 timeout: list_users") as err:
        accounts.users_with_prefix(api, "t1.")
    assert err.value.status == 500 and len(Broker.asked) == 3


def test_a_refusal_is_not_tried_again(api):
    Broker.answers[:] = [401]
    with pytest.raises(accounts.AccountError, match="401"):
        accounts.users_with_prefix(api, "t1.")
    assert len(Broker.asked) == 1

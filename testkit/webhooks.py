"""An admission webhook server for tests and the bench: aiohttp over HTTPS on 127.0.0.1 with a
self-signed certificate (made with `cryptography`; its PEM is the caBundle), in a thread of its own.
Paths: `/allow` allows at once; `/validate` refuses a ConfigMap with a key starting `bad`; `/mutate`
adds the label `webhook=mutated` by JSON patch; `/slow` answers after `slow_s` seconds; `/guard` refuses
deleting an object labelled `protected=true`; `/drip` sends a byte at a time for `slow_s` seconds and
`/huge` 64 MiB (the attacks on the apiserver's client)."""
from __future__ import annotations

import asyncio
import base64
import datetime
import ipaddress
import json
import ssl
import threading
from contextlib import contextmanager

from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def self_signed(tmp_dir, dns_names: tuple[str, ...] = ()) -> tuple[str, str]:
    """(cert file, key file) for 127.0.0.1 and `dns_names`, the cert its own CA."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "webhook.test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                        *(x509.DNSName(n) for n in dns_names)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp_dir / "webhook.crt", tmp_dir / "webhook.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_file), str(key_file)


def _answer(review: dict, allowed: bool = True, **response) -> web.Response:
    body = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "response": {"uid": review["request"]["uid"], "allowed": allowed, **response}}
    return web.json_response(body)


class WebhookServer:
    def __init__(self, slow_s: float = 3.0):
        self.slow_s = slow_s
        self.calls: list[dict] = []  # the requests received, in order
        self.url = ""
        self.port = 0
        self.ca_bundle = ""

    async def allow(self, request: web.Request) -> web.Response:
        review = await request.json()
        self.calls.append(review["request"])
        return _answer(review)

    async def validate(self, request: web.Request) -> web.Response:
        review = await request.json()
        self.calls.append(review["request"])
        obj = review["request"].get("object") or {}
        bad = sorted(k for k in obj.get("data") or {} if k.startswith("bad"))
        if bad:
            return _answer(review, False, status={"code": 403, "reason": "Forbidden",
                                                  "message": f"key {bad[0]!r} is not allowed"})
        return _answer(review, warnings=["checked by the test webhook"])

    async def guard(self, request: web.Request) -> web.Response:
        """Refuses deleting an object labelled `protected=true`."""
        review = await request.json()
        self.calls.append(review["request"])
        old = review["request"].get("oldObject") or {}
        if review["request"]["operation"] == "DELETE" and \
                ((old.get("metadata") or {}).get("labels") or {}).get("protected") == "true":
            return _answer(review, False, status={"code": 403, "reason": "Forbidden",
                                                  "message": f"{old['metadata']['name']} is protected"})
        return _answer(review)

    async def mutate(self, request: web.Request) -> web.Response:
        review = await request.json()
        self.calls.append(review["request"])
        labels = (review["request"]["object"].get("metadata") or {}).get("labels")
        ops = [{"op": "add", "path": "/metadata/labels/webhook", "value": "mutated"}] if labels is not None \
            else [{"op": "add", "path": "/metadata/labels", "value": {"webhook": "mutated"}}]
        patch = base64.b64encode(json.dumps(ops).encode()).decode()
        return _answer(review, patch=patch, patchType="JSONPatch")

    async def slow(self, request: web.Request) -> web.Response:
        review = await request.json()
        self.calls.append(review["request"])
        await asyncio.sleep(self.slow_s)
        return _answer(review)

    async def drip(self, request: web.Request) -> web.StreamResponse:
        """A reply that never ends: a byte every tenth of a second for `slow_s` seconds."""
        await request.read()
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        for _ in range(int(self.slow_s * 10)):
            await response.write(b" ")
            await asyncio.sleep(0.1)
        return response

    async def huge(self, request: web.Request) -> web.StreamResponse:
        """A reply of 64 MiB of blanks (then nothing): more than any AdmissionReview."""
        await request.read()
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        for _ in range(64):
            await response.write(b" " * (1 << 20))
        return response

    def app(self) -> web.Application:
        app = web.Application()
        app.add_routes([web.post("/allow", self.allow), web.post("/validate", self.validate),
                        web.post("/mutate", self.mutate), web.post("/slow", self.slow),
                        web.post("/guard", self.guard), web.post("/drip", self.drip), web.post("/huge", self.huge)])
        return app


@contextmanager
def running_webhook(tmp_dir, slow_s: float = 3.0, dns_names: tuple[str, ...] = ()):
    """A WebhookServer serving on 127.0.0.1 (`.url` its base, `.port`, `.ca_bundle` base64 PEM) until the
    block ends; its certificate names 127.0.0.1 and `dns_names` (a Service's `<svc>.<ns>.svc`)."""
    server = WebhookServer(slow_s)
    cert, key = self_signed(tmp_dir, dns_names)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(server.app(), access_log=None)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    loop.run_until_complete(site.start())
    port = site._server.sockets[0].getsockname()[1]
    server.url, server.port = f"https://127.0.0.1:{port}", port
    with open(cert, "rb") as pem:
        server.ca_bundle = base64.b64encode(pem.read()).decode()
    thread = threading.Thread(target=loop.run_forever, name="webhook-server", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def configuration(kind: str, name: str, hooks: list[dict]) -> dict:
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": name},
            "webhooks": hooks}


def hook(name: str, url: str, ca_bundle: str, resources=("configmaps",), **fields) -> dict:
    return {"name": name, "clientConfig": {"url": url, "caBundle": ca_bundle},
            "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": [""], "apiVersions": ["v1"],
                       "resources": list(resources)}],
            "sideEffects": "None", "admissionReviewVersions": ["v1"], **fields}

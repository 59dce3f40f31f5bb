"""The gateway's serving certificate: a self-signed CA and a server certificate for 127.0.0.1 and
localhost, and for pods: the `kubernetes` Service's ClusterIP and names (kubernetes.default.svc...), made
with the `openssl` CLI on first start (Python's `ssl` cannot make certificates); a server certificate
whose names are not those wanted (a new service range) is made again under the same CA."""
from __future__ import annotations

import os
import shutil
import ssl
import subprocess
import tempfile
from pathlib import Path

FILES = ("ca.crt", "ca.key", "server.crt", "server.key")
EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
SERVER_EXT = ("subjectAltName={names}\nbasicConstraints=critical,CA:FALSE\n"
              "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")


def alt_names(service_ip: str | None = None, domain: str = "cluster.local") -> str:
    """The server certificate's subjectAltName: kube-apiserver's in-cluster names when a ClusterIP is given."""
    names = ["IP:127.0.0.1", "DNS:localhost"]
    if service_ip:
        names += [f"IP:{service_ip}", "DNS:kubernetes", "DNS:kubernetes.default", "DNS:kubernetes.default.svc",
                  f"DNS:kubernetes.default.svc.{domain}"]
    return ",".join(names)


def _names_of(certificate: Path) -> str:
    done = subprocess.run(["openssl", "x509", "-noout", "-ext", "subjectAltName", "-in", str(certificate)],
                          capture_output=True, text=True)
    found = done.stdout.splitlines()[1:] if done.returncode == 0 else []
    return ",".join(n.strip().replace("IP Address:", "IP:") for n in ",".join(found).split(",") if n.strip())


def ensure_certificates(directory: Path, cluster: str, names: str | None = None) -> Path:
    """`directory` with ca.crt, ca.key, server.crt and server.key, made now if any is missing.
    They are made in a scratch directory beside it and moved in, so a crash leaves no half set."""
    names = names or alt_names()
    if all((directory / name).exists() for name in FILES):
        if _names_of(directory / "server.crt") != names:
            _server(directory, cluster, names)
        return directory
    directory.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{directory.name}-", dir=directory.parent))
    try:
        _make(scratch, cluster, names)
        for name in FILES:
            os.chmod(scratch / name, 0o600 if name.endswith(".key") else 0o644)
        if not directory.exists():
            scratch.rename(directory)
        else:
            for name in FILES:
                (scratch / name).replace(directory / name)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return directory


def _make(out: Path, cluster: str, names: str) -> None:
    _openssl("req", "-x509", *EC, "-keyout", out / "ca.key", "-out", out / "ca.crt", "-days", "3650",
             "-subj", f"/CN={cluster}-gateway-ca", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    _server(out, cluster, names)


def _server(out: Path, cluster: str, names: str) -> None:
    """A server certificate (and key) for `names`, signed by the CA in `out`; replaced whole."""
    _openssl("req", "-new", *EC, "-keyout", out / "server.key", "-out", out / "server.csr",
             "-subj", f"/CN={cluster}-gateway")
    (out / "server.ext").write_text(SERVER_EXT.format(names=names))
    _openssl("x509", "-req", "-in", out / "server.csr", "-CA", out / "ca.crt", "-CAkey", out / "ca.key",
             "-set_serial", str(int.from_bytes(os.urandom(8), "big")), "-days", "825",
             "-extfile", out / "server.ext", "-out", out / "server.crt")
    for scrap in ("server.csr", "server.ext"):
        (out / scrap).unlink()
    os.chmod(out / "server.key", 0o600)


def _openssl(*args) -> None:
    done = subprocess.run(["openssl", *map(str, args)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"openssl {args[0]} failed: {done.stderr.strip()}")


def server_context(directory: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(directory / "server.crt", directory / "server.key")
    return context

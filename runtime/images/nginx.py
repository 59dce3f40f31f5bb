"""nginx from Debian's packages (`nginx`: the binary; `nginx-common`: mime.types, the *_params files, the
default page), laid out as Docker's official nginx image is, so the manifests people copy work: the
default page from /usr/share/nginx/html on port 80, servers in /etc/nginx/conf.d/*.conf, the master in
the foreground (`nginx -g "daemon off;"`), the access log to stdout and errors to stderr (symlinks, as
Docker's), workers as the user `nginx` (101), SIGQUIT to stop gracefully. Over the busybox layer, so
`sh` works in it. Tagged by the packaged upstream version (Debian bookworm: 1.22.1, also `1.22`)."""
from __future__ import annotations

import tempfile
from pathlib import Path

from runtime.images import debs, oci
from runtime.images.recipes import busybox_layer, shared_libraries, source, upstream

PACKAGES = ("nginx", "nginx-common")
BINARY = "usr/sbin/nginx"
COMMON_SKIP = ("etc/nginx/nginx.conf", "etc/nginx/sites-", "etc/nginx/modules-")

NGINX_CONF = """user  nginx;
worker_processes  auto;

error_log  /var/log/nginx/error.log notice;
pid        /run/nginx.pid;

events {
    worker_connections  1024;
}

http {
    include       /etc/nginx/mime.types;
    default_type  application/octet-stream;

    log_format  main  '$remote_addr - $remote_user [$time_local] "$request" '
                      '$status $body_bytes_sent "$http_referer" '
                      '"$http_user_agent" "$http_x_forwarded_for"';

    access_log  /var/log/nginx/access.log  main;

    sendfile        on;
    keepalive_timeout  65;

    include /etc/nginx/conf.d/*.conf;
}
"""

DEFAULT_CONF = """server {
    listen       80;
    listen  [::]:80;
    server_name  localhost;

    location / {
        root   /usr/share/nginx/html;
        index  index.html index.htm;
    }

    error_page   500 502 503 504  /50x.html;
    location = /50x.html {
        root   /usr/share/nginx/html;
    }
}
"""

ERROR_PAGE = """<!DOCTYPE html>
<html>
<head>
<title>Error</title>
</head>
<body>
<h1>An error occurred.</h1>
<p>Sorry, the page you are looking for is currently unavailable.<br/>
Please try again later.</p>
</body>
</html>
"""

PASSWD = ("root:x:0:0:root:/root:/bin/sh\nnginx:x:101:101:nginx user:/nonexistent:/bin/false\n"
          "nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n")
GROUP = "root:x:0:\nnginx:x:101:\nnogroup:x:65534:\n"


def _common(path: str) -> bool:
    if path.startswith(COMMON_SKIP):
        return False
    return path.startswith(("etc/nginx/", "usr/share/nginx/", "var/lib/nginx", "var/log/nginx"))


def entries(found: dict[str, debs.Deb], libraries) -> list[oci.Entry]:
    """The nginx layer: the binary and the libraries `libraries` (recipes.shared_libraries) finds for it,
    nginx-common's files, and the configuration, page, links, users and folders Docker's image has."""
    binary = found["nginx"].entries(lambda path: path == BINARY)
    with tempfile.TemporaryDirectory() as folder:  # ldd reads a file: the binary, unpacked for a moment
        unpacked = Path(folder, "nginx")
        unpacked.write_bytes(binary[0].data)
        unpacked.chmod(0o755)
        libs = libraries([unpacked])
    return [*binary, *libs, *found["nginx-common"].entries(_common),
            oci.File("etc/nginx/nginx.conf", NGINX_CONF.encode()),
            oci.File("etc/nginx/conf.d/default.conf", DEFAULT_CONF.encode()),
            oci.File("usr/share/nginx/html/50x.html", ERROR_PAGE.encode()),
            oci.Symlink("var/log/nginx/access.log", "../../../dev/stdout"),
            oci.Symlink("var/log/nginx/error.log", "../../../dev/stderr"),
            oci.File("etc/passwd", PASSWD.encode()), oci.File("etc/group", GROUP.encode()),
            oci.Dir("var/lib/nginx"), oci.Dir("run")]


def config(version: str, labels) -> oci.Config:
    return oci.Config(env=("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                           f"NGINX_VERSION={version}"),
                      cmd=("nginx", "-g", "daemon off;"), stop_signal="SIGQUIT", exposed_ports=("80/tcp",),
                      labels=labels)


def image() -> oci.Image:
    """The image: the busybox layer, then nginx's (`entries`), configured as Docker's (`config`)."""
    found = debs.fetch(PACKAGES)
    labels = source(" ".join(f"{package}={deb.version}" for package, deb in sorted(found.items())))
    layers = [busybox_layer(), oci.layer(entries(found, shared_libraries))]
    return oci.image(layers, config(upstream(found["nginx"].version), labels))

"""`python -m actors.gateway`: Kubernetes' REST API over HTTPS on KUBUS_GATEWAY_ADDRESS (default
127.0.0.1:6443), its certificate made on first start (or by `kubus bootstrap`) in
`<secrets dir>/<cluster>-gateway/`; and on the `kubernetes` Service's ClusterIP:443 for pods (listen.py)."""
from aiohttp import web

from actors.gateway.app import make_app
from actors.gateway.listen import pod_socket
from actors.gateway.tls import alt_names, ensure_certificates, server_context
from config.settings import load_settings
from runtime import heap, logs


def main() -> None:
    settings = load_settings()
    logs.configure(settings.log_level)
    heap.configure()
    address = settings.gateway_address
    host, _, port = address.rpartition(":")
    certificates = ensure_certificates(settings.gateway_tls_dir, settings.cluster,
                                       alt_names(settings.api_service_ip, settings.cluster_domain))
    web.run_app(make_app(settings, address), host=host, port=int(port), sock=pod_socket(settings),
                ssl_context=server_context(certificates),
                print=None, access_log=None, shutdown_timeout=1.0)


if __name__ == "__main__":
    main()

"""`python -m actors.gateway`: Kubernetes' REST API over HTTPS on KUBUS_GATEWAY_ADDRESS (default
127.0.0.1:6443), its certificate made on first start (or by `kubus bootstrap`) in
`<secrets dir>/<cluster>-gateway/`; and on the `kubernetes` Service's ClusterIP:443 for pods (listen.py);
beside it, pods' broker connections relayed from `kubus-broker`'s ClusterIP:5672 (brokerrelay.py)."""
from aiohttp import web

from actors.gateway.app import make_app
from actors.gateway.brokerrelay import Relay, broker_of, relay_socket
from actors.gateway.listen import pod_socket
from actors.gateway.tls import alt_names, ensure_certificates, server_context
from config.settings import Settings, load_settings
from runtime import heap, logs


def main() -> None:
    settings = load_settings()
    logs.configure(settings.log_level)
    heap.configure()
    address = settings.gateway_address
    host, _, port = address.rpartition(":")
    certificates = ensure_certificates(settings.gateway_tls_dir, settings.cluster,
                                       alt_names(settings.api_service_ip, settings.cluster_domain))
    app = make_app(settings, address)
    with_broker_relay(app, settings)
    web.run_app(app, host=host, port=int(port), sock=pod_socket(settings),
                ssl_context=server_context(certificates),
                print=None, access_log=None, shutdown_timeout=1.0)


def with_broker_relay(app: web.Application, settings: Settings) -> None:
    """The relay started and stopped with the application, on its event loop, when its address can be bound."""
    sock = relay_socket(settings)
    if sock is None:
        return
    relay = Relay(broker_of(settings), settings.broker_relay_max_connections, settings.cluster)

    async def start(_app: web.Application) -> None:
        await relay.start(sock)

    async def stop(_app: web.Application) -> None:
        await relay.stop()

    app.on_startup.append(start)
    app.on_cleanup.append(stop)


if __name__ == "__main__":
    main()

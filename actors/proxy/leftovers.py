"""What a proxy leaves on the host if it is killed (SIGKILL): the service range's local route and the
cluster's nftables table. `make down` and the tests' teardown take them away."""
from __future__ import annotations

from actors.proxy import localroute, nftables


def clean(cluster: str, service_cidr: str) -> None:
    localroute.clear(service_cidr)
    nftables.clear(nftables.table_name(cluster))


if __name__ == "__main__":
    from config.settings import load_settings

    settings = load_settings()
    clean(settings.cluster, settings.service_cidr)

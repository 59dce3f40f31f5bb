"""`python -m actors.dns`: serve the cluster domain on `KUBUS_DNS_ADDRESS` (default 127.0.0.1:1053)."""
from actors.dns.actor import DnsActor
from config.settings import load_settings


def main() -> None:
    DnsActor(load_settings()).run()


if __name__ == "__main__":
    main()

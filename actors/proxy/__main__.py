"""`python -m actors.proxy`: forward this host's Service traffic (userspace mode)."""
from actors.proxy.actor import ProxyActor
from config.settings import load_settings


def main() -> None:
    ProxyActor(load_settings()).run()


if __name__ == "__main__":
    main()

"""`python -m actors.ingress`: route HTTP on `KUBUS_INGRESS_ADDRESS` (default 127.0.0.1:8080) by Ingress rules."""
from actors.ingress.actor import IngressActor
from config.settings import load_settings


def main() -> None:
    IngressActor(load_settings()).run()


if __name__ == "__main__":
    main()

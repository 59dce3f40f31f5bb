"""`python -m actors.metrics`: the metrics actor (active, or a hot standby) behind `metrics.k8s.io`."""
from actors.metrics.actor import MetricsServer
from config.settings import load_settings


def main() -> None:
    MetricsServer(load_settings()).run()


if __name__ == "__main__":
    main()

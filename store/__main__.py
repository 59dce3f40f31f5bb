"""`python -m store`: run one store process (active, or a hot standby)."""
from config.settings import load_settings
from store.actor import StoreActor
from store.replicated import ReplicatedStore


def main() -> None:
    settings = load_settings()
    (ReplicatedStore if settings.store_replication == "stream" else StoreActor)(settings).run()


if __name__ == "__main__":
    main()

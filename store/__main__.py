"""`python -m store`: run one store process (active, or a hot standby)."""
from config.settings import load_settings
from store.actor import StoreActor


def main() -> None:
    StoreActor(load_settings()).run()


if __name__ == "__main__":
    main()

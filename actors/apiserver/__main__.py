"""`python -m actors.apiserver`: one apiserver of the pool sharing `{c}.apiserver`."""
from actors.apiserver.actor import ApiServer
from config.settings import load_settings


def main() -> None:
    ApiServer(load_settings()).run()


if __name__ == "__main__":
    main()

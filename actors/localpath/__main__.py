"""`python -m actors.localpath [--helper-image IMAGE]`: the local-path provisioner (active, or a hot standby)."""
import argparse

from actors.localpath.actor import LocalPathProvisioner
from actors.localpath.decide import HELPER_IMAGE
from config.settings import load_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--helper-image", default=HELPER_IMAGE, help=f"the helper pods' image (default {HELPER_IMAGE})")
    args = parser.parse_args()
    LocalPathProvisioner(load_settings(), helper_image=args.helper_image).run()


if __name__ == "__main__":
    main()

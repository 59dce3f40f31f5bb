"""`python -m actors.scheduler [--name NAME] [--config FILE]`: one scheduler (active or standby)."""
import argparse

from actors.scheduler.actor import Scheduler
from config.scheduler import load_scheduler_config
from config.settings import load_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--name", default="scheduler", help="actor name: its queue and lock (default scheduler)")
    parser.add_argument("--config", default=None, help="KubeSchedulerConfiguration file (default config/scheduler.yaml)")
    args = parser.parse_args()
    Scheduler(load_settings(), load_scheduler_config(args.config), name=args.name).run()


if __name__ == "__main__":
    main()

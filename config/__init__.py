"""Settings models and the shipped configuration files."""
from config.settings import Settings, load_settings

__all__ = ["Settings", "load_settings"]

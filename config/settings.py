"""Process settings, read from `KUBUS_*` environment variables."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlparse

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Settings shared by every actor and client of one cluster."""

    model_config = SettingsConfigDict(env_prefix="KUBUS_", frozen=True, extra="ignore")

    amqp_url: str = "amqp://guest:guest@127.0.0.1:5672/"
    cluster: str = Field("kubus", pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=63)
    data_dir: Path = Path(".kubus/data")
    max_message_bytes: int = Field(1 << 20, ge=4096)
    request_timeout_s: float = Field(10.0, gt=0)
    prefetch: int = Field(256, ge=1)
    durable_commands: bool = True
    store_fsync: bool = True
    bookmark_interval_s: float = Field(2.0, gt=0)
    bookmark_sweep_s: float = Field(60.0, gt=0)
    log_retention: int = Field(100_000, ge=1000)
    dedupe_window_s: float = Field(600.0, gt=0)
    log_level: str = "info"

    @property
    def amqp_user(self) -> str:
        return unquote(urlparse(self.amqp_url).username or "guest")

    def with_(self, **changes) -> "Settings":
        """A copy with some fields changed (settings are frozen)."""
        return self.model_copy(update=changes)


@lru_cache(maxsize=1)
def load_settings() -> Settings:
    return Settings()

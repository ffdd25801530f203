"""The App's settings, from the environment (a container and a test harness configure it alike).

`RECEIPT_WEBHOOK_SECRET` is required: the server refuses to start without it, since a webhook
route that cannot check signatures would accept anyone's deliveries.
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.engine import ReceiptError
from bot.server.store.db import embedded_queue_url

DEFAULT_DATABASE = "sqlite:///receipt.sqlite3"
DEFAULT_API_URL = "https://api.github.com"


class SettingsError(ReceiptError):
    """A setting is missing or invalid; the message names the variable."""

    title = "invalid settings"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="RECEIPT_", extra="ignore", frozen=True)

    app_id: int | None = None
    private_key: SecretStr | None = None
    private_key_path: Path | None = None
    webhook_secret: SecretStr = Field(min_length=1)
    github_api_url: str = DEFAULT_API_URL
    github_web_url: str | None = None  # derived from the API URL when unset
    database_url: str = DEFAULT_DATABASE
    queue_url: str | None = None  # default: a SQLite file beside the embedded store's
    queue_name: str = Field(default="receipt", min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    public_url: str | None = None
    workers: int = Field(default=2, ge=0, le=64)
    job_attempts: int = Field(default=5, ge=1, le=100)
    job_lease_seconds: float = Field(default=300.0, gt=0)
    retry_base_seconds: float = Field(default=5.0, ge=0)
    give_up_after_hours: float = Field(default=72.0, gt=0)  # keep trying to conclude a run this long
    sweep_seconds: int = Field(default=60, ge=1)
    redeliver_seconds: float = Field(default=300.0, gt=0)  # a pass over GitHub's failed deliveries
    drain_seconds: float = Field(default=0.0, ge=0, le=300)  # /readyz 503 this long before stopping
    # how long a job looks again for GitHub's test merge (mergeable: null) before failing closed
    merge_wait_seconds: float = Field(default=60.0, ge=0, le=3600)
    github_retries: int = Field(default=3, ge=0, le=10)  # 502/503/504 retried with backoff
    github_backoff_seconds: float = Field(default=1.0, ge=0)
    max_body_bytes: int = 25 * 1024 * 1024
    whatif_last: int = Field(
        default=10, ge=0, le=30
    )  # merged pull requests a manifest change's what-if compares

    @field_validator("github_api_url", "public_url", "github_web_url")
    @classmethod
    def _no_trailing_slash(cls, value: str | None) -> str | None:
        return value.rstrip("/") if value else value

    @model_validator(mode="after")
    def _one_key(self) -> Settings:
        if self.private_key is not None and self.private_key_path is not None:
            raise ValueError("set RECEIPT_PRIVATE_KEY or RECEIPT_PRIVATE_KEY_PATH, not both")
        return self

    @cached_property
    def private_key_pem(self) -> str | None:
        if self.private_key is not None:
            return self.private_key.get_secret_value()
        if self.private_key_path is not None:
            try:
                return self.private_key_path.read_text(encoding="ascii")
            except (OSError, UnicodeDecodeError) as exc:
                raise SettingsError(
                    f"RECEIPT_PRIVATE_KEY_PATH {self.private_key_path}: cannot read: {exc}"
                ) from exc
        return None

    @property
    def web_url(self) -> str:
        """github.com for api.github.com; `https://HOST` for GitHub Enterprise Server's `/api/v3`."""
        if self.github_web_url:
            return self.github_web_url
        api = self.github_api_url
        if api == DEFAULT_API_URL:
            return "https://github.com"
        return api.removesuffix("/api/v3")

    @property
    def queue(self) -> str:
        return self.queue_url or embedded_queue_url(self.database_url)

    def __repr__(self) -> str:
        database = _redact(self.database_url)
        return f"Settings(app_id={self.app_id}, api={self.github_api_url!r}, database={database!r})"


def _redact(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    return f"{scheme}://***@{rest.rsplit('@', 1)[1]}"


def load_settings(*, signing: bool = True) -> Settings:
    """Settings from the environment; SettingsError naming the variable when one is missing or bad.
    `signing`: the command verifies deliveries, so RECEIPT_WEBHOOK_SECRET is required (`receipt
    receive` reads a saved payload and verifies nothing)."""
    given: dict[str, Any] = {}
    if not signing and not os.environ.get("RECEIPT_WEBHOOK_SECRET"):
        given["webhook_secret"] = "unused: this command verifies no delivery"
    try:
        return Settings(**given)
    except ValueError as exc:
        raise SettingsError(_describe(exc)) from None


def _describe(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return str(exc)
    parts = []
    for error in errors():
        where = ".".join(str(p) for p in error.get("loc", ()))
        name = f"RECEIPT_{where.upper()}" if where else "settings"
        problem = "is required" if error.get("type") == "missing" else error.get("msg", "is invalid")
        parts.append(f"{name} {problem}")
    return "; ".join(parts)

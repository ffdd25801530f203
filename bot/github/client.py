"""A githubkit client for one token and one API base URL, with receipt's retry policy."""

from __future__ import annotations

import ssl
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import cache

import httpx
from githubkit import GitHub
from githubkit.auth import TokenAuthStrategy
from githubkit.exception import GitHubException, RateLimitExceeded, RequestFailed
from githubkit.typing import RetryOption

from bot import __version__

DEFAULT_API_URL = "https://api.github.com"
USER_AGENT = f"receipt/{__version__}"
_RETRIED_STATUSES = frozenset({502, 503, 504})
_SHORTEST_WAIT = timedelta(milliseconds=1)  # githubkit reads a zero wait as "sleep 60 s"

Observer = Callable[[httpx.Response], None]
"""Called with every answer GitHub gives (each retry's too), before its body is read."""


def event_hooks(observe: Observer | None) -> dict[str, list[Callable[..., object]]] | None:
    return {"response": [observe]} if observe is not None else None


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Rate limits wait for `retry-after` / `x-ratelimit-reset` (up to `max_rate_limit_wait`);
    502/503/504 are retried with exponential backoff. Anything else fails at once."""

    server_retries: int = 3
    backoff_seconds: float = 1.0
    rate_limit_retries: int = 2
    max_rate_limit_wait: timedelta = timedelta(minutes=5)

    def __call__(self, exc: GitHubException, retry_count: int) -> RetryOption:
        if isinstance(exc, RateLimitExceeded):
            wait = exc.retry_after
            if retry_count < self.rate_limit_retries and wait <= self.max_rate_limit_wait:
                return RetryOption(True, max(wait, _SHORTEST_WAIT))
            return RetryOption(False)
        if (
            isinstance(exc, RequestFailed)
            and exc.response.status_code in _RETRIED_STATUSES
            and retry_count < self.server_retries
        ):
            return RetryOption(
                True, max(timedelta(seconds=self.backoff_seconds * 2**retry_count), _SHORTEST_WAIT)
            )
        return RetryOption(False)


@cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for every client of the process, verifying as httpx does by default
    (certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR). githubkit opens a client for each request,
    and each new context reads the whole CA bundle again: some 20 ms of CPU per request."""
    return httpx.create_ssl_context(trust_env=True)


def make_client(
    token: str,
    *,
    base_url: str = DEFAULT_API_URL,
    retry: RetryPolicy | None = None,
    timeout_seconds: float = 30.0,
    transport: httpx.BaseTransport | None = None,
    observe: Observer | None = None,
) -> GitHub[TokenAuthStrategy]:
    """A synchronous client; no HTTP cache (each run asks GitHub afresh)."""
    return GitHub(
        token,
        base_url=base_url.rstrip("/") + "/",
        user_agent=USER_AGENT,
        timeout=timeout_seconds,
        http_cache=False,
        auto_retry=retry or RetryPolicy(),
        ssl_verify=tls_context(),
        transport=transport,
        event_hooks=event_hooks(observe),
    )

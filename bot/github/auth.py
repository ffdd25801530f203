"""GitHub App authentication: the App's JWT client and installation tokens cached until shortly
before they expire (a token's length and format are GitHub's business; only `expires_at` is read)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from githubkit import GitHub
from githubkit.auth import AppAuthStrategy, TokenAuthStrategy
from githubkit.cache import MemCacheStrategy

from bot.github.client import (
    DEFAULT_API_URL,
    USER_AGENT,
    Observer,
    RetryPolicy,
    event_hooks,
    make_client,
    tls_context,
)
from bot.github.errors import UnexpectedResponse, translated

REFRESH_MARGIN = timedelta(minutes=5)


@dataclass(frozen=True)
class AppCredentials:
    app_id: int
    private_key: str  # PEM
    api_url: str = DEFAULT_API_URL

    def __repr__(self) -> str:
        return f"AppCredentials(app_id={self.app_id}, api_url={self.api_url!r})"


def signing_key(pem: str) -> Any:
    """The App's key, parsed once. Given the PEM, PyJWT parses it again for every JWT it signs
    (about 60 ms, most of it checking the RSA key, with the interpreter's lock held: every thread
    of the process, acknowledgements included, stops meanwhile); a parsed key it uses as it is.
    A PEM that does not parse is passed on unchanged, to fail where it always has: at signing."""
    try:
        return load_pem_private_key(pem.encode("utf-8"), password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        return pem


def make_app_client(
    credentials: AppCredentials, *, retry: RetryPolicy | None = None, observe: Observer | None = None
) -> GitHub[AppAuthStrategy]:
    """A client that authenticates as the App itself (a JWT, which githubkit signs and caches)."""
    return GitHub(
        AppAuthStrategy(credentials.app_id, signing_key(credentials.private_key)),
        base_url=credentials.api_url.rstrip("/") + "/",
        user_agent=USER_AGENT,
        timeout=30.0,
        http_cache=False,
        cache_strategy=MemCacheStrategy(),  # this App's own JWT cache, never another's
        auto_retry=retry or RetryPolicy(),
        ssl_verify=tls_context(),
        event_hooks=event_hooks(observe),
    )


@dataclass(frozen=True, slots=True)
class _Token:
    value: str
    expires_at: datetime


class InstallationTokens:
    """One cached token per installation, refreshed `margin` before it expires, dropped on 401."""

    def __init__(
        self,
        credentials: AppCredentials,
        *,
        retry: RetryPolicy | None = None,
        margin: timedelta = REFRESH_MARGIN,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        observe: Callable[[str], Observer] | None = None,
    ) -> None:
        """`observe(who)` gives the observer of the App's client ("app") and of each installation's
        (its id): metrics see every answer, and whose quota it spent."""
        self.credentials = credentials
        self._retry = retry
        self._observe = observe
        self._app = make_app_client(credentials, retry=retry, observe=observe("app") if observe else None)
        self._margin = margin
        self._clock = clock
        self._tokens: dict[int, _Token] = {}
        self._lock = threading.Lock()

    @property
    def app(self) -> GitHub[AppAuthStrategy]:
        return self._app

    def token(self, installation_id: int) -> str:
        with self._lock:
            cached = self._tokens.get(installation_id)
            if cached is not None and cached.expires_at - self._margin > self._clock():
                return cached.value
        fresh = self._create(installation_id)
        with self._lock:
            self._tokens[installation_id] = fresh
        return fresh.value

    def _create(self, installation_id: int) -> _Token:
        with translated():
            data = self._app.rest.apps.create_installation_access_token(installation_id).json()
        try:
            expires = datetime.fromisoformat(str(data["expires_at"]).replace("Z", "+00:00"))
            return _Token(str(data["token"]), expires)
        except (KeyError, TypeError, ValueError) as exc:
            raise UnexpectedResponse(201, f"an installation token without {exc}") from exc

    def invalidate(self, installation_id: int) -> None:
        """Forget the cached token (GitHub answered 401 with it: revoked, or the clock drifted)."""
        with self._lock:
            self._tokens.pop(installation_id, None)

    def client(self, installation_id: int) -> GitHub[TokenAuthStrategy]:
        observe = self._observe(str(installation_id)) if self._observe else None
        return make_client(
            self.token(installation_id), base_url=self.credentials.api_url, retry=self._retry, observe=observe
        )


def installation_of_repo(app: GitHub[Any], owner: str, name: str) -> int:
    """The installation id for a repository (the CLI's `receive` needs it when a payload lacks one)."""
    with translated():
        data = app.rest.apps.get_repo_installation(owner, name).json()
    try:
        return int(data["id"])
    except (KeyError, TypeError, ValueError) as exc:
        raise UnexpectedResponse(200, f"an installation without {exc}") from exc

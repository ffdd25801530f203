"""GitHub API failures as exceptions that carry the status and what GitHub said."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from githubkit.exception import RateLimitExceeded, RequestError, RequestFailed, RequestTimeout


class GitHubError(RuntimeError):
    """A request GitHub refused or that could not be made; `status` is 0 when nothing answered."""

    def __init__(
        self, status: int, message: str, *, method: str = "", path: str = "", data: Any = None
    ) -> None:
        super().__init__(f"{method} {path}: {status or 'no answer'}: {message}".strip())
        self.status = status
        self.message = message
        self.method = method
        self.path = path
        self.data = data

    @property
    def errors(self) -> list[Any]:
        found = self.data.get("errors") if isinstance(self.data, dict) else None
        return found if isinstance(found, list) else []


class NotFound(GitHubError):
    """404: no such resource, or the token may not see it."""


class Forbidden(GitHubError):
    """403 that is not a rate limit: the token lacks a permission (a fork's token is read-only)."""


class NotAcceptable(GitHubError):
    """406: GitHub will not render this media type (a diff that is too large)."""


class Unprocessable(GitHubError):
    """422: GitHub rejected the request body; `errors` says which fields."""


class RateLimited(GitHubError):
    """403/429 rate limit that outlasted the retries; `retry_after` is GitHub's wait, in seconds."""

    retry_after: float | None = None


class UnexpectedResponse(GitHubError):
    """An answer whose shape is not what GitHub documents."""


_BY_STATUS: dict[int, type[GitHubError]] = {
    403: Forbidden,
    404: NotFound,
    406: NotAcceptable,
    422: Unprocessable,
    429: RateLimited,
}


def _body(failed: RequestFailed) -> Any:
    try:
        return failed.response.raw_response.json()
    except ValueError:
        return failed.response.raw_response.text[:500]


def error_from(failed: RequestFailed) -> GitHubError:
    """One mapping from a failed response to the exception type for its status."""
    status = failed.response.status_code
    data = _body(failed)
    message = data.get("message", "") if isinstance(data, dict) else str(data)
    kind = RateLimited if isinstance(failed, RateLimitExceeded) else _BY_STATUS.get(status, GitHubError)
    error = kind(
        status,
        message or failed.response.reason_phrase,
        method=failed.request.method,
        path=failed.request.url.path,
        data=data,
    )
    if isinstance(error, RateLimited) and isinstance(failed, RateLimitExceeded):
        error.retry_after = failed.retry_after.total_seconds()
    return error


@contextmanager
def translated() -> Iterator[None]:
    """Turn githubkit's exceptions into GitHubError with the status and GitHub's message."""
    try:
        yield
    except RequestFailed as exc:
        raise error_from(exc) from exc
    except RequestTimeout as exc:
        raise GitHubError(0, "timed out", method=exc.request.method, path=exc.request.url.path) from exc
    except RequestError as exc:
        raise GitHubError(0, f"could not connect: {exc.exc}") from exc

"""GitHub's rate limits: the primary hourly quota per installation (or token), the secondary limit on
content-creating requests per minute, the `x-ratelimit-*` headers and GitHub's messages.

GitHub counts an installation's requests together, whichever of its tokens made them, and answers
past the quota with 403 and `x-ratelimit-remaining: 0`; a secondary limit answers 403 (or 429) with
`retry-after`.
"""

from __future__ import annotations

import math
import secrets
import threading
from collections import deque
from dataclasses import dataclass

RATE_DOCS = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
SECONDARY_DOCS = (
    "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api"
    "#about-secondary-rate-limits"
)
HOUR = 3600.0
MINUTE = 60.0


def request_id() -> str:
    """An `x-github-request-id` in GitHub's shape (five colon-separated hex groups)."""
    return ":".join(secrets.token_hex(n).upper() for n in (2, 2, 3, 3, 4))


def primary_message(subject: str) -> str:
    return f"API rate limit exceeded for {subject}."


def secondary_message(rid: str) -> str:
    return (
        "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
        f"If you reach out to GitHub Support for help, please include the request ID {rid}."
    )


@dataclass(frozen=True)
class Quota:
    limit: int
    used: int
    reset: int  # epoch seconds
    resource: str = "core"

    @property
    def remaining(self) -> int:
        return max(self.limit - self.used, 0)

    def headers(self) -> dict[str, str]:
        return {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(self.remaining),
            "x-ratelimit-used": str(self.used),
            "x-ratelimit-reset": str(self.reset),
            "x-ratelimit-resource": self.resource,
        }


class RateLimiter:
    """Counts requests per subject in fixed hourly windows, as GitHub's headers describe them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.limit = 5000  # installation tokens start at 5,000 an hour on GitHub.com
        self.content_per_minute: int | None = None  # GitHub documents 80; off unless a test sets it
        self.content_per_hour: int | None = None  # GitHub documents 500
        self._windows: dict[str, tuple[float, int]] = {}
        self._writes: dict[str, deque[float]] = {}

    def spend(self, subject: str, now: float) -> tuple[Quota, bool]:
        """Count one request; the quota after it and whether it was within the limit."""
        with self.lock:
            start, used = self._windows.get(subject, (now, 0))
            if now - start >= HOUR:
                start, used = now, 0
            allowed = used < self.limit
            if allowed:
                used += 1
            self._windows[subject] = (start, used)
            return Quota(self.limit, used, math.ceil(start + HOUR)), allowed

    def peek(self, subject: str, now: float) -> Quota:
        with self.lock:
            start, used = self._windows.get(subject, (now, 0))
            if now - start >= HOUR:
                start, used = now, 0
            return Quota(self.limit, used, math.ceil(start + HOUR))

    def content_write(self, subject: str, now: float) -> float | None:
        """Count one content-creating request; seconds to wait when it is over a per-minute or
        per-hour limit (a refused request is not counted)."""
        limits = [(n, w) for n, w in ((self.content_per_minute, MINUTE), (self.content_per_hour, HOUR)) if n]
        if not limits:
            return None
        with self.lock:
            recent = self._writes.setdefault(subject, deque())
            while recent and now - recent[0] >= HOUR:
                recent.popleft()
            for limit, window in limits:
                inside = [t for t in recent if now - t < window]
                if len(inside) >= limit:
                    return window - (now - inside[0])
            recent.append(now)
            return None

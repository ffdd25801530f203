"""Structured logs: one JSON object per line, carrying the delivery, installation, repository,
pull request and head a line is about. Tokens, keys and secrets are never passed to a logger.

The context is bound once where the work starts (a delivery's request, a job's run) and every line
written inside, by receipt or by a library, carries it."""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

CONTEXT_FIELDS = ("delivery", "event", "installation", "repo", "pr", "head", "job", "outcome", "status")
logger = logging.getLogger("receipt")
_bound: ContextVar[dict[str, Any]] = ContextVar("receipt_log_context", default={})  # noqa: B039  # never mutated


@contextmanager
def bound(**context: Any) -> Iterator[None]:
    """Every line logged inside the block carries `context` (a line's own fields win)."""
    token = _bound.set({**_bound.get(), **{k: v for k, v in context.items() if v is not None}})
    try:
        yield
    finally:
        _bound.reset(token)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        context = _bound.get()
        for name in CONTEXT_FIELDS:
            value = getattr(record, name, None)
            if value is None:
                value = context.get(name)
            if value is not None:
                line[name] = value
        if record.exc_info and record.exc_info[0] is not None:
            line["error"] = record.exc_info[0].__name__
            line["trace"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class RepeatFilter(logging.Filter):
    """The queue library's consumer logs each failed poll (Redis out of reach: several a second,
    each with its traceback). The first of a kind is kept whole; the same one again within
    `seconds` is dropped, and the next one let through says how many were dropped, without its
    traceback."""

    def __init__(self, seconds: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._seconds = seconds
        self._clock = clock
        self._last: dict[tuple[str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith("huey") or record.levelno < logging.WARNING:
            return True
        key, now = (record.name, str(record.msg)), self._clock()
        seen = self._last.get(key)
        if seen is not None and now - seen[0] < self._seconds:
            self._last[key] = (seen[0], seen[1] + 1)
            return False
        self._last[key] = (now, 0)
        if seen is not None:
            record.msg = f"{record.msg} (again; {seen[1]} more like it in the last {self._seconds:g} s)"
            record.exc_info = None
        return True


def configure_logging(level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RepeatFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("httpx", "httpcore", "huey", "uvicorn.access", "alembic"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


class _OneLine(logging.Formatter):
    """A log line for a person at a terminal (`receipt receive`): the message, never a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        return f"receipt: {record.getMessage()}"


def configure_terminal_logging() -> None:
    """Warnings and failures as one line each on stderr, for a command a person runs."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)


def event(message: str, **context: Any) -> None:
    logger.info(message, extra={k: v for k, v in context.items() if k in CONTEXT_FIELDS})


def failure(message: str, *, exc: BaseException | None = None, **context: Any) -> None:
    extra = {k: v for k, v in context.items() if k in CONTEXT_FIELDS}
    logger.warning(message, exc_info=exc, extra=extra)

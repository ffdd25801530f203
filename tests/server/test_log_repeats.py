"""A queue out of reach makes the consumer log each failed poll: the logs keep the first whole and
then one line a minute saying how many were like it."""

from __future__ import annotations

import logging

from bot.server.logs import RepeatFilter


def _record(name: str, msg: str, *, failed: bool = True) -> logging.LogRecord:
    try:
        raise ConnectionError("Connection refused")
    except ConnectionError:
        import sys

        info = sys.exc_info() if failed else None
    return logging.LogRecord(name, logging.ERROR, __file__, 1, msg, None, info)


def test_a_repeated_consumer_error_is_logged_once_a_minute_with_a_count() -> None:
    now = [0.0]
    kept = RepeatFilter(60, clock=lambda: now[0])
    first = _record("huey.consumer.Worker", "Error reading from queue")
    assert kept.filter(first) and first.exc_info is not None
    for second in range(1, 60):
        now[0] = float(second)
        assert not kept.filter(_record("huey.consumer.Worker", "Error reading from queue"))
    assert kept.filter(_record("huey.consumer.Scheduler", "Error reading schedule."))  # another kind
    now[0] = 61.0
    again = _record("huey.consumer.Worker", "Error reading from queue")
    assert kept.filter(again)
    assert again.msg == "Error reading from queue (again; 59 more like it in the last 60 s)"
    assert again.exc_info is None


def test_receipts_own_lines_are_never_dropped() -> None:
    kept = RepeatFilter(60, clock=lambda: 0.0)
    assert all(kept.filter(_record("receipt", "job failed (attempt 1): x")) for _ in range(5))

"""A bound on how many findings one rule lists for one file: a generated file with a marker on every
line must not make a receipt of a hundred thousand entries. The rest is counted, not dropped."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from bot.engine.findings import RuleId, Violation

MAX_PER_FILE = 100


def capped(
    found: Sequence[Violation], *, rule: RuleId, path: str, what: str, more_id: str
) -> Iterator[Violation]:
    """The first MAX_PER_FILE findings, then one whole-file finding (`line` None) with the count of
    the rest: `{count} more {what} in this file are not listed ...`."""
    yield from found[:MAX_PER_FILE]
    if len(found) > MAX_PER_FILE:
        rest = len(found) - MAX_PER_FILE
        message = f"{rest} more {what} in this file are not listed (the first {MAX_PER_FILE} are)."
        yield Violation(rule, path, None, message, more_id)

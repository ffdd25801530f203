"""Patterns a repository supplies run on RE2: linear time, so a hostile pattern cannot stall a scan."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import re2

_LIMIT_BYTES = 64 << 20


class RegexError(ValueError):
    def __init__(self, pattern: str, problem: str) -> None:
        super().__init__(f"RE2 cannot compile {pattern!r}: {problem}")
        self.pattern = pattern
        self.problem = problem


def re2_options() -> Any:
    """RE2's options for every pattern: errors raised rather than logged, and room for the lazily
    built DFA of a large pattern (or set of patterns) so it is not rebuilt over and over."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = _LIMIT_BYTES
    return options


@lru_cache(maxsize=1024)
def compile_re2(pattern: str) -> Any:
    """A compiled RE2 pattern; RegexError for what RE2 rejects (backreferences, lookaround)."""
    try:
        return re2.compile(pattern, re2_options())
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        text = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
        raise RegexError(pattern, text) from exc


def re2_problem(pattern: str) -> str | None:
    """Why RE2 rejects `pattern`, for configuration errors; None when it compiles."""
    try:
        compile_re2(pattern)
    except RegexError as exc:
        hint = ""
        if "\\1" in pattern or "(?=" in pattern or "(?!" in pattern or "(?<" in pattern:
            hint = " (RE2 has no backreferences or lookaround; rewrite without them)"
        return f"{exc.problem}{hint}"
    return None

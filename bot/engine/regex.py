"""Patterns a repository supplies run on RE2: linear time, so a hostile pattern cannot stall a scan."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import re2

_LIMIT_BYTES = 64 << 20
_BOUNDED = re.compile(r"\{(\d+),\d+\}")


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


def widened(pattern: str) -> str:
    """`pattern` with each bounded repetition `{m,n}` made unbounded (`{m,}`, `+`, `*`): it matches
    wherever `pattern` does, and RE2's automaton for it is smaller (the states that count the steps
    are gone), so it suits a prefilter, which only asks whether a text can match. Braces escaped or
    inside a character class are left alone (and a pattern quoting text with `\\Q` is left whole)."""
    if "\\Q" in pattern:
        return pattern
    out: list[str] = []
    at, end, in_class = 0, len(pattern), False
    while at < end:
        char = pattern[at]
        if char == "\\":
            out.append(pattern[at : at + 2])
            at += 2
            continue
        if in_class:
            named = pattern.find(":]", at) if pattern.startswith("[:", at) else -1
            step = named + 2 - at if named >= 0 else 1  # `[:alpha:]` whole: its `]` ends no class
            in_class = step > 1 or char != "]"
            out.append(pattern[at : at + step])
            at += step
            continue
        if char == "[":
            start = at
            at += 1 + (pattern[at + 1 : at + 2] == "^")
            at += pattern[at : at + 1] == "]"  # a `]` first in a class is one of its characters
            out.append(pattern[start:at])
            in_class = True
            continue
        bounded = _BOUNDED.match(pattern, at) if char == "{" else None
        if bounded is None:
            out.append(char)
            at += 1
            continue
        least = int(bounded.group(1))
        out.append("*" if least == 0 else "+" if least == 1 else f"{{{least},}}")
        at = bounded.end()
    return "".join(out)

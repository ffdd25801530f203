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


class PatternTooLarge(RegexError):
    """RE2 would need more memory for the pattern than it may have: a limit, not a syntax error."""


def re2_options() -> Any:
    """RE2's options for every pattern: errors raised rather than logged, and room for the lazily
    built DFA of a large pattern (or set of patterns) so it is not rebuilt over and over."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = _LIMIT_BYTES
    return options


def compile_bounded(pattern: str, max_mem: int) -> Any:
    """`pattern` compiled by RE2 within `max_mem` bytes (program and automaton); RegexError for what
    RE2 rejects (backreferences, lookaround, a lone surrogate), PatternTooLarge past the memory."""
    options = re2_options()
    options.max_mem = max_mem
    try:
        return re2.compile(pattern, options)
    except UnicodeEncodeError as exc:
        bad = ord(pattern[exc.start])
        raise RegexError(pattern, f"U+{bad:04X} is a lone surrogate, not a character") from exc
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        text = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
        if text.startswith("pattern too large"):
            limit = f"{max_mem >> 10} KiB"
            raise PatternTooLarge(pattern, f"RE2 would need more than {limit} for it (the limit)") from exc
        raise RegexError(pattern, text) from exc


@lru_cache(maxsize=1024)
def compile_re2(pattern: str) -> Any:
    """A compiled RE2 pattern of receipt's own rules; RegexError for what RE2 rejects.

    The cache is for that fixed set of patterns; those a repository supplies are compiled with
    `compile_bounded` into their manifest's PatternStore, which lives as long as the manifest."""
    return compile_bounded(pattern, _LIMIT_BYTES)


@lru_cache(maxsize=256)
def compile_named(pattern: str) -> Any:
    """A compiled RE2 pattern built from names a change's own text supplies (pyselect's aliases):
    a cache of its own, so however many a pull request makes, none evicts receipt's fixed patterns
    from `compile_re2`'s, which the next evaluation would compile again."""
    return compile_bounded(pattern, _LIMIT_BYTES)


def re2_problem(pattern: str, max_mem: int = _LIMIT_BYTES) -> str | None:
    """Why RE2 rejects `pattern` (within `max_mem`), for configuration errors; None when it compiles."""
    try:
        compile_bounded(pattern, max_mem)
    except RegexError as exc:
        return problem_with_hint(exc)
    return None


def problem_with_hint(exc: RegexError) -> str:
    """The problem, and what to do about it when the pattern uses what RE2 lacks."""
    pattern = exc.pattern
    hint = ""
    if "\\1" in pattern or "(?=" in pattern or "(?!" in pattern or "(?<" in pattern:
        hint = " (RE2 has no backreferences or lookaround; rewrite without them)"
    return f"{exc.problem}{hint}"


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

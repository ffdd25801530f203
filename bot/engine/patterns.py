"""The compiled patterns of one manifest: its globs and RE2 regexes, under the limits of bounds.py.

A manifest's patterns are compiled while it is read (so a pattern that cannot compile is a
positioned manifest error) and kept here, with the manifest: they live as long as the evaluation
that reads them, and no process-wide cache keeps a pull request's patterns alive. Compiling counts
what it costs — patterns and RE2 program size — against the limits, which a pull request's proposed
manifest meets like the base one; the built-in groups' globs compile here too, uncounted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bot.engine.bounds import MAX_GLOBS, MAX_MATCH_WORK, MAX_PROGRAM_TOTAL, MAX_REGEXES, REGEX_MAX_MEM
from bot.engine.errors import TooLargeToAssess
from bot.engine.globs import CompiledGlob, compile_glob
from bot.engine.regex import compile_bounded, compile_re2


class OverLimit(Exception):
    """Compiling one more pattern would go over a limit; `problem` says which."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


TOO_EXPENSIVE = "too expensive to evaluate"

# `\A` and `\z` mean the text's ends, which differ between a hunk and a line: content.banned matches
# such a pattern line by line only, without its hunk-wide form.
_TEXT_ANCHOR = compile_re2(r"(?:^|[^\\])(?:\\\\)*\\[Az]")


def hunk_form(pattern: str) -> str | None:
    """The form of a banned pattern run over a whole hunk, `^`/`$` at line ends; None without one."""
    return None if _TEXT_ANCHOR.search(pattern) else "(?m)" + pattern


def login_regex(glob: str) -> str:
    """Logins use `*` and `?` only: brackets are literal, so `*[bot]` means a bot account."""
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob)
    return "(?i)" + body


class MatchWork:
    """What matching patterns has cost, in instruction-bytes (program size times bytes read),
    counted before each match; past MAX_MATCH_WORK the change is too large to assess this way."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.spent = 0

    def charge(self, program_size: int, size: int) -> None:
        self.spent += program_size * size
        if self.spent > MAX_MATCH_WORK:
            raise TooLargeToAssess(
                f"matching {self.what} would cost more than {MAX_MATCH_WORK:,} RE2 instruction-bytes "
                "(the limit); simplify or narrow the patterns, or review the change by hand"
            )


@dataclass
class PatternStore:
    globs: dict[str, CompiledGlob] = field(default_factory=dict)
    regexes: dict[str, Any] = field(default_factory=dict)
    counted_globs: int = 0
    counted_regexes: int = 0
    program_size: int = 0  # of the counted patterns: the compile work spent on them

    def glob(self, pattern: str) -> CompiledGlob:
        """The compiled glob (GlobError when it does not compile)."""
        found = self.globs.get(pattern)
        if found is None:
            found = self.globs[pattern] = compile_glob(pattern)
        return found

    def regex(self, pattern: str) -> Any:
        """The compiled regex (RegexError when it does not compile)."""
        found = self.regexes.get(pattern)
        if found is None:
            found = self.regexes[pattern] = compile_bounded(pattern, REGEX_MAX_MEM)
        return found

    def login(self, glob: str) -> Any:
        """An `applies_to.authors` glob, compiled to match a whole login, case aside."""
        return self.regex(login_regex(glob))

    def add_glob(self, pattern: str) -> CompiledGlob:
        """Compile a glob the manifest carries, counted; OverLimit past a limit, GlobError if invalid."""
        self._count_glob()
        fresh = pattern not in self.globs
        compiled = self.glob(pattern)
        self._charge(compiled.program_size if fresh else 0)
        return compiled

    def add_login(self, glob: str) -> None:
        """Compile a login glob the manifest carries, counted as a glob."""
        self._count_glob()
        self._compile_regex(login_regex(glob))

    def add_regex(self, pattern: str, *forms: str | None) -> None:
        """Compile a regex the manifest carries and the `forms` it is also run as, counted as one
        pattern; OverLimit past a limit, RegexError (PatternTooLarge) if invalid (too large)."""
        if self.counted_regexes >= MAX_REGEXES:
            raise OverLimit(f"{TOO_EXPENSIVE}: more than {MAX_REGEXES} regular expressions (the limit)")
        self._check_program()
        self.counted_regexes += 1
        for source in (pattern, *forms):
            if source is not None:
                self._compile_regex(source)

    def _compile_regex(self, source: str) -> None:
        fresh = source not in self.regexes
        compiled = self.regex(source)
        self._charge(int(compiled.programsize) if fresh else 0)

    def _count_glob(self) -> None:
        if self.counted_globs >= MAX_GLOBS:
            raise OverLimit(f"{TOO_EXPENSIVE}: more than {MAX_GLOBS:,} path patterns (the limit)")
        self._check_program()
        self.counted_globs += 1

    def _check_program(self) -> None:
        if self.program_size > MAX_PROGRAM_TOTAL:
            raise OverLimit(
                f"{TOO_EXPENSIVE}: the manifest's patterns compile to more than {MAX_PROGRAM_TOTAL:,} "
                "RE2 instructions together (the limit)"
            )

    def _charge(self, size: int) -> None:
        self.program_size += size
        self._check_program()

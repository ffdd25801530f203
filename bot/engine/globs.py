"""Path patterns with gitignore semantics, run on RE2.

A list of patterns is read the gitignore way: the last pattern that matches decides, and a
`!pattern` that matches excludes. Dotfiles are ordinary names. pathspec translates a pattern into a
regular expression; RE2 runs it, in time linear in the path (Python's engine backtracks: `*a*a*a*b`
against a long name of `a`s takes minutes), with bounded memory. Patterns are compiled once per
manifest, into its PatternStore (patterns.py), not into a process-wide cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pathspec.patterns.gitignore.base import GitIgnorePatternError
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from bot.engine.bounds import GLOB_MAX_MEM
from bot.engine.regex import RegexError, compile_bounded

if TYPE_CHECKING:
    from bot.engine.patterns import PatternStore


class GlobError(ValueError):
    def __init__(self, pattern: str, problem: str) -> None:
        super().__init__(f"invalid path pattern {pattern!r}: {problem}")
        self.pattern = pattern
        self.problem = problem


@dataclass(frozen=True, slots=True)
class CompiledGlob:
    pattern: str
    include: bool
    regex: Any  # RE2

    @property
    def program_size(self) -> int:
        return int(self.regex.programsize)

    def match_file(self, path: str) -> Any | None:
        """The match when the pattern selects `path` (pathspec's `match_file`), else None."""
        return self.regex.search(path)


def compile_glob(pattern: str) -> CompiledGlob:
    """GlobError for a pattern gitignore cannot read, or one RE2 cannot run within GLOB_MAX_MEM."""
    if not pattern.strip():
        raise GlobError(pattern, "empty pattern")
    if pattern.startswith("#"):
        raise GlobError(pattern, "starts with '#', which gitignore reads as a comment; write '\\#'")
    try:
        regex, include = GitIgnoreSpecPattern.pattern_to_regex(pattern)
    except (GitIgnorePatternError, ValueError) as exc:
        raise GlobError(pattern, str(exc)) from exc
    if regex is None or include is None:
        raise GlobError(pattern, "matches nothing")
    try:
        compiled = compile_bounded(regex, GLOB_MAX_MEM)
    except RegexError as exc:
        raise GlobError(pattern, exc.problem) from exc
    return CompiledGlob(pattern, include, compiled)


@dataclass(frozen=True, slots=True)
class GlobMatch:
    pattern: str
    index: int
    include: bool


def last_match(patterns: Sequence[str], path: str, store: PatternStore) -> GlobMatch | None:
    """The pattern that decides `path` (gitignore: last match wins), or None."""
    decided: GlobMatch | None = None
    for index, pattern in enumerate(patterns):
        compiled = store.glob(pattern)
        if compiled.match_file(path) is not None:
            decided = GlobMatch(pattern, index, compiled.include)
    return decided


def matches(patterns: Sequence[str], path: str, store: PatternStore) -> bool:
    found = last_match(patterns, path, store)
    return found is not None and found.include

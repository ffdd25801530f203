"""Path patterns with gitignore semantics, compiled once.

A list of patterns is read the gitignore way: the last pattern that matches decides, and a
`!pattern` that matches excludes. Dotfiles are ordinary names.

Case: a checkout on a case-insensitive filesystem (macOS, Windows) writes `Agents.md` and
`AGENTS.md` to the same file. A pattern that restricts (protects a path, excludes it from an
allow-list) therefore matches every spelling of a path; a pattern that loosens (allows, unprotects)
matches only the spelling it names. Case can make a path more restricted, never less.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from pathspec.patterns.gitignore.base import GitIgnorePatternError
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern


class GlobError(ValueError):
    def __init__(self, pattern: str, problem: str) -> None:
        super().__init__(f"invalid path pattern {pattern!r}: {problem}")
        self.pattern = pattern
        self.problem = problem


@lru_cache(maxsize=4096)
def compile_glob(pattern: str) -> GitIgnoreSpecPattern:
    if not pattern.strip():
        raise GlobError(pattern, "empty pattern")
    if pattern.startswith("#"):
        raise GlobError(pattern, "starts with '#', which gitignore reads as a comment; write '\\#'")
    try:
        compiled = GitIgnoreSpecPattern(pattern)
    except (GitIgnorePatternError, ValueError) as exc:
        raise GlobError(pattern, str(exc)) from exc
    if compiled.include is None:
        raise GlobError(pattern, "matches nothing")
    return compiled


class Caseless(Enum):
    """Which patterns of a list match every spelling of a path (see the module's docstring)."""

    NONE = "none"  # every pattern matches the exact spelling
    INCLUDES = "includes"  # a list that restricts when it matches: paths.protect, built-in groups
    EXCLUDES = "excludes"  # a list that loosens when it matches: paths.allow


@dataclass(frozen=True, slots=True)
class GlobMatch:
    pattern: str
    index: int
    include: bool
    folded: bool = False  # matched only because case was ignored


@lru_cache(maxsize=4096)
def _any_case(pattern: str) -> re.Pattern[str]:
    """The pattern's own regex, matched case-insensitively: it matches whatever the exact one does."""
    regex = compile_glob(pattern).regex
    assert regex is not None  # compile_glob refuses patterns that match nothing
    return re.compile(regex.pattern, regex.flags | re.IGNORECASE)


_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


def any_case_screen(patterns: Sequence[str]) -> re.Pattern[str]:
    """One regex that matches a path whenever one of `patterns` matches it, in any spelling: a path
    it does not match is decided by none of them (pathspec's named groups are dropped; they do not
    change what matches)."""
    sources = []
    for pattern in dict.fromkeys(patterns):
        regex = _any_case(pattern)
        sources.append(f"(?:{_NAMED_GROUP.sub('(?:', regex.pattern)})")
    return re.compile("|".join(sources) or "(?!)", re.IGNORECASE)


def match_one(pattern: str, path: str, caseless: Caseless = Caseless.NONE) -> GlobMatch | None:
    """Whether `pattern` matches `path` (as GlobMatch with index 0), under the list's case rule."""
    compiled = compile_glob(pattern)
    include = bool(compiled.include)
    if caseless is not (Caseless.INCLUDES if include else Caseless.EXCLUDES):
        return GlobMatch(pattern, 0, include) if compiled.match_file(path) is not None else None
    if _any_case(pattern).search(path) is None:
        return None  # the exact spelling cannot match either: one regex, not two, per pattern
    return GlobMatch(pattern, 0, include, folded=compiled.match_file(path) is None)


def last_match(patterns: Sequence[str], path: str, caseless: Caseless = Caseless.NONE) -> GlobMatch | None:
    """The pattern that decides `path` (gitignore: last match wins), or None."""
    decided: GlobMatch | None = None
    for index, pattern in enumerate(patterns):
        found = match_one(pattern, path, caseless)
        if found is not None:
            decided = GlobMatch(pattern, index, found.include, found.folded)
    return decided


def matches(patterns: Sequence[str], path: str, caseless: Caseless = Caseless.NONE) -> bool:
    found = last_match(patterns, path, caseless)
    return found is not None and found.include

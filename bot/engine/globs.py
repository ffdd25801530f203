"""Path patterns with gitignore semantics, run on RE2.

A list of patterns is read the gitignore way: the last pattern that matches decides, and a
`!pattern` that matches excludes. Dotfiles are ordinary names. pathspec translates a pattern into a
regular expression; RE2 runs it, in time linear in the path (Python's engine backtracks: `*a*a*a*b`
against a long name of `a`s takes minutes), with bounded memory. Patterns are compiled once per
manifest, into its PatternStore (patterns.py), not into a process-wide cache. RE2 reads a path as
`gitpath.matchable` gives it (a byte that is not UTF-8 as U+FFFD).

Case: a checkout on a case-insensitive filesystem (macOS, Windows) writes `Agents.md` and
`AGENTS.md` to the same file. A pattern that restricts (protects a path, excludes it from an
allow-list) therefore matches every spelling of a path; a pattern that loosens (allows, unprotects)
matches only the spelling it names. Case can make a path more restricted, never less.

A directory pattern (`build/`, `build/**`, a bare name) also names the directory itself where a
caller asks (`covers_tree`, for what a test run left behind; ignoring loosens, so exact spelling).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from bot.engine._glob_translations import TRANSLATIONS
from bot.engine.bounds import GLOB_MAX_MEM
from bot.engine.gitpath import matchable
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
        return self.regex.search(matchable(path))


def compile_glob(pattern: str) -> CompiledGlob:
    """GlobError for a pattern gitignore cannot read, or one RE2 cannot run within GLOB_MAX_MEM."""
    if not pattern.strip():
        raise GlobError(pattern, "empty pattern")
    if pattern.startswith("#"):
        raise GlobError(pattern, "starts with '#', which gitignore reads as a comment; write '\\#'")
    regex, include = TRANSLATIONS.get(pattern) or _translated(pattern)
    try:
        compiled = compile_bounded(regex, GLOB_MAX_MEM)
    except RegexError as exc:
        raise GlobError(pattern, exc.problem) from exc
    return CompiledGlob(pattern, include, compiled)


def _translated(pattern: str) -> tuple[str, bool]:
    """pathspec's regex for `pattern`, imported for a policy's own globs only: receipt's are in
    TRANSLATIONS, as pathspec gives them (a test compares)."""
    from pathspec.patterns.gitignore.base import GitIgnorePatternError
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    try:
        regex, include = GitIgnoreSpecPattern.pattern_to_regex(pattern)
    except (GitIgnorePatternError, ValueError) as exc:
        raise GlobError(pattern, str(exc)) from exc
    if regex is None or include is None:
        raise GlobError(pattern, "matches nothing")
    return regex, include


def any_case(compiled: CompiledGlob) -> str:
    """The source of `compiled`'s regex matched case-insensitively, its named groups (pathspec's;
    they do not change what matches) unnamed so that several can share one regex."""
    return "(?i:" + _NAMED_GROUP.sub("(?:", compiled.regex.pattern) + ")"


_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


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


def match_one(
    pattern: str, path: str, store: PatternStore, caseless: Caseless = Caseless.NONE
) -> GlobMatch | None:
    """Whether `pattern` matches `path` (as GlobMatch with index 0), under the list's case rule."""
    compiled = store.glob(pattern)
    include = compiled.include
    if caseless is not (Caseless.INCLUDES if include else Caseless.EXCLUDES):
        return GlobMatch(pattern, 0, include) if compiled.match_file(path) is not None else None
    if store.any_case(pattern).search(matchable(path)) is None:
        return None  # the exact spelling cannot match either: one match, not two, per pattern
    return GlobMatch(pattern, 0, include, folded=compiled.match_file(path) is None)


def last_match(
    patterns: Sequence[str], path: str, store: PatternStore, caseless: Caseless = Caseless.NONE
) -> GlobMatch | None:
    """The pattern that decides `path` (gitignore: last match wins), or None."""
    screen = store.screen(tuple(patterns))
    if screen is not None and screen.search(matchable(path)) is None:
        return None  # most paths: one match for the whole list, not one per pattern
    decided: GlobMatch | None = None
    for index, pattern in enumerate(patterns):
        found = match_one(pattern, path, store, caseless)
        if found is not None:
            decided = GlobMatch(pattern, index, found.include, found.folded)
    return decided


def matches(
    patterns: Sequence[str], path: str, store: PatternStore, caseless: Caseless = Caseless.NONE
) -> bool:
    found = last_match(patterns, path, store, caseless)
    return found is not None and found.include


def covers_tree(patterns: Sequence[str], path: str, store: PatternStore, *, whole: bool) -> bool:
    """Whether the patterns match `path` or, read as a directory (`path/`), the directory itself.

    `whole` says that `path` may stand for a directory reported as a whole, without what it holds;
    then a `!` pattern after the deciding one might re-include something inside it, and the answer
    is no: what cannot be seen is not covered.
    """
    for form in (path, path + "/"):
        found = last_match(patterns, form, store)
        if found is not None and found.include:
            later = patterns[found.index + 1 :]
            if not (whole and any(p.startswith("!") for p in later)):
                return True
    return False

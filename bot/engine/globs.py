"""Path patterns with gitignore semantics, compiled once.

A list of patterns is read the gitignore way: the last pattern that matches decides, and a
`!pattern` that matches excludes. Dotfiles are ordinary names. A directory pattern (`build/`,
`build/**`, a bare name) also names the directory itself where a caller asks (`covers_tree`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class GlobMatch:
    pattern: str
    index: int
    include: bool


def last_match(patterns: Sequence[str], path: str) -> GlobMatch | None:
    """The pattern that decides `path` (gitignore: last match wins), or None."""
    decided: GlobMatch | None = None
    for index, pattern in enumerate(patterns):
        compiled = compile_glob(pattern)
        if compiled.match_file(path) is not None:
            decided = GlobMatch(pattern, index, bool(compiled.include))
    return decided


def matches(patterns: Sequence[str], path: str) -> bool:
    found = last_match(patterns, path)
    return found is not None and found.include


def covers_tree(patterns: Sequence[str], path: str, *, whole: bool) -> bool:
    """Whether the patterns match `path` or, read as a directory (`path/`), the directory itself.

    `whole` says that `path` may stand for a directory reported as a whole, without what it holds;
    then a `!` pattern after the deciding one might re-include something inside it, and the answer
    is no: what cannot be seen is not covered.
    """
    for form in (path, path + "/"):
        found = last_match(patterns, form)
        if found is not None and found.include:
            later = patterns[found.index + 1 :]
            if not (whole and any(p.startswith("!") for p in later)):
                return True
    return False

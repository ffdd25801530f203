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


# Characters of a pattern's literal prefix kept (a shorter prefix is as true): what a path is
# compared with before a pattern is run on it, and how far matching work is counted past a miss.
PREFIX_CHARS = 64
_REGEX_META = frozenset(".^$*+?()[]{}|\\")


def literal_prefix(regex: str) -> str:
    """Text every path `regex` matches begins with, case folded: the literal ASCII characters after
    its leading `^`, up to PREFIX_CHARS; "" when it is not anchored, or has an alternative outside
    any group (pathspec writes none, but the claim is only made where it is certain).

    Folded, it holds for the pattern's case-insensitive twin too: every character RE2 matches to an
    ASCII letter ignoring case (`K`, `k`, the Kelvin sign) folds to that letter, and only to it."""
    if not regex.startswith("^") or _has_top_level_bar(regex):
        return ""
    prefix: list[str] = []
    i = 1
    while i < len(regex) and len(prefix) < PREFIX_CHARS:
        char = regex[i]
        if char == "\\" and i + 1 < len(regex) and not regex[i + 1].isalnum():
            i += 1  # an escaped character stands for itself
            char = regex[i]
        elif char in _REGEX_META:
            break
        if not char.isascii() or regex[i + 1 : i + 2] in ("*", "?", "{"):
            break  # a repeat may take the character zero times
        prefix.append(char)
        i += 1
    return "".join(prefix).casefold()


def _has_top_level_bar(regex: str) -> bool:
    """Whether `regex` has a `|` outside every group and character class."""
    depth = 0
    for token in _REGEX_TOKENS.findall(regex):
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        elif token == "|" and depth == 0:
            return True
    return False


# An escape, a character class (RE2 takes a `]` first in one as a member), or one character.
_REGEX_TOKENS = re.compile(r"\\.|\[\^?\]?(?:\\.|[^\]\\])*\]|.", re.DOTALL)


@dataclass(frozen=True, slots=True)
class CompiledGlob:
    pattern: str
    include: bool
    regex: Any  # RE2
    prefix: str = ""  # literal_prefix of its regex: a path not starting with it (folded) cannot match

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
        raise GlobError(pattern, _in_its_terms(pattern, exc.problem)) from exc
    return CompiledGlob(pattern, include, compiled, literal_prefix(regex))


def _in_its_terms(pattern: str, problem: str) -> str:
    """RE2's problem with a glob's translation, without the translation (pathspec's regex is no
    text the manifest's author wrote): RE2 quotes the part it stopped at, kept when the pattern holds it."""
    what, _, where = problem.partition(": ")
    if where and where not in pattern:
        problem = what
    if "[:" in pattern:
        problem += " (gitignore has no POSIX classes such as [:alpha:]; list the characters: [a-zA-Z])"
    return problem


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
    folded = matchable(path).casefold()
    decided: GlobMatch | None = None
    for index, pattern in enumerate(patterns):
        if not folded.startswith(store.glob(pattern).prefix):
            continue  # it cannot match, in any spelling: not run (1,000 patterns a path add up)
        found = match_one(pattern, path, store, caseless)
        if found is not None:
            decided = GlobMatch(pattern, index, found.include, found.folded)
    return decided


class _Prefixes:
    """The globs' literal prefixes as a tree of characters, each node with the program size of the
    globs whose prefix ends there."""

    def __init__(self) -> None:
        self.next: dict[str, _Prefixes] = {}
        self.program = 0

    def add(self, prefix: str, program: int) -> None:
        node = self
        for char in prefix:
            node = node.next.setdefault(char, _Prefixes())
        node.program += program

    def along(self, folded: str) -> int:
        """The program size of the globs whose prefix `folded` begins with."""
        node = self
        total = node.program
        for char in folded[:PREFIX_CHARS]:
            found = node.next.get(char)
            if found is None:
                break
            node = found
            total += node.program
        return total


def match_work(globs: Sequence[CompiledGlob], paths: Sequence[str]) -> int:
    """What matching every glob against every path may cost RE2 at most, in instruction-bytes (its
    program size times the bytes it reads): a glob reads a path whole only when the path begins
    with its literal prefix; any other path it gives up within that prefix. A policy of 1,000
    globs, each under its own directory, costs each path what the few it could match cost."""
    tree = _Prefixes()
    within = 0
    for glob in globs:
        tree.add(glob.prefix, glob.program_size)
        within += glob.program_size * (len(glob.prefix) + 1)
    work = 0
    for path in paths:
        size = len(path.encode("utf-8", "surrogateescape")) + 1
        work += within + tree.along(matchable(path).casefold()) * size
    return work


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

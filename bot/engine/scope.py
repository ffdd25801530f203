"""Path rules of `scope`: allow-list, protected paths, the manifest itself, and file kinds."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from bot.engine.diff import Diff, FileDiff, FileStatus, LineKind
from bot.engine.findings import RuleId, Violation
from bot.engine.gitpath import matchable, path_label
from bot.engine.globs import Caseless, GlobMatch, last_match, match_one
from bot.engine.groups import GROUPS, MANIFEST_PATH, TEST_COMMAND
from bot.engine.manifest import ChangeKind, Manifest, PathsPolicy
from bot.engine.merging import MergeSide, merge_note
from bot.engine.testcommand import command_patterns

_OVERRIDE = f"a maintainer can change this in {MANIFEST_PATH}"
_CASELESS = "matched case-insensitively"
_RUN_BY_TESTS = " tests.command runs it, so changing it changes how this change's own tests are judged."


@dataclass(frozen=True, slots=True)
class Protection:
    """The pattern that decides whether a path is protected, and which changes it still allows."""

    protected: bool
    source: str
    pattern: str
    allow: frozenset[ChangeKind]
    folded: bool = False  # decided by a pattern that matched only when case was ignored

    def describe(self) -> str:
        return f"{self.source} ({self.pattern!r}{', ' + _CASELESS if self.folded else ''})"


_Protecting = tuple[tuple[str, str, frozenset[ChangeKind]], ...]


def group_patterns(group: str, command: str | None) -> tuple[str, ...]:
    """A built-in group's patterns; `test-command`'s are the files `command` (tests.command) runs."""
    return command_patterns(command) if group == TEST_COMMAND else GROUPS[group]


@lru_cache(maxsize=16)
def _protect_patterns(paths: PathsPolicy, command: str | None) -> tuple[_Protecting, tuple[str, ...]]:
    """Built-in groups first, then the manifest's entries, so a manifest entry can override a group;
    and the patterns alone. Once per policy: a receipt asks for every path of the change."""
    found: _Protecting = (
        *(
            (pattern, f"built-in group {group}", frozenset())
            for group in paths.defaults
            for pattern in group_patterns(group, command)
        ),
        *((pattern, rule.label, rule.allow) for rule in paths.protect for pattern in rule.paths),
    )
    return found, tuple(pattern for pattern, _, _ in found)


def protection(manifest: Manifest, path: str) -> Protection | None:
    """The last protect pattern matching `path` (gitignore semantics), or None. Protecting
    patterns match every spelling of the path, unprotecting ones (`!`) only the one they name."""
    protecting, patterns = _protect_patterns(manifest.paths, manifest.tests.command)
    screen = manifest.patterns.screen(patterns)
    if screen is not None and screen.search(matchable(path)) is None:
        return None  # most paths: one match for all the patterns
    decided: Protection | None = None
    for pattern, source, allow in protecting:
        found = match_one(pattern, path, manifest.patterns, Caseless.INCLUDES)
        if found is not None:
            decided = Protection(found.include, source, pattern, allow, found.folded)
    return decided


def allowed_by(manifest: Manifest, path: str) -> GlobMatch | None:
    """The paths.allow pattern deciding `path`: an exclusion matches every spelling, an inclusion
    only its own."""
    assert manifest.paths.allow is not None
    return last_match(manifest.paths.allow, path, manifest.patterns, Caseless.EXCLUDES)


def _excluded(match: GlobMatch) -> str:
    return f"{match.pattern!r}{f' ({_CASELESS})' if match.folded else ''}"


def sides(file: FileDiff) -> Iterator[tuple[str, ChangeKind]]:
    """Each path a file change touches, with the kind of change it is for that path."""
    if file.status is FileStatus.ADDED or file.status is FileStatus.COPIED:
        assert file.new_path is not None
        yield file.new_path, ChangeKind.ADDED
    elif file.status is FileStatus.DELETED:
        assert file.old_path is not None
        yield file.old_path, ChangeKind.DELETED
    elif file.status is FileStatus.RENAMED:
        assert file.old_path is not None and file.new_path is not None
        yield file.old_path, ChangeKind.DELETED
        yield file.new_path, ChangeKind.ADDED
    else:
        yield file.path, ChangeKind.MODIFIED


def _label(path: str | None) -> str:
    assert path is not None
    return path_label(path)


def _verb(kind: ChangeKind, file: FileDiff) -> str:
    if file.status is FileStatus.RENAMED:
        return f"renames {_label(file.old_path)} to {_label(file.new_path)}"
    if file.status is FileStatus.COPIED:
        return f"copies {_label(file.old_path)} to {_label(file.new_path)}"
    return {ChangeKind.ADDED: "adds", ChangeKind.MODIFIED: "modifies", ChangeKind.DELETED: "deletes"}[
        kind
    ] + " it"


def path_violations(diff: Diff, manifest: Manifest, manifest_paths: tuple[str, ...]) -> list[Violation]:
    found: list[Violation] = []
    for file in diff.files:
        for path, kind in sides(file):
            action = f"this change {_verb(kind, file)}"
            found.extend(_side_violations(path, manifest, manifest_paths, action, kind))
        found.extend(_kind_violations(file, manifest))
    return found


def merge_path_violations(
    merge: MergeSide, head_side: list[Violation], manifest: Manifest, manifest_paths: tuple[str, ...]
) -> list[Violation]:
    """The path rules on `base..merge`, for what `merge-base..head` does not already show: a rule
    and path the head side reports once stays reported once, in the head side's words."""
    if merge.change is None:
        return []
    seen = {(v.rule, v.path) for v in head_side}
    found: list[Violation] = []
    for file in merge.change.diff.files:
        for path, kind in sides(file):
            action = f"when merged onto the base, this change {_verb(kind, file)} ({merge_note(merge, path)})"
            found.extend(
                v
                for v in _side_violations(path, manifest, manifest_paths, action, kind)
                if (v.rule, v.path) not in seen
            )
    return found


def _side_violations(
    path: str, manifest: Manifest, manifest_paths: tuple[str, ...], action: str, kind: ChangeKind
) -> Iterator[Violation]:
    """`action` says what the change does to `path` ("this change modifies it")."""
    if path in manifest_paths:
        yield Violation(
            RuleId.MANIFEST_CHANGE,
            path,
            None,
            f"{action[:1].upper()}{action[1:]}: the receipt policy itself. It is judged by the base "
            "branch's policy; the summary shows what the proposed policy would decide. Policy "
            "changes need a maintainer's review and merge.",
            "manifest",
        )
        return
    decided = protection(manifest, path)
    if decided is not None and decided.protected and kind not in decided.allow:
        allowed = ", ".join(sorted(decided.allow)) or "no change"
        why = _RUN_BY_TESTS if decided.source == f"built-in group {TEST_COMMAND}" else ""
        yield Violation(
            RuleId.PROTECTED_PATH,
            path,
            None,
            f"{path_label(path)} is protected by {decided.describe()}, which allows {allowed}; "
            f"{action}.{why} Revert it, or {_OVERRIDE} (paths.protect / paths.defaults).",
            decided.source.removeprefix("built-in group "),
        )
    allow = manifest.paths.allow
    if allow is not None:
        match = allowed_by(manifest, path)
        if match is None or not match.include:
            why = f"excluded by {_excluded(match)}" if match else "matched by no pattern"
            yield Violation(
                RuleId.OUTSIDE_ALLOWLIST,
                path,
                None,
                f"{path_label(path)} is outside paths.allow ({why}); {action}. Keep "
                f"the change inside {_patterns_named(allow)}, or {_OVERRIDE} "
                "(paths.allow).",
                "paths.allow",
            )


_NAMED_PATTERNS = 5


def _patterns_named(patterns: Sequence[str]) -> str:
    """The first few of a list of patterns, then how many more (a message per path, not a policy dump)."""
    if not patterns:
        return "the allowed paths"
    named = ", ".join(patterns[:_NAMED_PATTERNS])
    rest = len(patterns) - _NAMED_PATTERNS
    return f"{named} and {rest} more" if rest > 0 else named


def symlink_target(file: FileDiff) -> str | None:
    """The target an added or changed symlink points at (git stores it as the blob's one line)."""
    if not file.adds_symlink:
        return None
    added = [line.text for h in file.hunks for line in h.lines if line.kind is LineKind.ADDED]
    return added[0] if added else None


def escapes_repository(link_path: str, target: str) -> bool:
    if target.startswith(("/", "\\", "~")) or (len(target) > 1 and target[1] == ":"):
        return True
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(link_path), target))
    parts = resolved.split("/")
    return resolved == ".." or resolved.startswith("../") or ".git" in parts


def _kind_violations(file: FileDiff, manifest: Manifest) -> Iterator[Violation]:
    policy = manifest.paths
    path = file.path
    if file.mode_changed and not policy.allow_mode_changes and not file.is_submodule:
        yield Violation(
            RuleId.MODE_CHANGE,
            path,
            None,
            f"{path_label(path)} changes mode {file.old_mode} -> {file.new_mode}. Restore the mode, or "
            f"{_OVERRIDE} (paths.allow_mode_changes).",
            "paths.allow_mode_changes",
        )
    target = symlink_target(file)
    if file.adds_symlink and target is not None and escapes_repository(path, target):
        yield Violation(
            RuleId.SYMLINK,
            path,
            None,
            f"{path_label(path)} is a symlink to {target!r}, outside the repository's tracked files. "
            "Symlinks may never leave the repository; replace it with a regular file.",
            "symlink-escape",
        )
    elif file.adds_symlink and not policy.allow_symlinks:
        yield Violation(
            RuleId.SYMLINK,
            path,
            None,
            f"{path_label(path)} is a symlink (to {target!r}). Use a regular file, or {_OVERRIDE} "
            "(paths.allow_symlinks).",
            "paths.allow_symlinks",
        )
    if file.is_submodule and not policy.allow_submodules and file.status is not FileStatus.DELETED:
        yield Violation(
            RuleId.SUBMODULE,
            path,
            None,
            f"{path_label(path)} is a submodule; this change points it at another commit or adds it. "
            f"Revert it, or {_OVERRIDE} (paths.allow_submodules).",
            "paths.allow_submodules",
        )
    if file.binary and not policy.allow_binary and file.status is not FileStatus.DELETED:
        yield Violation(
            RuleId.BINARY,
            path,
            None,
            f"{path_label(path)} is a binary file, which the receipt cannot review line by line. Remove it, "
            f"or {_OVERRIDE} (paths.allow_binary).",
            "paths.allow_binary",
        )


@dataclass(frozen=True, slots=True)
class PathExplanation:
    path: str
    lines: tuple[str, ...]


def explain(path: str, manifest: Manifest, manifest_paths: tuple[str, ...]) -> PathExplanation:
    """Why the policy treats `path` the way it does, one decision per line."""
    if path in manifest_paths:
        return PathExplanation(
            path,
            (
                "manifest-change: this is the receipt policy itself; every change to it is flagged "
                "and judged by the base branch's policy (it cannot be unprotected).",
            ),
        )
    lines: list[str] = []
    decided = protection(manifest, path)
    if decided is None:
        lines.append("not protected: no built-in group or paths.protect pattern matches")
    elif not decided.protected:
        lines.append(f"not protected: unprotected by {decided.describe()}")
    else:
        kinds = ", ".join(sorted(decided.allow)) if decided.allow else "nothing"
        lines.append(f"protected-path: protected by {decided.describe()}; allows {kinds}")
    allow = manifest.paths.allow
    if allow is None:
        lines.append("allowed: paths.allow is not set, so any unprotected path may change")
    else:
        match = allowed_by(manifest, path)
        if match is None:
            lines.append("outside-allowlist: no paths.allow pattern matches")
        elif not match.include:
            lines.append(f"outside-allowlist: excluded by paths.allow[{match.index}] {_excluded(match)}")
        else:
            lines.append(f"allowed: matches paths.allow[{match.index}] {match.pattern!r}")
    for budget in manifest.budgets.per_path:
        bm = last_match(budget.paths, path, manifest.patterns)
        if bm is not None and bm.include:
            lines.append(f"budget: counted in budgets.per_path[{budget.index}] ({bm.pattern!r})")
    return PathExplanation(path, tuple(lines))

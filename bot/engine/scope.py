"""Path rules of `scope`: allow-list, protected paths, the manifest itself, and file kinds."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from dataclasses import dataclass

from bot.engine.diff import Diff, FileDiff, FileStatus, LineKind
from bot.engine.findings import RuleId, Violation
from bot.engine.globs import last_match
from bot.engine.groups import GROUPS, MANIFEST_PATH
from bot.engine.manifest import ChangeKind, Manifest

_OVERRIDE = f"a maintainer can change this in {MANIFEST_PATH}"


@dataclass(frozen=True, slots=True)
class Protection:
    """The pattern that decides whether a path is protected, and which changes it still allows."""

    protected: bool
    source: str
    pattern: str
    allow: frozenset[ChangeKind]

    def describe(self) -> str:
        return f"{self.source} ({self.pattern!r})"


def _protect_patterns(manifest: Manifest) -> Iterator[tuple[str, str, frozenset[ChangeKind]]]:
    """Built-in groups first, then the manifest's entries, so a manifest entry can override a group."""
    for group in manifest.paths.defaults:
        for pattern in GROUPS[group]:
            yield pattern, f"built-in group {group}", frozenset()
    for rule in manifest.paths.protect:
        for pattern in rule.paths:
            yield pattern, rule.label, rule.allow


def protection(manifest: Manifest, path: str) -> Protection | None:
    """The last protect pattern matching `path` (gitignore semantics), or None."""
    decided: Protection | None = None
    for pattern, source, allow in _protect_patterns(manifest):
        compiled = manifest.patterns.glob(pattern)
        if compiled.match_file(path) is not None:
            decided = Protection(bool(compiled.include), source, pattern, allow)
    return decided


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


def _verb(kind: ChangeKind, file: FileDiff) -> str:
    if file.status is FileStatus.RENAMED:
        return f"renames {file.old_path!r} to {file.new_path!r}"
    if file.status is FileStatus.COPIED:
        return f"copies {file.old_path!r} to {file.new_path!r}"
    return {ChangeKind.ADDED: "adds", ChangeKind.MODIFIED: "modifies", ChangeKind.DELETED: "deletes"}[
        kind
    ] + " it"


def path_violations(diff: Diff, manifest: Manifest, manifest_paths: tuple[str, ...]) -> list[Violation]:
    found: list[Violation] = []
    for file in diff.files:
        for path, kind in sides(file):
            found.extend(_side_violations(file, path, kind, manifest, manifest_paths))
        found.extend(_kind_violations(file, manifest))
    return found


def _side_violations(
    file: FileDiff, path: str, kind: ChangeKind, manifest: Manifest, manifest_paths: tuple[str, ...]
) -> Iterator[Violation]:
    if path in manifest_paths:
        yield Violation(
            RuleId.MANIFEST_CHANGE,
            path,
            None,
            f"This change {_verb(kind, file)}: the receipt policy itself. It is judged by the base "
            "branch's policy; the summary shows what the proposed policy would decide. Policy "
            "changes need a maintainer's review and merge.",
            "manifest",
        )
        return
    decided = protection(manifest, path)
    if decided is not None and decided.protected and kind not in decided.allow:
        allowed = ", ".join(sorted(decided.allow)) or "no change"
        yield Violation(
            RuleId.PROTECTED_PATH,
            path,
            None,
            f"{path!r} is protected by {decided.describe()}, which allows {allowed}; this change "
            f"{_verb(kind, file)}. Revert it, or {_OVERRIDE} (paths.protect / paths.defaults).",
            decided.source.removeprefix("built-in group "),
        )
    allow = manifest.paths.allow
    if allow is not None:
        match = last_match(allow, path, manifest.patterns)
        if match is None or not match.include:
            why = f"excluded by {match.pattern!r}" if match else "matched by no pattern"
            yield Violation(
                RuleId.OUTSIDE_ALLOWLIST,
                path,
                None,
                f"{path!r} is outside paths.allow ({why}); this change {_verb(kind, file)}. Keep "
                f"the change inside {', '.join(allow) or 'the allowed paths'}, or {_OVERRIDE} "
                "(paths.allow).",
                "paths.allow",
            )


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
            f"{path!r} changes mode {file.old_mode} -> {file.new_mode}. Restore the mode, or "
            f"{_OVERRIDE} (paths.allow_mode_changes).",
            "paths.allow_mode_changes",
        )
    target = symlink_target(file)
    if file.adds_symlink and target is not None and escapes_repository(path, target):
        yield Violation(
            RuleId.SYMLINK,
            path,
            None,
            f"{path!r} is a symlink to {target!r}, outside the repository's tracked files. "
            "Symlinks may never leave the repository; replace it with a regular file.",
            "symlink-escape",
        )
    elif file.adds_symlink and not policy.allow_symlinks:
        yield Violation(
            RuleId.SYMLINK,
            path,
            None,
            f"{path!r} is a symlink (to {target!r}). Use a regular file, or {_OVERRIDE} "
            "(paths.allow_symlinks).",
            "paths.allow_symlinks",
        )
    if file.is_submodule and not policy.allow_submodules and file.status is not FileStatus.DELETED:
        yield Violation(
            RuleId.SUBMODULE,
            path,
            None,
            f"{path!r} is a submodule; this change points it at another commit or adds it. "
            f"Revert it, or {_OVERRIDE} (paths.allow_submodules).",
            "paths.allow_submodules",
        )
    if file.binary and not policy.allow_binary and file.status is not FileStatus.DELETED:
        yield Violation(
            RuleId.BINARY,
            path,
            None,
            f"{path!r} is a binary file, which the receipt cannot review line by line. Remove it, "
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
        match = last_match(allow, path, manifest.patterns)
        if match is None:
            lines.append("outside-allowlist: no paths.allow pattern matches")
        elif not match.include:
            lines.append(f"outside-allowlist: excluded by paths.allow[{match.index}] {match.pattern!r}")
        else:
            lines.append(f"allowed: matches paths.allow[{match.index}] {match.pattern!r}")
    for budget in manifest.budgets.per_path:
        bm = last_match(budget.paths, path, manifest.patterns)
        if bm is not None and bm.include:
            lines.append(f"budget: counted in budgets.per_path[{budget.index}] ({bm.pattern!r})")
    return PathExplanation(path, tuple(lines))

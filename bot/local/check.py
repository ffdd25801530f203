"""Gather a receipt's inputs from a local git repository (the CLI and the Action share this)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot.engine.applies import PullRequestFacts
from bot.engine.bounds import MAX_DIFF_BYTES
from bot.engine.change import Change, FileKey, FileTexts, change_from_diff, file_key
from bot.engine.diff import Diff
from bot.engine.errors import ReceiptError
from bot.engine.evaluation import Inputs, evaluate, manifest_paths
from bot.engine.excess import check_reference
from bot.engine.groups import MANIFEST_PATH
from bot.engine.manifest import LoadedManifest, ManifestSource, load_manifest
from bot.engine.patching import (
    PatchApplyError,
    Reference,
    ReferencePatchError,
    base_path,
    measurable,
    parse_reference,
)
from bot.engine.receipt import Receipt, Subject
from bot.engine.semantic import TestEvidence
from bot.local.git import Git, GitError
from bot.local.testrun import TestRun, run_tests

MAX_TEXT_BYTES = 2 << 20
DEFAULT_BASES = ("origin/HEAD", "origin/main", "origin/master", "main", "master")


class UsageError(ReceiptError, ValueError):
    """Bad input from the user: exit status 2 with this message."""

    title = "cannot compute the receipt"


@dataclass(frozen=True)
class CheckOptions:
    repo: Path = Path()
    base: str | None = None
    head: str = "HEAD"
    manifest_file: Path | None = None
    manifest_path: str = MANIFEST_PATH
    test_command: str | None = None
    no_tests: bool = False
    no_tests_reason: str = "--no-tests was given"
    reference: Path | None = None
    reference_at_base: str | None = None  # a path read from the base commit, never the working tree
    environment: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))


@dataclass(frozen=True)
class Revisions:
    base: str
    head: str
    merge_base: str


def pick_base(git: Git, base: str | None) -> str:
    if base is not None:
        return git.resolve(base)
    for candidate in DEFAULT_BASES:
        if git.exists(candidate):
            return git.resolve(candidate)
    raise UsageError("no base revision: pass --base REV (none of " + ", ".join(DEFAULT_BASES) + " exists)")


def resolve_revisions(git: Git, base: str | None, head: str) -> Revisions:
    base_sha = pick_base(git, base)
    head_sha = git.resolve(head)
    return Revisions(base_sha, head_sha, git.merge_base(base_sha, head_sha))


def read_manifest(git: Git, options: CheckOptions, base: str) -> LoadedManifest:
    """The policy: `--manifest FILE` if given, else the base commit's file, else the default."""
    if options.manifest_file is not None:
        try:
            data = options.manifest_file.read_bytes()
        except OSError as exc:
            raise UsageError(f"{options.manifest_file}: cannot read manifest: {exc.strerror}") from exc
        return load_manifest(data, str(options.manifest_file), ManifestSource.FILE)
    data_at_base = git.read_file(base, options.manifest_path)
    return load_manifest(data_at_base, options.manifest_path, ManifestSource.BASE)


def file_texts(git: Git, diff: Diff) -> dict[FileKey, FileTexts]:
    """Base and head text of every changed text file, fetched in one git process."""
    wanted = [f for f in diff.files if not f.binary and not f.is_submodule]
    blobs = git.read_blobs(
        [b for f in wanted for b in (f.old_blob, f.new_blob) if b], max_size=MAX_TEXT_BYTES
    )

    def text(path: str | None, sha: str | None) -> str | None:
        if path is None:
            return ""  # the side where the file does not exist
        data = blobs.get(sha) if sha else None
        return None if data is None else data.decode("utf-8", "replace")

    return {
        file_key(f): FileTexts(base=text(f.old_path, f.old_blob), head=text(f.new_path, f.new_blob))
        for f in wanted
    }


def gather_change(git: Git, revisions: Revisions) -> Change:
    data = git.diff(revisions.merge_base, revisions.head, limit=MAX_DIFF_BYTES)
    parsed = change_from_diff(data)
    return Change(parsed.diff, parsed.digest, file_texts(git, parsed.diff))


def _base_text(data: bytes | None) -> str | None:
    """Text the excess metrics can read: not binary (git's rule: a NUL byte early on), not too large."""
    if data is None or len(data) > MAX_TEXT_BYTES or b"\0" in data[:8000]:
        return None
    return data.decode("utf-8", "replace")


def load_reference(
    data: bytes, source: str, change: Change, read_base: Callable[[str], bytes | None], *, label: str
) -> Reference:
    """The reference patch, with the base texts of the files it touches that the change does not.

    `read_base` reads a file at the merge-base (None when absent); `label` names the reference in
    errors. A patch that does not apply is a usage error found before any test runs.
    """
    try:
        reference = parse_reference(data, source)
    except ReferencePatchError as exc:
        raise UsageError(f"{label}: {exc.problem}") from exc
    known = {f.old_path for f in change.diff.files}
    texts: dict[str, str | None] = {}
    for file in reference.diff.files:
        where = base_path(file)
        if measurable(file) and where not in known and where not in texts:
            data_at_base = read_base(where)
            if data_at_base is not None:  # absent from the mapping: not in the base
                texts[where] = _base_text(data_at_base)
    reference = replace(reference, base_texts=texts)
    try:
        check_reference(change, reference)
    except PatchApplyError as exc:
        raise UsageError(f"{label}: {exc}") from exc
    return reference


def read_reference(git: Git, options: CheckOptions, change: Change, revisions: Revisions) -> Reference | None:
    """The reference from `--reference FILE`, or (the Action's input) from a path in the base commit."""

    def at_merge_base(path: str) -> bytes | None:
        return git.read_file(revisions.merge_base, path)

    if options.reference is not None:
        label = f"--reference {options.reference}"
        try:
            data = options.reference.read_bytes()
        except OSError as exc:
            raise UsageError(f"{label}: cannot read: {exc.strerror}") from exc
        return load_reference(data, str(options.reference), change, at_merge_base, label=label)
    if options.reference_at_base is not None:
        path = options.reference_at_base
        found = git.read_file(revisions.base, path)
        if found is None:
            raise UsageError(f"reference {path}: no such file in the base commit {revisions.base[:12]}")
        return load_reference(found, path, change, at_merge_base, label=f"reference {path}")
    return None


def test_evidence(git: Git, options: CheckOptions, loaded: LoadedManifest, head: str) -> TestEvidence:
    if options.no_tests:
        return TestEvidence(not_run_reason=options.no_tests_reason)
    command = options.test_command or loaded.manifest.tests.command
    if not command:
        return TestEvidence(not_run_reason="no --test-command and no tests.command in the manifest")
    timeout = loaded.manifest.tests.timeout_minutes * 60
    return run_tests(git, head, TestRun(command, timeout, options.environment))


def inputs_at(
    git: Git,
    revisions: Revisions,
    options: CheckOptions,
    *,
    repo: str | None = None,
    pr: int | None = None,
    pull_request: PullRequestFacts | None = None,
) -> Inputs:
    """Inputs for known revisions; the Action passes the repository and pull request it knows."""
    loaded = read_manifest(git, options, revisions.base)
    change = gather_change(git, revisions)
    reference = read_reference(git, options, change, revisions)
    paths = manifest_paths(loaded)
    touched = [p for f in change.diff.files for p in f.paths if p in paths]
    proposed = git.read_file(revisions.head, touched[0]) if touched else None
    return Inputs(
        change=change,
        manifest=loaded,
        subject=Subject(
            base=revisions.base,
            head=revisions.head,
            merge_base=revisions.merge_base,
            repo=repo or git.origin_repo(),
            pr=pr,
        ),
        tests=test_evidence(git, options, loaded, revisions.head),
        pull_request=pull_request or PullRequestFacts(),
        proposed_manifest=proposed,
        reference=reference,
    )


def gather(options: CheckOptions) -> Inputs:
    git = Git.open(options.repo)
    return inputs_at(git, resolve_revisions(git, options.base, options.head), options)


def run_check(options: CheckOptions) -> Receipt:
    """Gather, then evaluate.

    Raises UsageError, GitError, ManifestError or DiffParseError.
    """
    return evaluate(gather(options))


__all__ = ["CheckOptions", "GitError", "Revisions", "UsageError", "gather", "inputs_at", "run_check"]

"""`receipt check` for a local repository: revisions, the diff, the shared gather, then the tests.

Everything the receipt judges besides the test results is read from git objects before the test
command runs, so nothing the tests do can change it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from bot.engine import (
    MANIFEST_PATH,
    MAX_DESCRIPTION_CHARS,
    MAX_DIFF_BYTES,
    MAX_MANIFEST_BYTES,
    Description,
    DescriptionSource,
    Inputs,
    LoadedManifest,
    MergeSource,
    PullRequestFacts,
    Receipt,
    TestEvidence,
    display_path,
    evaluate,
)
from bot.fileread import read_limited
from bot.gather import GivenFile, MergeGiven, Request, Revisions, UsageError, gather
from bot.local.fanout import Forked, usable_cores
from bot.local.git import Git, GitError
from bot.local.source import LocalSource

DEFAULT_BASES = ("origin/HEAD", "origin/main", "origin/master", "main", "master")


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
    description: Path | None = None  # the change's description (default: the head commit's message)
    environment: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    processes: int | None = None  # how many may read the change (local/fanout.py); None: one per core


def pick_base(git: Git, base: str | None) -> str:
    if base is not None:
        return git.resolve(base)
    for candidate in DEFAULT_BASES:
        if git.exists(candidate):
            return git.resolve(candidate)
    raise UsageError("no base revision: pass --base REV (none of " + ", ".join(DEFAULT_BASES) + " exists)")


def resolve_revisions(git: Git, base: str | None, head: str) -> Revisions:
    if base is not None:
        base_sha, head_sha = git.resolve_all([base, head])
    else:
        base_sha, head_sha = pick_base(git, base), git.resolve(head)
    return Revisions(base_sha, head_sha, git.merge_base(base_sha, head_sha))


def read_given(path: Path, label: str, limit: int) -> GivenFile:
    """The file named on the command line, no more of it than its reader accepts (read_limited)."""
    try:
        return GivenFile(str(path), read_limited(path, limit))
    except OSError as exc:
        raise UsageError(f"{label}: {exc.strerror}") from exc


def request_of(
    options: CheckOptions,
    *,
    repo: str | None = None,
    pr: int | None = None,
    pull_request: PullRequestFacts | None = None,
    description: Description | None = None,
) -> Request:
    manifest, reference = options.manifest_file, options.reference
    manifest_file = reference_file = None
    if manifest is not None:
        manifest_file = read_given(manifest, f"{manifest}: cannot read manifest", MAX_MANIFEST_BYTES)
    if reference is not None:
        reference_file = read_given(reference, f"--reference {reference}: cannot read", MAX_DIFF_BYTES)
    if options.description is not None:
        # a character is at most 4 bytes of UTF-8: what is past that many is never shown
        given = read_given(
            options.description,
            f"--description {options.description}: cannot read",
            4 * MAX_DESCRIPTION_CHARS,
        )
        description = Description(given.data.decode("utf-8", "replace"), DescriptionSource.FILE)
    return Request(
        manifest_path=options.manifest_path,
        manifest_file=manifest_file,
        reference_file=reference_file,
        reference_at_base=options.reference_at_base,
        repo=repo,
        pr=pr,
        pull_request=pull_request or PullRequestFacts(),
        description=description,
    )


def test_evidence(
    git: Git, options: CheckOptions, loaded: LoadedManifest, head: str, base: str | None
) -> TestEvidence:
    if options.no_tests:
        return TestEvidence(not_run_reason=options.no_tests_reason)
    command = options.test_command or loaded.manifest.tests.command
    if not command:
        return TestEvidence(not_run_reason="no --test-command and no tests.command in the manifest")
    from bot.local.testrun import TestRun, run_tests  # the sandbox and its file gate: only to run tests

    policy = loaded.manifest.tests
    return run_tests(
        git, head, TestRun(command, policy.timeout_minutes * 60, options.environment, policy, base)
    )


def local_merge(git: Git, revisions: Revisions) -> MergeGiven | None:
    """What merging the head into the base gives, by `git merge-tree`; None for a fast-forward."""
    if revisions.fast_forward:
        return None
    merged = git.merge_tree(revisions.base, revisions.head)
    if merged.conflicts:
        shown = ", ".join(map(display_path, merged.conflicts[:10])) + (
            " …" if len(merged.conflicts) > 10 else ""
        )
        return MergeGiven(
            MergeSource.MERGE_TREE,
            problem=f"it does not merge cleanly onto the base {revisions.base[:12]}: "
            f"{len(merged.conflicts)} conflicting path(s) ({shown})",
            conflicts=merged.conflicts,
        )
    diff = git.diff(revisions.base, merged.tree, limit=MAX_DIFF_BYTES)
    return MergeGiven(MergeSource.MERGE_TREE, tree=merged.tree, diff=diff)


def gathered_at(git: Git, revisions: Revisions, options: CheckOptions, request: Request) -> Inputs:
    """Everything but the tests, from git objects: what the code under review cannot change."""
    diff = partial(git.diff, revisions.merge_base, revisions.head, limit=MAX_DIFF_BYTES)
    inputs = gather(LocalSource(git), revisions, diff, request, merge=local_merge(git, revisions))
    return _judged_by(inputs, options.test_command)


def with_tests(git: Git, revisions: Revisions, options: CheckOptions, inputs: Inputs) -> Inputs:
    """`inputs` with the tests run on the head commit: the last thing a check does with git."""
    tests = test_evidence(git, options, inputs.manifest, revisions.head, revisions.merge_base)
    return replace(inputs, tests=tests)


def inputs_at(git: Git, revisions: Revisions, options: CheckOptions, request: Request) -> Inputs:
    """Gather from git objects, then run the tests on the head commit."""
    return with_tests(git, revisions, options, gathered_at(git, revisions, options, request))


def _judged_by(inputs: Inputs, command: str | None) -> Inputs:
    """A command given here (`--test-command`, the Action's `test-command`) is the one the tests run
    through, so the `test-command` group protects its files rather than the manifest's command's."""
    if not command:
        return inputs
    loaded = inputs.manifest
    tests = replace(loaded.manifest.tests, command=command)
    return replace(inputs, manifest=replace(loaded, manifest=replace(loaded.manifest, tests=tests)))


def local_inputs(options: CheckOptions) -> Inputs:
    git = Git.open(options.repo, () if options.base is None else (options.base, options.head))
    revisions = resolve_revisions(git, options.base, options.head)
    message = Description(git.commit_message(revisions.head), DescriptionSource.COMMIT_MESSAGE)
    return inputs_at(
        git, revisions, options, request_of(options, repo=git.origin_repo(), description=message)
    )


def run_check(options: CheckOptions) -> Receipt:
    """Gather, then evaluate. Raises a ReceiptError (UsageError, GitError, ManifestError, …)."""
    inputs = local_inputs(options)
    return evaluate(inputs, fan=Forked(options.processes or usable_cores()))


__all__ = [
    "CheckOptions", "GitError", "Revisions", "UsageError", "gathered_at", "inputs_at", "local_inputs",
    "run_check", "with_tests",
]  # fmt: skip

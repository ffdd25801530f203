"""Gather a receipt's inputs from the API alone: no checkout, nothing from the pull request run.

The counterpart of `bot/local/check.py` for a publisher that must not trust the workspace: the diff,
the base and head texts of every changed file, and the manifest all come from GitHub.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from githubkit import GitHub

from bot.engine.change import Change, FileKey, FileTexts, change_from_diff, file_key
from bot.engine.diff import Diff, FileDiff
from bot.engine.evaluation import Inputs, manifest_paths
from bot.engine.manifest import LoadedManifest, ManifestSource, load_manifest
from bot.engine.receipt import Subject
from bot.engine.semantic import TestEvidence
from bot.github.contents import Tree, get_blob, get_tree, read_file
from bot.github.diffs import fetch_diff
from bot.github.pulls import PullRequest, merge_base
from bot.github.repo import RepoRef
from bot.local.check import MAX_TEXT_BYTES, UsageError, load_reference


@dataclass
class Snapshot:
    """Trees and blobs of one repository, each fetched at most once."""

    gh: GitHub[Any]
    repo: RepoRef
    _trees: dict[str, Tree] = field(default_factory=dict)

    def tree(self, commit: str) -> Tree:
        if commit not in self._trees:
            self._trees[commit] = get_tree(self.gh, self.repo, commit)
        return self._trees[commit]

    def text(self, commit: str, path: str | None) -> str | None:
        """The file's text at `commit`: '' where it does not exist, None when too large or unreadable."""
        if path is None:
            return ""
        tree = self.tree(commit)
        entry = tree.entries.get(path)
        if entry is None and tree.truncated:
            data = read_file(self.gh, self.repo, commit, path)
            return None if data is None or len(data) > MAX_TEXT_BYTES else data.decode("utf-8", "replace")
        if entry is None or entry.type != "blob" or (entry.size or 0) > MAX_TEXT_BYTES:
            return None
        return get_blob(self.gh, self.repo, entry.sha).decode("utf-8", "replace")


def _texts(snapshot: Snapshot, diff: Diff, base: str, head: str) -> dict[FileKey, FileTexts]:
    def texts(f: FileDiff) -> FileTexts:
        return FileTexts(base=snapshot.text(base, f.old_path), head=snapshot.text(head, f.new_path))

    return {file_key(f): texts(f) for f in diff.files if not f.binary and not f.is_submodule}


def load_base_manifest(gh: GitHub[Any], repo: RepoRef, base: str, path: str) -> LoadedManifest:
    """The policy from the base commit (ManifestError when invalid; the default when absent)."""
    return load_manifest(read_file(gh, repo, base, path), path, ManifestSource.BASE)


def gather_from_api(
    gh: GitHub[Any],
    repo: RepoRef,
    pull: PullRequest,
    *,
    manifest_path: str,
    tests: TestEvidence,
    reference_path: str | None = None,
) -> Inputs:
    """Inputs for `pull` as it is on GitHub now, judged by its base commit's manifest.

    The reference patch, like the manifest, is read from the base commit.
    Raises GitHubError, TooLargeToAssess, ManifestError, DiffParseError or UsageError (reference).
    """
    loaded = load_base_manifest(gh, repo, pull.base_sha, manifest_path)
    base = merge_base(gh, repo, pull.base_sha, pull.head_sha)
    snapshot = Snapshot(gh, repo)
    fetched = fetch_diff(gh, repo, pull, snapshot.tree, base)
    parsed = change_from_diff(fetched.data)
    change = Change(parsed.diff, parsed.digest, _texts(snapshot, parsed.diff, base, pull.head_sha))
    paths = manifest_paths(loaded)
    touched = [p for f in change.diff.files for p in f.paths if p in paths]
    proposed = read_file(gh, repo, pull.head_sha, touched[0]) if touched else None
    reference = None
    if reference_path is not None:
        data = read_file(gh, repo, pull.base_sha, reference_path)
        if data is None:
            raise UsageError(
                f"reference {reference_path}: no such file in the base commit {pull.base_sha[:12]}"
            )
        reference = load_reference(
            data,
            reference_path,
            change,
            lambda path: read_file(gh, repo, base, path),
            label=f"reference {reference_path}",
        )
    return Inputs(
        change=change,
        manifest=loaded,
        subject=Subject(
            base=pull.base_sha, head=pull.head_sha, merge_base=base, repo=repo.full_name, pr=pull.number
        ),
        tests=tests,
        pull_request=pull.facts,
        proposed_manifest=proposed,
        reference=reference,
    )

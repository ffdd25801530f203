"""`receipt inspect`: recompute a receipt's digest and every artifact digest it can reach."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.engine import (
    DEFAULT_MANIFEST_TEXT,
    SCHEMA,
    QuotedPathError,
    change_digest,
    digest_bytes,
    digest_of,
    parse_diff,
    unquote,
)
from bot.gather import Revisions, tree_entries
from bot.local.git import Git, GitError
from bot.local.source import LocalSource


@dataclass
class InspectReport:
    ok: bool = True
    lines: list[str] = field(default_factory=list)
    skips: list[tuple[str, str]] = field(default_factory=list)  # (what, why) of every check not run

    def passed(self, what: str, value: str) -> None:
        self.lines.append(f"ok        {what}: {value}")

    def failed(self, what: str, claimed: object, actual: object) -> None:
        self.ok = False
        self.lines.append(f"MISMATCH  {what}: the receipt says {claimed}, recomputed {actual}")

    def skipped(self, what: str, why: str) -> None:
        self.skips.append((what, why))
        self.lines.append(f"skipped   {what}: {why}")

    def unverified(self, what: str, why: str) -> None:
        """A check that could not be run where the evidence must be complete: a failure."""
        self.ok = False
        self.lines.append(f"UNVERIFIED {what}: could not be checked: {why}")


def _get(body: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(body, dict):
            return None
        body = body.get(key)
    return body


def _compare(report: InspectReport, what: str, claimed: Any, actual: str) -> None:
    if claimed == actual:
        report.passed(what, actual)
    else:
        report.failed(what, claimed, actual)


def inspect_receipt(body: Any, git: Git | None) -> InspectReport:
    report = InspectReport()
    if not isinstance(body, dict) or body.get("schema") != SCHEMA:
        report.failed("schema", _get(body, "schema"), f"expected {SCHEMA!r}")
        return report
    if "whatif" in body:
        # the App keeps a manifest-editing pull request's what-if beside its receipt
        report.skipped("whatif", "the what-if table is kept beside the receipt, outside its digest")
        body = {k: v for k, v in body.items() if k != "whatif"}
    _compare(report, "digest", body.get("digest"), digest_of(body))
    _check_change(report, body, git)
    _check_merge(report, body, git)
    _check_manifest(report, body, git)
    if _get(body, "excess", "reference") is not None:
        report.skipped("excess.reference.digest", "the reference patch is not stored in the receipt")
    return report


_NO_REPOSITORY = "not run inside a repository (run it in the one holding the commits, or pass --repo)"


def _check_change(report: InspectReport, body: dict[str, Any], git: Git | None) -> None:
    merge_base, head = _get(body, "subject", "merge_base"), _get(body, "subject", "head")
    if not isinstance(merge_base, str) or not isinstance(head, str):
        report.skipped("change.digest", "the receipt names no merge-base and head commits")
        return
    if git is None:
        report.skipped("change.digest", _NO_REPOSITORY)
        return
    _check_delta(report, "change.digest", _get(body, "change", "digest"), git, old=merge_base, new=head)


def _check_merge(report: InspectReport, body: dict[str, Any], git: Git | None) -> None:
    """`subject.merge.change.digest`: `base..merge` recomputed from the merge result it names."""
    what = "subject.merge.change.digest"
    claimed = _get(body, "subject", "merge", "change", "digest")
    if claimed is None:
        return  # no merge side, or one that could not be known: no digest to check
    base = _get(body, "subject", "base")
    result = _get(body, "subject", "merge", "commit") or _get(body, "subject", "merge", "tree")
    if not isinstance(base, str) or not isinstance(result, str):
        report.skipped(what, "the receipt names no base and merge result")
    elif git is None:
        report.skipped(what, _NO_REPOSITORY)
    else:
        _check_delta(report, what, claimed, git, old=base, new=result)


def _check_delta(report: InspectReport, what: str, claimed: Any, git: Git, *, old: str, new: str) -> None:
    """The tree delta `old..new` (commits, or trees for a merge result) against its claimed digest."""
    try:
        revisions = Revisions(base="", head=_object(git, new), merge_base=_object(git, old))
        diff = parse_diff(git.diff(revisions.merge_base, revisions.head))
        digest = change_digest(diff, *tree_entries(LocalSource(git), diff, revisions))
    except GitError as exc:
        report.skipped(what, exc.problem)
        return
    _compare(report, what, claimed, digest)


def _object(git: Git, rev: str) -> str:
    """A commit by any name git accepts; a merge result's tree by its full SHA."""
    try:
        return git.resolve(rev)
    except GitError:
        if git.resolve_tree(rev) == rev:
            return rev
        raise


def _check_manifest(report: InspectReport, body: dict[str, Any], git: Git | None) -> None:
    source, path = _get(body, "manifest", "source"), _get(body, "manifest", "path")
    claimed = _get(body, "manifest", "digest")
    if source == "default":
        _compare(report, "manifest.digest", claimed, digest_bytes(DEFAULT_MANIFEST_TEXT.encode("utf-8")))
        return
    if source == "file":
        report.skipped("manifest.digest", "the manifest was a file given to `receipt check --manifest`")
        return
    if source != "base":
        report.skipped("manifest.digest", f"unknown manifest source {source!r}")
        return
    base = _get(body, "subject", "base")
    if not isinstance(base, str) or not isinstance(path, str):
        report.skipped("manifest.digest", "the receipt names no base commit and manifest path")
        return
    if git is None:
        report.skipped("manifest.digest", _NO_REPOSITORY)
        return
    try:
        data = git.read_file(git.resolve(base), unquote(path))
    except (GitError, QuotedPathError) as exc:
        report.skipped("manifest.digest", exc.problem)
        return
    if data is None:
        report.failed("manifest.digest", claimed, f"no {path} in the base commit")
        return
    _compare(report, "manifest.digest", claimed, digest_bytes(data))

"""The receipt (`schema: receipt/1`): typed parts, their JSON, and the canonical digest."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.engine.excess import ExcessResult
from bot.engine.findings import Violation
from bot.engine.gitpath import display_path
from bot.engine.locality import LocalityResult
from bot.engine.manifest import ManifestSource
from bot.engine.merging import MergeSource
from bot.engine.references.result import ReferencesResult
from bot.engine.report.report import Report
from bot.engine.semantic import CheckResult, ReportedBy, SemanticStatus
from bot.engine.waivers import WaiverResult

SCHEMA = "receipt/1"


class Conclusion(StrEnum):
    """Check-run conclusions, plus `pending` while configured test checks have not finished."""

    SUCCESS = "success"
    FAILURE = "failure"
    NEUTRAL = "neutral"
    ACTION_REQUIRED = "action_required"
    SKIPPED = "skipped"
    PENDING = "pending"
    CANCELLED = "cancelled"  # the App ends a run it will not finish (a destroyed merge group)


EXIT_CODES = {
    Conclusion.SUCCESS: 0, Conclusion.NEUTRAL: 0, Conclusion.SKIPPED: 0,
    Conclusion.FAILURE: 1, Conclusion.ACTION_REQUIRED: 1, Conclusion.PENDING: 1, Conclusion.CANCELLED: 1,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Subject:
    base: str
    head: str
    merge_base: str
    repo: str | None = None
    pr: int | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    """`enforced`: in `mode: observe`, the conclusion enforce mode would give (None: the same)."""

    conclusion: Conclusion
    reasons: tuple[str, ...]
    enforced: Conclusion | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "conclusion": self.conclusion.value,
            "reasons": list(self.reasons),
            "enforced": self.enforced.value if self.enforced is not None else None,
        }


@dataclass(frozen=True, slots=True)
class DryRun:
    """What the pull request's own version of the manifest would decide."""

    valid: bool
    verdict: Verdict | None = None
    errors: tuple[str, ...] = ()
    too_expensive: bool = False  # a limit on size or cost (bounds.py) stopped it; `errors` says which


@dataclass(frozen=True, slots=True)
class ManifestInfo:
    path: str
    source: ManifestSource
    digest: str
    changed_in_pr: bool
    dry_run: DryRun | None = None


@dataclass(frozen=True, slots=True)
class ChangeSummary:
    files: int
    hunks: int
    added_lines: int
    removed_lines: int
    logical_lines: int
    digest: str


@dataclass(frozen=True, slots=True)
class MergeSummary:
    """`subject.merge`: the merge result and `base..merge` (None, with `problem`, when unknown)."""

    source: MergeSource
    tree: str | None
    commit: str | None
    change: ChangeSummary | None
    problem: str | None = None
    conflicts: tuple[str, ...] = ()


def _change_json(c: ChangeSummary) -> dict[str, Any]:
    return {
        "files": c.files,
        "hunks": c.hunks,
        "added_lines": c.added_lines,
        "removed_lines": c.removed_lines,
        "logical_lines": c.logical_lines,
        "digest": c.digest,
    }


def _merge_json(m: MergeSummary | None) -> dict[str, Any] | None:
    if m is None:
        return None
    return {
        "source": m.source.value,
        "tree": m.tree,
        "commit": m.commit,
        "change": _change_json(m.change) if m.change is not None else None,
        "problem": m.problem,
        "conflicts": [display_path(p) for p in m.conflicts],
    }


@dataclass(frozen=True, slots=True)
class Receipt:
    subject: Subject
    manifest: ManifestInfo
    change: ChangeSummary
    semantic: SemanticStatus
    checks: tuple[CheckResult, ...]
    scope: tuple[Violation, ...]
    locality: LocalityResult
    locality_violations: tuple[Violation, ...]
    excess: ExcessResult
    verdict: Verdict
    reported_by: ReportedBy | None = None
    references: ReferencesResult | None = None  # also the last of `checks`, with its findings
    report: Report | None = None
    waivers: WaiverResult = field(default_factory=lambda: WaiverResult(today=None))
    merge: MergeSummary | None = None  # None: the merge side was not gathered

    @property
    def scope_pass(self) -> bool:
        return not self.scope

    @property
    def locality_pass(self) -> bool:
        return not self.locality_violations

    def as_json(self) -> dict[str, Any]:
        """The receipt as JSON data, `digest` included."""
        body: dict[str, Any] = _encodable(self._body())
        body["digest"] = digest_of(body)
        return body

    def _check_json(self, check: CheckResult) -> dict[str, Any]:
        out = {"name": check.name, "conclusion": check.conclusion.value, "details": check.details}
        if self.references is not None and check == self.references.check:  # receipt's own, with findings
            out |= self.references.as_json()
        return out

    def _semantic_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.semantic.value,
            "checks": [self._check_json(k) for k in self.checks],
        }
        if self.reported_by is not None:  # an extension: present only when someone else ran the tests
            out["reported_by"] = _reported_by_json(self.reported_by)
        return out

    def _body(self) -> dict[str, Any]:
        s, m, c, x = self.subject, self.manifest, self.change, self.excess
        return {
            "schema": SCHEMA,
            "subject": {
                "repo": s.repo,
                "pr": s.pr,
                "base": s.base,
                "head": s.head,
                "merge_base": s.merge_base,
                "merge": _merge_json(self.merge),
            },
            "manifest": {
                "path": m.path,
                "source": m.source.value,
                "digest": m.digest,
                "changed_in_pr": m.changed_in_pr,
                "dry_run": _dry_run_json(m.dry_run),
            },
            "change": _change_json(c),
            "semantic": self._semantic_json(),
            "scope": {"pass": self.scope_pass, "violations": [v.as_json() for v in self.scope]},
            "locality": {
                "pass": self.locality_pass,
                "budgets": [
                    {
                        "name": b.name,
                        "used": b.used,
                        "limit": b.limit,
                        "paths": list(b.paths) if b.paths is not None else None,
                    }
                    for b in self.locality.budgets
                ],
                "violations": [v.as_json(with_id=False) for v in self.locality_violations],
                "formatting_only": [
                    {
                        "path": display_path(f.file.path),
                        "lines": f.formatting_lines,
                        "first_line": f.first_formatting_line,
                    }
                    for f in self.locality.measures
                    if f.formatting_lines
                ],
            },
            "excess": {
                "distance": x.distance,
                "reference": None
                if x.reference is None
                else {"source": display_path(x.reference.source), "digest": x.reference.digest},
                "reference_distance": x.reference_distance,
                "excess": x.excess,
                "formatting_share": x.formatting_share,
                "added_complexity": x.added_complexity,
                "alarm": x.alarm,
                "not_measured": x.not_measured,
            },
            "verdict": self.verdict.as_json(),
            "report": self.report.as_json() if self.report is not None else None,
            "waivers": self.waivers.as_json(),
        }


def _reported_by_json(by: ReportedBy) -> dict[str, Any]:
    return {"source": by.source, "url": by.url, "receipt_digest": by.receipt_digest}


def _dry_run_json(dry: DryRun | None) -> dict[str, Any] | None:
    if dry is None:
        return None
    return {
        "valid": dry.valid,
        "conclusion": dry.verdict.conclusion.value if dry.verdict else None,
        "reasons": list(dry.verdict.reasons) if dry.verdict else [],
        "errors": list(dry.errors),
        "too_expensive": dry.too_expensive,
    }


def _encodable(obj: Any) -> Any:
    """`obj` with every string UTF-8 can encode. Paths are already in their shown form
    (gitpath.display_path); a lone surrogate left in other text (a message quoting a name from the
    filesystem) is written as its `\\udcXX` escape rather than leave no receipt at all."""
    if isinstance(obj, str):
        if obj.isascii():
            return obj
        try:
            obj.encode("utf-8")
        except UnicodeEncodeError:
            return obj.encode("utf-8", "backslashreplace").decode("utf-8")
        return obj
    if isinstance(obj, dict):
        return {k: _encodable(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_encodable(v) for v in obj]
    return obj


def canonical_bytes(obj: Any) -> bytes:
    """DESIGN's canonical JSON: sorted keys, no whitespace, UTF-8."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode(
        "utf-8"
    )


def digest_of(body: dict[str, Any]) -> str:
    """`sha256:` + hex of the canonical JSON of the receipt without its `digest` key."""
    unsigned = {k: v for k, v in body.items() if k != "digest"}
    return "sha256:" + hashlib.sha256(canonical_bytes(unsigned)).hexdigest()


def outcome_digest(body: dict[str, Any]) -> str:
    """The digest of what a receipt decides and shows, leaving out the day it was judged on
    (`waivers.as_of`): an unchanged change judged again on a later day has the same one, so it is
    not published again, unless a waiver's expiry between the two days changed what the receipt
    says (the finding is no longer waived, a warning names the expiry, the verdict flips)."""
    waivers = body.get("waivers")
    if isinstance(waivers, dict):
        body = {**body, "waivers": {k: v for k, v in waivers.items() if k != "as_of"}}
    return digest_of(body)


def render_json(body: dict[str, Any]) -> str:
    """The receipt as a file: stable key order and indentation, so equal receipts are equal bytes."""
    return json.dumps(body, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"

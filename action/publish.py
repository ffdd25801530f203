"""The trust rule of `publish`: what it takes from a pull request's artifact, and what it refuses.

The artifact came out of a job that ran the pull request's code, so it can be forged whole and
still be self-consistent: its digest is tamper evidence, not authentication. `publish` therefore
takes only the test results (semantic) and the side effects of the test run from it, labelled as
reported by that run, and recomputes scope, locality, excess and the `references` check from
GitHub itself. It refuses an
artifact whose digest does not verify or that describes another commit or repository.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from action.event import WorkflowRunEvent
from bot.engine import (
    REFERENCES_CHECK,
    SCHEMA,
    CheckConclusion,
    CheckResult,
    ReceiptError,
    ReportedBy,
    SideEffect,
    SideEffectKind,
    TestEvidence,
    digest_of,
)
from bot.fileread import read_limited
from bot.github.pulls import PullRequest
from bot.jsonread import JsonInputError, load_json_object

MAX_ARTIFACT_BYTES = 16 * 1024 * 1024


class Refusal(ReceiptError):
    """The artifact cannot be published; `reason` goes into the failing check run."""

    title = "refused the pull request's receipt"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Artifact:
    body: dict[str, Any]
    digest: str
    head: str
    repo: str | None
    pr: int | None


def _field(body: dict[str, Any], *keys: str) -> Any:
    value: Any = body
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def load_artifact(path: Path) -> Artifact:
    """The receipt the pull request's run wrote, with its digest verified."""
    try:
        data = read_limited(path, MAX_ARTIFACT_BYTES)
    except FileNotFoundError:
        raise Refusal(
            f"no receipt at {path.name}: the pull request's workflow run did not upload one, or "
            "the download step did not run"
        ) from None
    except OSError as exc:
        raise Refusal(f"cannot read the receipt {path.name}: {exc.strerror}") from exc
    try:
        body = load_json_object(data, "the receipt", max_bytes=MAX_ARTIFACT_BYTES)
    except JsonInputError as exc:
        raise Refusal(exc.problem) from exc
    if body.get("schema") != SCHEMA:
        raise Refusal(f"the file is not a {SCHEMA} receipt")
    claimed = body.get("digest")
    if not isinstance(claimed, str) or claimed != digest_of(body):
        raise Refusal("the receipt's digest does not match its content: it was altered after it was computed")
    head, repo, pr = (
        _field(body, "subject", "head"),
        _field(body, "subject", "repo"),
        _field(body, "subject", "pr"),
    )
    if not isinstance(head, str):
        raise Refusal("the receipt names no head commit")
    return Artifact(
        body=body,
        digest=claimed,
        head=head,
        repo=repo if isinstance(repo, str) else None,
        pr=pr if isinstance(pr, int) and not isinstance(pr, bool) else None,
    )


def verify_subject(artifact: Artifact, run: WorkflowRunEvent) -> None:
    if artifact.head != run.head_sha:
        raise Refusal(
            f"the receipt describes commit {artifact.head[:12]}, but the workflow run that produced "
            f"it ran on {run.head_sha[:12]}"
        )
    if artifact.repo is not None and artifact.repo != run.repo.full_name:
        raise Refusal(f"the receipt is for repository {artifact.repo}, not {run.repo.full_name}")


def choose_pull(artifact: Artifact, candidates: list[PullRequest], run: WorkflowRunEvent) -> PullRequest:
    """The pull request the receipt is published on: open, with the run's head commit as its head."""
    matching = [p for p in candidates if p.head_sha == run.head_sha]
    if artifact.pr is not None:
        named = [p for p in matching if p.number == artifact.pr]
        if not named:
            raise Refusal(
                f"the receipt names pull request #{artifact.pr}, which is not an open pull request "
                f"whose head is {run.head_sha[:12]}"
            )
        return named[0]
    if len(matching) != 1:
        raise Refusal(
            f"{len(matching)} open pull requests have head {run.head_sha[:12]} and the receipt names "
            "none of them"
        )
    return matching[0]


def _checks(body: dict[str, Any]) -> tuple[CheckResult, ...]:
    raw = _field(body, "semantic", "checks")
    if not isinstance(raw, list):
        raise Refusal("the receipt's semantic.checks is not a list")
    checks: list[CheckResult] = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise Refusal("a check in the receipt has no name")
        if item["name"] == REFERENCES_CHECK:
            continue  # receipt's own check: publish recomputes it from GitHub, never takes it
        try:
            conclusion = CheckConclusion(str(item.get("conclusion")))
        except ValueError:
            raise Refusal(
                f"check {item['name']!r} has an unknown conclusion {item.get('conclusion')!r}"
            ) from None
        details = item.get("details")
        checks.append(CheckResult(item["name"], conclusion, details if isinstance(details, str) else ""))
    return tuple(checks)


def _side_effects(body: dict[str, Any]) -> tuple[SideEffect, ...]:
    found: list[SideEffect] = []
    for v in _field(body, "scope", "violations") or ():
        if not isinstance(v, dict) or v.get("rule") != "side-effect" or not isinstance(v.get("path"), str):
            continue
        kind = str(v.get("id", "")).removeprefix("side-effect:")
        if kind in SideEffectKind.__members__.values():
            found.append(SideEffect(v["path"], SideEffectKind(kind)))
    return tuple(found)


def run_label(run: WorkflowRunEvent) -> str:
    name = f"workflow run {run.workflow!r}" if run.workflow else "workflow run"
    return f"the pull request's own {name} #{run.run_id} ({run.event})"


def reported_evidence(artifact: Artifact, run: WorkflowRunEvent) -> TestEvidence:
    """The artifact's test results and test-run side effects, labelled with where they came from.

    Side effects can only add violations, so taking them loosens nothing.
    """
    checks = _checks(artifact.body)
    return TestEvidence(
        checks=checks,
        side_effects=_side_effects(artifact.body),
        not_run_reason=None if checks else "the pull request's run reported that it ran no tests",
        reported_by=ReportedBy(source=run_label(run), url=run.html_url, receipt_digest=artifact.digest),
    )

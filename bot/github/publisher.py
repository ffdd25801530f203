"""Publish: a receipt, or the problem that prevented one, as the `receipt` check run.

The Action's `publish`/`check` modes and the App call the same functions: `receipt_run` or
`problem_run` build the request (titles, summary and text within GitHub's limits, annotations most
severe first), `publish` creates the run or updates one in progress. A required check never hangs:
every problem that stops a receipt becomes a completed, failing run that says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from githubkit import GitHub

from bot.engine import (
    Annotation,
    Conclusion,
    ManifestError,
    Receipt,
    ReceiptError,
    TooLargeToAssess,
    manifest_error_annotations,
    md_text,
    receipt_annotations,
    render_markdown,
)
from bot.github.checks import (
    OUTPUT_TEXT_LIMIT,
    CheckRunRequest,
    PublishedCheckRun,
    left_out_note,
    publish_check_run,
)
from bot.github.errors import GitHubError
from bot.github.repo import RepoRef

REEVALUATE = "reevaluate"
REEVALUATE_ACTION: Mapping[str, str] = {
    "label": "Re-evaluate",
    "description": "Compute the receipt again",
    "identifier": REEVALUATE,
}


@dataclass(frozen=True, slots=True)
class Problem:
    """Why no receipt could be published: a short title and a Markdown explanation."""

    title: str
    explanation: str
    annotations: Sequence[Annotation] = field(default_factory=tuple)
    observed: bool = False  # the policy says `mode: observe`: the run is neutral, not failing


def problem_of(exc: ReceiptError | GitHubError) -> Problem:
    """The one mapping from an error that stopped a receipt to what its run says."""
    found = _problem_of(exc)
    return replace(found, observed=True) if isinstance(exc, ReceiptError) and exc.observed else found


def _problem_of(exc: ReceiptError | GitHubError) -> Problem:
    if isinstance(exc, ManifestError):
        return Problem(
            exc.title,
            f"The manifest in the base commit is invalid; fix it there:\n\n```\n{exc}\n```",
            tuple(manifest_error_annotations(exc)),
        )
    if isinstance(exc, GitHubError):
        return Problem(
            "GitHub could not give what the receipt needs",
            md_text(f"{exc}") + "\n\nThe receipt cannot be computed without it; re-run the check later.",
        )
    if isinstance(exc, TooLargeToAssess):
        return Problem(exc.title, f"{md_text(exc.reason)}. Review this pull request by hand.")
    return Problem(exc.title, md_text(exc.problem))


@dataclass(frozen=True, slots=True)
class Notice:
    """What someone must do before a pending receipt can conclude (approve a held workflow, grant
    a permission): it leads the title and the summary, so nobody has to open the details to see it."""

    title: str
    text: str  # Markdown


def _fence(text: str) -> str:
    longest = max((len(run) for run in text.split("\n") if set(run) == {"`"}), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}text\n{text}\n{ticks}"


def test_details(receipt: Receipt) -> str:
    parts = [
        f"### {c.name}: {c.conclusion.value}\n\n{_fence(c.details)}" for c in receipt.checks if c.details
    ]
    return "\n\n".join(parts)


def title_of(receipt: Receipt) -> str:
    reasons = receipt.verdict.reasons
    return (
        f"{receipt.verdict.conclusion.value}: {reasons[0]}" if reasons else receipt.verdict.conclusion.value
    )


def receipt_run(
    receipt: Receipt,
    *,
    annotations: Sequence[Annotation] | None = None,
    details_url: str | None = None,
    actions: Sequence[Mapping[str, str]] = (),
    notices: Sequence[Notice] = (),
    appendix: str = "",
    base_ref: str | None = None,
) -> CheckRunRequest:
    """The check run that shows `receipt`; a pending verdict leaves it in progress. `appendix`
    (Markdown: the what-if of a manifest change) follows the receipt, cut to a quarter of the room;
    `base_ref` names the base branch the policy was read from."""
    found = receipt_annotations(receipt) if annotations is None else annotations
    note = left_out_note(len(found))
    lead = "".join(f"{n.text}\n\n" for n in notices)[: OUTPUT_TEXT_LIMIT // 4]
    tail = f"\n\n{cut_lines(appendix, OUTPUT_TEXT_LIMIT // 4)}" if appendix else ""
    room = OUTPUT_TEXT_LIMIT - len(note) - len(lead) - len(tail) - 4
    summary = (
        lead
        + render_markdown(receipt, limit=room, base_ref=base_ref)
        + tail
        + (f"\n\n{note}" if note else "")
    )
    title = title_of(receipt)
    if notices:
        title = f"{receipt.verdict.conclusion.value}: " + "; ".join(n.title for n in notices)
    return CheckRunRequest(
        head_sha=receipt.subject.head,
        conclusion=receipt.verdict.conclusion,
        title=title,
        summary=summary,
        text=test_details(receipt),
        annotations=[a.as_github() for a in found],
        external_id=receipt.as_json()["digest"],
        details_url=details_url,
        actions=actions,
    )


def cut_lines(text: str, limit: int) -> str:
    """`text` within `limit` characters, cut at a line's end (a table keeps whole rows)."""
    if len(text) <= limit:
        return text
    marker = "\n\n… (cut: too long for the check run)\n"
    kept = text[: limit - len(marker)].rsplit("\n", 1)[0]
    return kept + marker


def problem_summary(problem: Problem) -> str:
    return f"## {'⚠️' if problem.observed else '❌'} receipt: {problem.title}\n\n{problem.explanation}\n"


def problem_run(
    head_sha: str,
    problem: Problem,
    *,
    details_url: str | None = None,
    actions: Sequence[Mapping[str, str]] = (),
) -> CheckRunRequest:
    """A completed run that says why no receipt could be published: failing, or neutral where the
    policy, read before the problem, says `mode: observe` (nothing there blocks a merge)."""
    summary = problem_summary(problem)
    if problem.observed:
        summary += (
            "\n\nThe policy is in `mode: observe`, so this run is neutral and blocks nothing; in "
            "`mode: enforce` it would fail."
        )
    return CheckRunRequest(
        head_sha=head_sha,
        conclusion=Conclusion.NEUTRAL if problem.observed else Conclusion.FAILURE,
        title=f"observe mode: {problem.title}" if problem.observed else problem.title,
        summary=summary,
        annotations=[a.as_github() for a in problem.annotations],
        details_url=details_url,
        actions=actions,
    )


def closing_run(head_sha: str, conclusion: Conclusion, title: str, explanation: str) -> CheckRunRequest:
    """A completed run that ends a receipt the App will not compute (superseded, cancelled)."""
    return CheckRunRequest(
        head_sha=head_sha,
        conclusion=conclusion,
        title=title,
        summary=f"## receipt: {title}\n\n{explanation}\n",
    )


def waiting_run(head_sha: str, title: str, explanation: str) -> CheckRunRequest:
    """A run left in progress, saying what the receipt waits for and what happens next."""
    return CheckRunRequest(
        head_sha=head_sha, conclusion=None, title=title, summary=f"## receipt: {title}\n\n{explanation}\n"
    )


def publish(
    gh: GitHub[Any],
    repo: RepoRef,
    run: CheckRunRequest,
    *,
    run_id: int | None = None,
    annotations_sent: int = 0,
) -> PublishedCheckRun:
    """Create the run, or update run `run_id` (which already carries `annotations_sent`)."""
    return publish_check_run(gh, repo, run, run_id=run_id, annotations_sent=annotations_sent)


__all__ = [
    "REEVALUATE",
    "REEVALUATE_ACTION",
    "Notice",
    "Problem",
    "PublishedCheckRun",
    "closing_run",
    "problem_of",
    "problem_run",
    "problem_summary",
    "publish",
    "receipt_run",
    "test_details",
    "title_of",
    "waiting_run",
]

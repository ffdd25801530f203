"""What a run leaves behind: the check run, the job summary, annotations, outputs, the receipt file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from githubkit import GitHub

from action.runner import annotation_commands, append_summary, commands_stopped
from action.settings import Settings
from bot.engine import Annotation, Receipt, render_json, render_markdown, render_terminal
from bot.github.checks import CheckRunRequest, PublishedCheckRun
from bot.github.errors import Forbidden, GitHubError
from bot.github.publisher import Problem, problem_summary, publish
from bot.github.repo import RepoRef

JOB_SUMMARY_CHARS = 250_000  # the Markdown renderer counts characters; 4 bytes each stays under 1 MiB
READ_ONLY_NOTE = (
    "No `receipt` check run was created: the token cannot create check runs ({detail}). A fork's "
    "pull request gets a read-only `GITHUB_TOKEN`; use the fork-safe pair (`mode: compute` under "
    "`pull_request`, `mode: publish` under `workflow_run`) to get a check run. The verdict above "
    "is this step's exit status."
)


@dataclass(frozen=True, slots=True)
class CheckRunOutcome:
    published: PublishedCheckRun | None
    note: str


def publish_or_explain(gh: GitHub[Any], repo: RepoRef, run: CheckRunRequest) -> CheckRunOutcome:
    """Publish the run; a 403 (a fork's read-only token) becomes a note instead of an error."""
    try:
        published = publish(gh, repo, run)
    except Forbidden as exc:
        return CheckRunOutcome(None, READ_ONLY_NOTE.format(detail=f"HTTP 403: {exc.message}"))
    link = f" ([details]({published.html_url}))" if published.html_url.startswith("https://") else ""
    return CheckRunOutcome(published, f"Published as the `receipt` check run{link}.")


def try_problem_check_run(gh: GitHub[Any], repo: RepoRef, run: CheckRunRequest, log: TextIO) -> None:
    """Best effort: the error that led here is what the step reports, whatever happens to this."""
    try:
        publish(gh, repo, run)
    except GitHubError as exc:
        log.write(f"receipt: could not create the failing check run either: {exc}\n")


def print_annotations(annotations: Sequence[Annotation], out: TextIO) -> None:
    commands = annotation_commands(annotations)
    for line in commands.lines:
        out.write(line + "\n")
    if commands.left_out:
        out.write(
            f"receipt: {commands.left_out} more finding(s) are not annotated here (GitHub shows 10 "
            "per level per step); the job summary and the receipt JSON list them all.\n"
        )


def print_receipt(receipt: Receipt, out: TextIO) -> None:
    with commands_stopped(out):
        out.write(render_terminal(receipt))


def excess_output(receipt: Receipt) -> str:
    x = receipt.excess
    value = x.excess if x.reference is not None and x.excess is not None else x.distance
    return "" if value is None else repr(value)


def receipt_outputs(receipt: Receipt, path: Path | None) -> dict[str, str]:
    return {
        "conclusion": receipt.verdict.conclusion.value,
        "semantic": receipt.semantic.value,
        "scope": "pass" if receipt.scope_pass else "fail",
        "locality": "pass" if receipt.locality_pass else "fail",
        "excess": excess_output(receipt),
        "receipt": str(path) if path is not None else "",
    }


def problem_outputs() -> dict[str, str]:
    return {"conclusion": "failure", "semantic": "", "scope": "", "locality": "", "excess": "", "receipt": ""}


def write_receipt(receipt: Receipt, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_json(receipt.as_json()), encoding="utf-8")


def summarize(settings: Settings, receipt: Receipt, notes: Sequence[str]) -> None:
    markdown = render_markdown(receipt, limit=JOB_SUMMARY_CHARS)
    append_summary(settings.summary_file, markdown + "".join(f"\n\n{n}" for n in notes if n))


def summarize_problem(settings: Settings, problem: Problem) -> None:
    append_summary(settings.summary_file, problem_summary(problem))

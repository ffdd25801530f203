"""main(argv, environ) -> int: the action's entrypoint.

Exit status: 0 success, neutral or skipped (and `publish` once it has published, whatever the
verdict, and any problem found once a `mode: observe` policy was read); 1 failure or action
required (and `publish` refusing an artifact); 2 usage or configuration errors (bad inputs or
event, invalid manifest, merge-base out of reach); 3 GitHub answered with an error the action
cannot work around.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from githubkit import GitHub

from action.event import PullRequestEvent, WorkflowRunEvent, load_event
from action.publish import Refusal, choose_pull, load_artifact, reported_evidence, verify_subject
from action.report import (
    print_annotations,
    print_receipt,
    problem_outputs,
    publish_or_explain,
    receipt_outputs,
    summarize,
    summarize_problem,
    try_problem_check_run,
    write_receipt,
)
from action.runner import command, write_outputs
from action.settings import Mode, Settings, read_settings
from bot.engine import (
    EXIT_CODES,
    Annotation,
    Receipt,
    ReceiptError,
    TooLargeToAssess,
    evaluate,
    receipt_annotations,
)
from bot.engine.render.whatif_text import pull_whatif_markdown
from bot.engine.whatif import PullWhatIf
from bot.gather import UsageError
from bot.github.client import make_client
from bot.github.errors import Forbidden, GitHubError, NotFound
from bot.github.publisher import Problem, problem_of, problem_run, receipt_run
from bot.github.pulls import PullRequest, get_pull, pulls_with_head
from bot.github.remote import gather_pull
from bot.github.whatif import manifest_whatif
from bot.local.fanout import Forked, usable_cores

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_GITHUB = 0, 1, 2, 3


def _client(settings: Settings) -> GitHub[Any]:
    assert settings.token is not None  # read_settings requires one outside compute
    return make_client(settings.token, base_url=settings.api_url)


def _finish_problem(
    settings: Settings, problem: Problem, head_sha: str | None, out: TextIO, *, check_run: bool
) -> None:
    level = "warning" if problem.observed else "error"
    out.write(command(level, f"receipt: {problem.title}: {problem.explanation}") + "\n")
    if check_run and head_sha is not None:
        try_problem_check_run(_client(settings), settings.repository, problem_run(head_sha, problem), out)
    summarize_problem(settings, problem)
    write_outputs(settings.output_file, problem_outputs())


def _publish(
    gh: GitHub[Any],
    settings: Settings,
    receipt: Receipt,
    annotations: list[Annotation],
    *,
    whatif: PullWhatIf | None,
    base_ref: str,
) -> tuple[bool, list[str]]:
    """The receipt as the `receipt` check run, with the what-if of a proposed manifest: whether it
    was published, and the notes for the job summary."""
    table = pull_whatif_markdown(whatif)
    run = receipt_run(receipt, annotations=annotations, appendix=table, base_ref=base_ref)
    outcome = publish_or_explain(gh, settings.repository, run)
    return outcome.published is not None, [outcome.note, table]


def run_local(settings: Settings, event: PullRequestEvent, environ: Mapping[str, str], out: TextIO) -> int:
    """`check` and `compute` on pull_request / pull_request_target: the only modes that read the
    checkout and run tests, so the only ones that load the local adapter."""
    from action.local import gather_local

    publish = settings.mode is Mode.CHECK
    try:
        inputs, table = gather_local(settings, event, environ, whatif=publish)
        receipt = evaluate(inputs, fan=Forked(usable_cores()))
    except ReceiptError as exc:
        _finish_problem(settings, problem_of(exc), event.pull.head_sha, out, check_run=publish)
        return EXIT_OK if exc.observed else EXIT_USAGE
    write_receipt(receipt, settings.receipt_path)
    print_receipt(receipt, out)
    notes: list[str] = []
    if publish:
        annotations = receipt_annotations(receipt)
        _, notes = _publish(_client(settings), settings, receipt, annotations, whatif=table,
                            base_ref=event.pull.base_ref)  # fmt: skip
        print_annotations(annotations, out)
    else:
        notes.append(
            f"Computed only (`mode: compute`): the receipt is in `{settings.receipt_path.name}` for a "
            "`mode: publish` job to publish."
        )
    summarize(settings, receipt, notes)
    write_outputs(settings.output_file, receipt_outputs(receipt, settings.receipt_path))
    return EXIT_CODES[receipt.verdict.conclusion]


def _candidates(
    gh: GitHub[Any], settings: Settings, run: WorkflowRunEvent, named: int | None
) -> list[PullRequest]:
    numbers = (
        [named] if named is not None else [p.number for p in run.pull_requests if p.head_sha == run.head_sha]
    )
    if not numbers:
        return pulls_with_head(gh, settings.repository, run.head_sha)
    found: list[PullRequest] = []
    for number in numbers:
        try:
            found.append(get_pull(gh, settings.repository, number))
        except NotFound:
            continue
    return [p for p in found if p.state == "open"]


def published_path(settings: Settings) -> Path:
    """Where publish writes the receipt it recomputed, beside the artifact it was given."""
    path = settings.receipt_path
    return path.with_name(path.stem + ".published.json")


def run_publish(settings: Settings, run: WorkflowRunEvent, out: TextIO) -> int:
    """`publish` on workflow_run: recompute from GitHub, take only semantic from the artifact."""
    if run.event != "pull_request":
        out.write(
            f"receipt: the workflow run was triggered by {run.event!r}, "
            "not by a pull request: nothing to publish\n"
        )
        return EXIT_OK
    gh = _client(settings)
    try:
        artifact = load_artifact(settings.receipt_path)
        verify_subject(artifact, run)
        pull = choose_pull(artifact, _candidates(gh, settings, run, artifact.pr), run)
        inputs = gather_pull(
            gh,
            settings.repository,
            pull,
            manifest_path=settings.manifest,
            reference_path=settings.reference,
            tests=reported_evidence(artifact, run),
        )
        receipt = evaluate(inputs, fan=Forked(usable_cores()))
    except ReceiptError as exc:
        _finish_problem(settings, problem_of(exc), run.head_sha, out, check_run=True)
        if exc.observed:
            return EXIT_OK
        return EXIT_FAIL if isinstance(exc, Refusal | TooLargeToAssess) else EXIT_USAGE
    target = published_path(settings)
    write_receipt(receipt, target)
    print_receipt(receipt, out)
    whatif = manifest_whatif(gh, settings.repository, inputs, branch=pull.base_ref, last=settings.whatif_last)
    published, notes = _publish(gh, settings, receipt, receipt_annotations(receipt), whatif=whatif,
                                 base_ref=pull.base_ref)  # fmt: skip
    if not published:
        raise UsageError(
            "the publish job's token cannot create check runs: give the job `permissions: checks: write`"
        )
    summarize(settings, receipt, notes)
    write_outputs(settings.output_file, receipt_outputs(receipt, target))
    return EXIT_OK


def _run(settings: Settings, environ: Mapping[str, str], out: TextIO) -> int:
    event = load_event(settings.event_name, settings.event_path)
    if settings.mode is Mode.PUBLISH:
        if not isinstance(event, WorkflowRunEvent):
            raise UsageError(f"mode publish runs on workflow_run, not {settings.event_name}")
        return run_publish(settings, event, out)
    if not isinstance(event, PullRequestEvent):
        raise UsageError(
            f"mode {settings.mode} runs on pull_request or pull_request_target, not workflow_run"
        )
    return run_local(settings, event, environ, out)


def main(argv: Sequence[str], environ: Mapping[str, str], out: TextIO | None = None) -> int:
    stream = out or sys.stdout
    try:
        settings = read_settings(argv, environ)
        return _run(settings, environ, stream)
    except ReceiptError as exc:
        stream.write(command("error", f"receipt: {exc}") + "\n")
        return EXIT_USAGE
    except Forbidden as exc:
        stream.write(command("error", f"receipt: GitHub refused: {exc}") + "\n")
        return EXIT_GITHUB
    except GitHubError as exc:
        stream.write(command("error", f"receipt: GitHub API error: {exc}") + "\n")
        return EXIT_GITHUB

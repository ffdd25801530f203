"""The `receipt` check run on the wire: create or update, annotations in batches GitHub accepts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from githubkit import GitHub

from bot.engine import Conclusion
from bot.github.errors import UnexpectedResponse, translated
from bot.github.repo import RepoRef

REFERENCES_CHECK = "receipt"
ANNOTATIONS_PER_REQUEST = 50
MAX_ANNOTATIONS = 1000
OUTPUT_TEXT_LIMIT = 65_535
TITLE_LIMIT = 255
_CUT_MARK = "\n\n_… cut to fit GitHub's limit._"

Annotation = Mapping[str, object]


@dataclass(frozen=True, slots=True)
class CheckRunRequest:
    """One check run to publish; `conclusion` None leaves it in progress (the App waits for tests)."""

    head_sha: str
    conclusion: Conclusion | None
    title: str
    summary: str
    text: str = ""
    annotations: Sequence[Annotation] = field(default_factory=tuple)
    name: str = REFERENCES_CHECK
    details_url: str | None = None
    external_id: str | None = None
    actions: Sequence[Mapping[str, str]] = field(
        default_factory=tuple
    )  # buttons: label, description, identifier


@dataclass(frozen=True, slots=True)
class PublishedCheckRun:
    id: int
    html_url: str
    annotations_sent: int
    annotations_left_out: int


def left_out(total: int) -> int:
    """How many annotations the cap leaves out of a run with `total` of them."""
    return max(0, total - MAX_ANNOTATIONS)


def left_out_note(total: int) -> str:
    """The sentence the summary carries when the cap leaves annotations out ('' when none)."""
    n = left_out(total)
    if not n:
        return ""
    return (
        f"_{n} more annotation(s) are not shown: a check run carries at most {MAX_ANNOTATIONS:,}. "
        "The receipt JSON lists every finding._"
    )


def fit(text: str, limit: int = OUTPUT_TEXT_LIMIT) -> str:
    """`text` cut to `limit` characters, saying so, never mid-way through the marker."""
    if len(text) <= limit:
        return text
    return text[: limit - len(_CUT_MARK)] + _CUT_MARK


def _status_fields(conclusion: Conclusion | None) -> dict[str, str]:
    if conclusion is None or conclusion is Conclusion.PENDING:
        return {"status": "in_progress"}
    return {"status": "completed", "conclusion": conclusion.value}


def _output(run: CheckRunRequest, batch: Sequence[Annotation]) -> dict[str, Any]:
    output: dict[str, Any] = {"title": fit(run.title, TITLE_LIMIT), "summary": fit(run.summary)}
    if run.text:
        output["text"] = fit(run.text)
    if batch:
        output["annotations"] = [dict(a) for a in batch]
    return output


def _batches(annotations: Sequence[Annotation], *, room: int = MAX_ANNOTATIONS) -> list[Sequence[Annotation]]:
    kept = annotations[: max(0, room)]
    return [kept[i : i + ANNOTATIONS_PER_REQUEST] for i in range(0, len(kept), ANNOTATIONS_PER_REQUEST)]


def publish_check_run(
    gh: GitHub[Any],
    repo: RepoRef,
    run: CheckRunRequest,
    *,
    run_id: int | None = None,
    annotations_sent: int = 0,
) -> PublishedCheckRun:
    """Create the run (or update run `run_id`) with the first batch of annotations, then append
    the rest by updates.

    GitHub appends annotations on every update, so an update sends only those after the first
    `annotations_sent` (what earlier requests for this run already carried). A completed run is
    sent completed in its first request, so a failure half-way through leaves a finished run with
    fewer annotations rather than one that hangs in progress. Annotations go in the order given
    (most severe first), so the cap drops the least severe.
    """
    batches = _batches(run.annotations[annotations_sent:], room=MAX_ANNOTATIONS - annotations_sent)
    body: dict[str, Any] = {
        "name": run.name,
        **_status_fields(run.conclusion),
        "output": _output(run, batches[0] if batches else ()),
    }
    if run.details_url:
        body["details_url"] = run.details_url
    if run.external_id:
        body["external_id"] = run.external_id
    if run.actions:
        body["actions"] = [dict(a) for a in run.actions]
    with translated():
        if run_id is None:
            answer = gh.rest.checks.create(
                repo.owner, repo.name, data=cast(Any, {**body, "head_sha": run.head_sha})
            ).json()
        else:
            answer = gh.rest.checks.update(repo.owner, repo.name, run_id, data=cast(Any, body)).json()
    try:
        run_id, html_url = int(answer["id"]), str(answer.get("html_url") or "")
    except (KeyError, TypeError, ValueError) as exc:
        raise UnexpectedResponse(201, f"check run without an id: {exc}") from exc
    for batch in batches[1:]:
        with translated():
            gh.rest.checks.update(
                repo.owner, repo.name, run_id, data=cast(Any, {"output": _output(run, batch)})
            )
    sent = annotations_sent + sum(len(b) for b in batches)
    return PublishedCheckRun(run_id, html_url, sent, len(run.annotations) - sent)

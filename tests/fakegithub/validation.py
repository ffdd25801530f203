"""Request bodies checked as GitHub checks them: its OpenAPI schema (githubkit's generated pydantic
models) first, then the rules GitHub enforces beyond the schema.

The schema holds the lengths (summary and text ≤ 65,535 characters, ≤ 50 annotations, ≤ 3 actions
with label ≤ 20, description ≤ 40, identifier ≤ 20), the required fields and the allowed values;
beyond it GitHub reserves `stale` and the Actions-only statuses, wants a conclusion with
`completed_at`, and bounds annotation positions, titles and details. A conclusion without a status
is valid: GitHub sets the status to completed.
"""

from __future__ import annotations

from typing import Any

from githubkit_schemas.latest.models import (
    AppInstallationsInstallationIdAccessTokensPostBody,
    ReposOwnerRepoActionsWorkflowsWorkflowIdDispatchesPostBody,
    ReposOwnerRepoCheckRunsCheckRunIdPatchBodyAnyof0,
    ReposOwnerRepoCheckRunsCheckRunIdPatchBodyAnyof1,
    ReposOwnerRepoCheckRunsPostBodyOneof0,
    ReposOwnerRepoCheckRunsPostBodyOneof1,
)
from pydantic import BaseModel, TypeAdapter
from pydantic import ValidationError as PydanticError

MAX_ANNOTATION_TEXT = 64 * 1024
MAX_ANNOTATION_TITLE = 255
ACTIONS_ONLY_STATUSES = frozenset({"waiting", "requested", "pending"})
ANNOTATION_LEVELS = ("notice", "warning", "failure")


def _branch(body: dict[str, Any], completed: type[BaseModel], other: type[BaseModel]) -> type[BaseModel]:
    """The schema alternative the body means: completed (a conclusion is required) or not."""
    return completed if body.get("status") == "completed" else other


def _is_type_name(part: str) -> bool:
    """pydantic names the union member or model it tried; GitHub names only the field path."""
    return part[:1].isupper() or part.startswith(
        ("literal[", "list[", "dict[", "str", "int", "datetime", "bool")
    )


def _schema_problems(model: type[BaseModel], body: Any) -> list[str]:
    try:
        TypeAdapter(model).validate_python(body)
    except PydanticError as exc:
        problems = []
        for e in exc.errors():
            # A field that may be unset shows up once per alternative; the literal UNSET one says nothing.
            loc = [str(p) for p in e["loc"] if not str(p).startswith("literal[<UNSET>]")]
            if "<UNSET>" in e["msg"]:
                continue
            where = "/".join(p for p in loc if not _is_type_name(p))
            problems.append(f"{where}: {e['msg']}")
        return sorted(set(problems)) or ["body: does not match the schema"]
    return []


def _annotation_problems(annotations: Any) -> list[str]:
    problems = []
    for n, a in enumerate(annotations if isinstance(annotations, list) else []):
        where = f"output/annotations/{n}"
        if not isinstance(a, dict):
            continue
        start, end = a.get("start_line", 1), a.get("end_line", 1)
        if isinstance(start, int) and isinstance(end, int) and (start < 1 or end < start):
            problems.append(f"{where}: start_line must be >= 1 and end_line >= start_line")
        if ("start_column" in a or "end_column" in a) and a.get("start_line") != a.get("end_line"):
            problems.append(f"{where}: start_column and end_column need start_line == end_line")
        if len(str(a.get("title", ""))) > MAX_ANNOTATION_TITLE:
            problems.append(f"{where}/title: longer than {MAX_ANNOTATION_TITLE} characters")
        for key in ("message", "raw_details"):
            if len(str(a.get(key, "")).encode("utf-8")) > MAX_ANNOTATION_TEXT:
                problems.append(f"{where}/{key}: larger than 64 KB")
    return problems


def _semantic_problems(body: dict[str, Any]) -> list[str]:
    problems = []
    if body.get("conclusion") == "stale":
        problems.append("conclusion: only GitHub can set stale")
    if body.get("status") in ACTIONS_ONLY_STATUSES:
        problems.append(f"status: {body['status']} is reserved for GitHub Actions")
    if "completed_at" in body and "conclusion" not in body:
        problems.append("conclusion: required when completed_at is given")
    output = body.get("output")
    if isinstance(output, dict):
        problems.extend(_annotation_problems(output.get("annotations")))
    return problems


def check_run_problems(body: Any, *, create: bool) -> list[str]:
    """Everything wrong with a check-run body, as GitHub would report it (empty when valid)."""
    if not isinstance(body, dict):
        return ["body: must be a JSON object"]
    model = (
        _branch(body, ReposOwnerRepoCheckRunsPostBodyOneof0, ReposOwnerRepoCheckRunsPostBodyOneof1)
        if create
        else _branch(
            body,
            ReposOwnerRepoCheckRunsCheckRunIdPatchBodyAnyof0,
            ReposOwnerRepoCheckRunsCheckRunIdPatchBodyAnyof1,
        )
    )
    return _schema_problems(model, body) + _semantic_problems(body)


def token_request_problems(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return ["body: must be a JSON object"]
    return _schema_problems(AppInstallationsInstallationIdAccessTokensPostBody, body)


def dispatch_problems(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return ["body: must be a JSON object"]
    return _schema_problems(ReposOwnerRepoActionsWorkflowsWorkflowIdDispatchesPostBody, body)

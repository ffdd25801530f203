"""Request bodies checked as GitHub checks them: its OpenAPI schema (githubkit's generated pydantic
models) first, then the rules GitHub enforces beyond the schema."""

from __future__ import annotations

from typing import Any

from githubkit_schemas.latest.models import (
    ReposOwnerRepoCheckRunsCheckRunIdPatchBodyAnyof0,
    ReposOwnerRepoCheckRunsCheckRunIdPatchBodyAnyof1,
    ReposOwnerRepoCheckRunsPostBodyOneof0,
    ReposOwnerRepoCheckRunsPostBodyOneof1,
)
from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticError

CREATE = TypeAdapter(ReposOwnerRepoCheckRunsPostBodyOneof0 | ReposOwnerRepoCheckRunsPostBodyOneof1)
UPDATE = TypeAdapter(
    ReposOwnerRepoCheckRunsCheckRunIdPatchBodyAnyof0 | ReposOwnerRepoCheckRunsCheckRunIdPatchBodyAnyof1
)
MAX_ANNOTATION_TEXT = 64 * 1024
MAX_ANNOTATION_TITLE = 255


def _schema_problems(adapter: TypeAdapter[Any], body: Any) -> list[str]:
    try:
        adapter.validate_python(body)
    except PydanticError as exc:
        return [f"{'/'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
    return []


def _annotation_problems(annotations: Any) -> list[str]:
    problems = []
    for n, a in enumerate(annotations or []):
        where = f"output/annotations/{n}"
        if a.get("start_line", 1) < 1 or a.get("end_line", 1) < a.get("start_line", 1):
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
    problems = _schema_problems(CREATE if create else UPDATE, body)
    return problems + _semantic_problems(body)

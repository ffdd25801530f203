"""Error answers in GitHub's shape, raised by the routes and turned into responses by the app."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request

from tests.fakegithub import shapes

DOCS = "https://docs.github.com/rest"


class GitHubAnswer(Exception):
    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        super().__init__(status)
        self.status, self.body, self.headers = status, body, headers or {}


def not_found() -> GitHubAnswer:
    return GitHubAnswer(404, shapes.error(404, "Not Found", doc=DOCS))


def invalid(problems: list[str], doc: str) -> GitHubAnswer:
    return GitHubAnswer(
        422,
        shapes.error(
            422,
            "Invalid request.\n\n" + "\n".join(problems),
            doc=f"https://docs.github.com/rest/{doc}",
        ),
    )


def unprocessable(message: str, doc: str, errors: Any = None) -> GitHubAnswer:
    return GitHubAnswer(
        422, shapes.error(422, message, doc=f"https://docs.github.com/rest/{doc}", errors=errors)
    )


async def json_body(request: Request) -> Any:
    raw = await request.body()
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        raise GitHubAnswer(400, shapes.error(400, "Problems parsing JSON", doc=DOCS)) from None


def page(items: list[Any], per_page: int, page_number: int) -> list[Any]:
    per_page = min(max(per_page, 1), 100)
    start = (max(page_number, 1) - 1) * per_page
    return items[start : start + per_page]


def link_header(url: str, query: dict[str, str], *, page_number: int, per_page: int, total: int) -> str:
    """`Link` with next/last (and first/prev past page 1), as GitHub paginates by page."""
    per_page = min(max(per_page, 1), 100)
    last = max((total + per_page - 1) // per_page, 1)

    def at(n: int) -> str:
        params = {**query, "per_page": str(per_page), "page": str(n)}
        return url + "?" + "&".join(f"{k}={v}" for k, v in params.items())

    links = []
    if page_number < last:
        links += [f'<{at(page_number + 1)}>; rel="next"', f'<{at(last)}>; rel="last"']
    if page_number > 1:
        links += [f'<{at(page_number - 1)}>; rel="prev"', f'<{at(1)}>; rel="first"']
    return ", ".join(links)

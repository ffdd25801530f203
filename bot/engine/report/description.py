"""The pull request's description as the report reads it: title and body, or a commit message."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

MAX_DESCRIPTION_CHARS = 65_536  # GitHub's own limit on a pull request's body
_HIDDEN = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)  # HTML comments: a template's hints, never shown


class DescriptionSource(StrEnum):
    PULL_REQUEST = "pull-request"  # title and body
    COMMIT_MESSAGE = "commit-message"  # the head commit's message (the CLI's default)
    FILE = "file"  # --description FILE


@dataclass(frozen=True, slots=True)
class Description:
    text: str
    source: DescriptionSource

    @classmethod
    def of_pull_request(cls, title: str | None, body: str | None) -> Description:
        return cls(f"{title or ''}\n\n{body or ''}".strip(), DescriptionSource.PULL_REQUEST)

    @property
    def visible(self) -> str:
        """What a reader of the rendered description sees: HTML comments removed, bounded."""
        return _HIDDEN.sub(" ", self.text[:MAX_DESCRIPTION_CHARS])

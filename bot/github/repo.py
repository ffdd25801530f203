"""`owner/name` of a repository, validated once."""

from __future__ import annotations

import re
from dataclasses import dataclass

_PART = re.compile(r"[A-Za-z0-9_.-]{1,100}")


@dataclass(frozen=True, slots=True)
class RepoRef:
    owner: str
    name: str

    @classmethod
    def parse(cls, full_name: str) -> RepoRef:
        owner, slash, name = full_name.partition("/")
        if not slash or not _PART.fullmatch(owner) or not _PART.fullmatch(name) or name in (".", ".."):
            raise ValueError(f"{full_name!r} is not an owner/name repository")
        return cls(owner, name)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def __str__(self) -> str:
        return self.full_name

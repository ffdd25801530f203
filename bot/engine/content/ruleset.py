"""The shape of a ported secret ruleset (gitleaks' TOML schema, as data).

`_gitleaks_rules.py` is generated into these classes by `tools/gen_gitleaks_rules.py`, so the
engine never reads a ruleset file at run time.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Target(StrEnum):
    """What an allowlist's regexes are matched against."""

    SECRET = "secret"
    MATCH = "match"
    LINE = "line"


@dataclass(frozen=True, slots=True)
class Allowlist:
    """A finding is dropped when this allowlist matches: any one check (OR) or all of them (AND)."""

    regexes: tuple[str, ...] = ()
    target: Target = Target.SECRET
    paths: tuple[str, ...] = ()
    stopwords: tuple[str, ...] = ()
    require_all: bool = False


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """One detector: an RE2 regex, the keywords that must occur before it runs, and its filters.

    `secret_group` 0 means the first non-empty capture group (or the whole match without groups);
    `entropy` is the Shannon entropy (bits per character) the secret must exceed, 0 for none.
    """

    id: str
    regex: str
    keywords: tuple[str, ...] = ()
    entropy: float = 0.0
    secret_group: int = 0
    path: str | None = None
    allowlists: tuple[Allowlist, ...] = ()

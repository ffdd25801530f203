"""`applies_to`: which pull requests the policy covers."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from bot.engine.globs import matches
from bot.engine.manifest import AppliesTo


@dataclass(frozen=True, slots=True)
class PullRequestFacts:
    """What the gatherer knows about the pull request; None where it does not know."""

    author: str | None = None
    labels: tuple[str, ...] | None = None
    head_branch: str | None = None


@lru_cache(maxsize=256)
def _login_pattern(glob: str) -> re.Pattern[str]:
    """Logins use `*` and `?` only: brackets are literal, so `*[bot]` means a bot account."""
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob)
    return re.compile(body, re.IGNORECASE)


def covers(applies_to: AppliesTo | None, facts: PullRequestFacts) -> bool:
    """A pull request is covered when it matches any listed criterion.

    Any one signal marks a pull request as an agent's (a bot author, a label, a branch prefix), so
    the criteria are alternatives; a criterion the gatherer cannot observe counts as matching,
    because a policy that cannot tell must apply rather than wave the change through.
    """
    if applies_to is None:
        return True
    results: list[bool] = []
    if applies_to.authors is not None:
        results.append(
            facts.author is None or any(_login_pattern(g).fullmatch(facts.author) for g in applies_to.authors)
        )
    if applies_to.labels is not None:
        wanted = {label.casefold() for label in applies_to.labels}
        results.append(facts.labels is None or any(lb.casefold() in wanted for lb in facts.labels))
    if applies_to.branches is not None:
        results.append(facts.head_branch is None or matches(applies_to.branches, facts.head_branch))
    return any(results) if results else True

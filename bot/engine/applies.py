"""`applies_to`: which pull requests the policy covers."""

from __future__ import annotations

from dataclasses import dataclass

from bot.engine.globs import matches
from bot.engine.manifest import AppliesTo
from bot.engine.patterns import PatternStore


@dataclass(frozen=True, slots=True)
class PullRequestFacts:
    """What the gatherer knows about the pull request; None where it does not know."""

    author: str | None = None
    labels: tuple[str, ...] | None = None
    head_branch: str | None = None


def not_covered(applies_to: AppliesTo | None, facts: PullRequestFacts, patterns: PatternStore) -> str | None:
    """Why the policy does not cover the pull request, each criterion it misses named; None when
    it does: when it matches any listed criterion.

    Any one signal marks a pull request as an agent's (a bot author, a label, a branch prefix), so
    the criteria are alternatives; a criterion the gatherer cannot observe counts as matching,
    because a policy that cannot tell must apply rather than wave the change through.
    """
    if applies_to is None:
        return None
    missed: list[str] = []
    if applies_to.authors is not None:
        if facts.author is None or any(patterns.login(g).fullmatch(facts.author) for g in applies_to.authors):
            return None
        missed.append(f"author {facts.author!r} is none of authors ({', '.join(applies_to.authors)})")
    if applies_to.labels is not None:
        wanted = {label.casefold() for label in applies_to.labels}
        if facts.labels is None or any(lb.casefold() in wanted for lb in facts.labels):
            return None
        missed.append(f"it has none of labels ({', '.join(applies_to.labels)})")
    if applies_to.branches is not None:
        if facts.head_branch is None or matches(applies_to.branches, facts.head_branch, patterns):
            return None
        missed.append(
            f"branch {facts.head_branch!r} matches none of branches ({', '.join(applies_to.branches)})"
        )
    return "; ".join(missed) if missed else None

"""How the `references` check enters the receipt: whether it runs, what it does to `semantic` and
to the verdict's reasons."""

from __future__ import annotations

from bot.engine.manifest import Manifest
from bot.engine.references.result import ReferencesResult
from bot.engine.semantic import CheckConclusion, CheckResult, SemanticStatus

_DECIDING = (CheckConclusion.SUCCESS, CheckConclusion.FAILURE)


def for_policy(
    manifest: Manifest, analyzed: ReferencesResult | None, *, gathered: bool
) -> ReferencesResult | None:
    """The check as the policy has it: off with `tests.references: false`; by default on where
    the repository has Python; asked for explicitly, it says why it could not run."""
    setting = manifest.tests.references
    if setting is False or (analyzed is None and setting is None):
        return None
    if analyzed is None:
        why = "no Python module in the repository" if gathered else "the tree was not read for it"
        return ReferencesResult(skipped=why)
    return analyzed


def semantic_with(status: SemanticStatus, references: ReferencesResult | None) -> SemanticStatus:
    """A broken call site fails semantic whatever the tests say (and without waiting for them)."""
    failed = references is not None and references.conclusion is CheckConclusion.FAILURE
    return SemanticStatus.FAIL if failed else status


def deciding_checks(
    checks: tuple[CheckResult, ...], references: ReferencesResult | None
) -> tuple[CheckResult, ...]:
    """The checks the verdict names: `references` only when it passed or failed."""
    if references is None or references.conclusion not in _DECIDING:
        return checks
    return (*checks, references.check)


def verdict_note(references: ReferencesResult | None) -> str | None:
    """The reason the verdict adds when `references` could not decide."""
    if references is None or references.conclusion in _DECIDING:
        return None
    return f"references {references.summary}"

"""The content-rule registry: detectors over the text a change adds.

Each rule sees every changed file (its diff and, when the gatherer fetched them, its full base and
head text) and returns violations. Rules are listed here explicitly, in one place, so what runs is
visible without import-time registration.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Protocol

from bot.engine.change import Change
from bot.engine.content._gitleaks_rules import GLOBAL_ALLOWLIST
from bot.engine.content.added import AddedFile, added_files, release
from bot.engine.content.banned import BannedPatternsRule
from bot.engine.content.dangerous import PREFILTER_GROUPS as DANGEROUS_GROUPS
from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.prefilter import Prefilter
from bot.engine.content.secrets import OWN_PASS as SECRET_OWN_PASS
from bot.engine.content.secrets import SecretScanner, SecretsRule, default_detectors
from bot.engine.content.secrets import prefilter_groups as secret_prefilter_groups
from bot.engine.content.suppressions import PREFILTER_GROUPS as SUPPRESSION_GROUPS
from bot.engine.content.suppressions import SuppressionsRule
from bot.engine.content.unicode import InvisibleUnicodeRule
from bot.engine.findings import Violation, content_basis
from bot.engine.manifest import Manifest


class ContentRule(Protocol):
    def scan(self, change: Change, manifest: Manifest) -> Iterable[Violation]: ...


def _registry() -> tuple[ContentRule, ...]:
    """The rules, sharing one prefilter: a hunk is read once for every rule's prefilter patterns."""
    detectors = default_detectors()
    groups = {**secret_prefilter_groups(detectors), **DANGEROUS_GROUPS, **SUPPRESSION_GROUPS}
    prefilter = Prefilter(groups, own_pass=SECRET_OWN_PASS)
    return (
        SecretsRule(SecretScanner(detectors, GLOBAL_ALLOWLIST, prefilter)),
        DangerousRule(prefilter=prefilter),
        SuppressionsRule(prefilter),
        InvisibleUnicodeRule(),
        BannedPatternsRule(),
    )


CONTENT_RULES: Sequence[ContentRule] = _registry()


def content_violations(
    change: Change, manifest: Manifest, rules: Sequence[ContentRule] = CONTENT_RULES
) -> list[Violation]:
    found: list[Violation] = []
    try:
        for rule in rules:
            found.extend(rule.scan(change, manifest))
        files = {f.path: f for f in added_files(change)}
        return [_with_basis(v, files) for v in found]
    finally:
        release(change)  # the rules share the change's added text while they run, not after


def _with_basis(found: Violation, files: Mapping[str, AddedFile]) -> Violation:
    """A finding on an added line is about that line's content (a rule with a finer notion, such
    as a secret's digest, sets its own)."""
    file = files.get(found.path or "")
    text = None if found.basis or found.line is None or file is None else file.added_line(found.line)
    return found if text is None else replace(found, basis=content_basis(text))

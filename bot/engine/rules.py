"""The content-rule registry: detectors over the text a change adds.

Each rule sees every changed file (its diff and, when the gatherer fetched them, its full base and
head text) and returns violations. Rules are listed here explicitly, in one place, so what runs is
visible without import-time registration.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Protocol

from bot.engine.change import Change
from bot.engine.content._gitleaks_rules import GLOBAL_ALLOWLIST
from bot.engine.content.added import AddedFile, added_files
from bot.engine.content.banned import BannedPatternsRule
from bot.engine.content.bannedimports import BannedImportsRule
from bot.engine.content.dangerous import PREFILTER_GROUPS as DANGEROUS_GROUPS
from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.prefilter import Prefilter
from bot.engine.content.secrets import OWN_PASS as SECRET_OWN_PASS
from bot.engine.content.secrets import SecretScanner, SecretsRule, default_detectors
from bot.engine.content.secrets import prefilter_groups as secret_prefilter_groups
from bot.engine.content.suppressions import PREFILTER_GROUPS as SUPPRESSION_GROUPS
from bot.engine.content.suppressions import SuppressionsRule
from bot.engine.content.unicode import InvisibleUnicodeRule
from bot.engine.fan import Fan, in_order
from bot.engine.findings import Violation, content_basis
from bot.engine.manifest import Manifest


class ContentRule(Protocol):
    """A rule over the text a change adds. `scan` reads `files` (some of the change's added
    files, in their order) or, by default, all of them, and reports each file's findings together,
    under the file's path; `added` is every added file of the change, for what a rule reads across
    files (built here when not given). `one_pass`: the rule must read every file in one call (it
    keeps a budget over the whole change)."""

    @property
    def one_pass(self) -> bool: ...

    def scan(
        self,
        change: Change,
        manifest: Manifest,
        files: Sequence[AddedFile] | None = None,
        added: Sequence[AddedFile] | None = None,
    ) -> Iterable[Violation]: ...


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
        BannedImportsRule(),
    )


CONTENT_RULES: Sequence[ContentRule] = _registry()


def content_violations(
    change: Change, manifest: Manifest, rules: Sequence[ContentRule] = CONTENT_RULES, fan: Fan = in_order
) -> list[Violation]:
    """Every rule's findings, rule after rule, each rule's file after file. `fan` decides where the
    rules that take some of the files read them (fan.py): the findings are the same, in the same order."""
    files = added_files(change)  # built once for every rule, before any share of it is read
    shared = [rule for rule in rules if not rule.one_pass]
    read = partial(_findings_of, change, manifest, shared, files)
    per_file = fan(read, files, [_weight(f) for f in files])
    found: list[Violation] = []
    at = 0  # the next of the shared rules
    for rule in rules:
        if rule.one_pass:
            found.extend(rule.scan(change, manifest, files, files))
        else:
            found.extend(v for each in per_file for v in each[at])
            at += 1
    by_path = {f.path: f for f in files}
    return [_with_basis(v, by_path) for v in found]


def _findings_of(
    change: Change,
    manifest: Manifest,
    rules: Sequence[ContentRule],
    added: Sequence[AddedFile],
    files: Sequence[AddedFile],
) -> list[tuple[list[Violation], ...]]:
    """Each file's findings of each rule, read over some (`files`) of the added files (`added`)."""
    out: list[tuple[list[Violation], ...]] = [tuple([] for _ in rules) for _ in files]
    index = {f.path: k for k, f in enumerate(files)}
    for at, rule in enumerate(rules):
        for found in rule.scan(change, manifest, files, added):
            out[index[found.path or ""]][at].append(found)
    return out


def _weight(file: AddedFile) -> int:
    """What reading a file costs, near enough: its added text, and its new text where it has one."""
    return sum(len(f.text) for f in file.fragments) + len(file.head or "")


def _with_basis(found: Violation, files: Mapping[str, AddedFile]) -> Violation:
    """A finding on an added line is about that line's content (a rule with a finer notion, such
    as a secret's digest, sets its own)."""
    file = files.get(found.path or "")
    text = None if found.basis or found.line is None or file is None else file.added_line(found.line)
    return found if text is None else replace(found, basis=content_basis(text))

"""The report: the change's important facts, whether the description mentions each, and the
description's claims the receipt contradicts. Informational unless `report.require` names kinds."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from bot.engine.diff import Diff
from bot.engine.manifest import Manifest
from bot.engine.report.claims import DENIES, Claim, contradicted
from bot.engine.report.description import Description
from bot.engine.report.facts import WORD_PATTERNS, Observed, ReceiptFacts, observe
from bot.engine.report.kinds import FactKind

_MAX_NAMES = 200  # paths, file names and names of one fact looked for in the description


@dataclass(frozen=True, slots=True)
class Fact:
    observed: Observed
    mentioned: bool
    evidence: str | None  # what in the description mentions it

    @property
    def kind(self) -> FactKind:
        return self.observed.kind

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "importance": self.observed.importance.label,
            "summary": self.observed.summary,
            "paths": list(self.observed.paths),
            "mentioned": self.mentioned,
            "evidence": self.evidence,
        }


@dataclass(frozen=True, slots=True)
class Report:
    facts: tuple[Fact, ...]
    claims: tuple[Claim, ...]
    description: Description | None
    required: tuple[str, ...]

    @property
    def unsaid(self) -> tuple[Fact, ...]:
        """The facts the description does not mention, most important first."""
        return tuple(f for f in self.facts if not f.mentioned)

    @property
    def missing_required(self) -> tuple[Fact, ...]:
        return tuple(f for f in self.unsaid if f.kind.value in self.required)

    def as_json(self) -> dict[str, Any]:
        described = self.description
        return {
            "description": None
            if described is None
            else {
                "source": described.source.value,
                "digest": "sha256:"
                + hashlib.sha256(described.text.encode("utf-8", "surrogatepass")).hexdigest(),
            },
            "facts": [f.as_json() for f in self.facts],
            "claims": [
                {"kind": c.kind.value, "quote": c.quote, "contradiction": c.contradiction}
                for c in self.claims
            ],
            "required": list(self.required),
        }


def _named(text: str, names: tuple[str, ...]) -> str | None:
    for name in names:
        if re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w/-])", text, re.IGNORECASE):
            return name
    return None


def _evidence(observed: Observed, text: str) -> str | None:
    """The path, file name, name or word by which `text` mentions the fact, or None."""
    basenames = tuple(dict.fromkeys(p.rpartition("/")[2] for p in observed.paths))
    # A change of thousands of files is named by a few of them if at all: the first ones are enough.
    found = _named(
        text, (*observed.paths[:_MAX_NAMES], *basenames[:_MAX_NAMES], *observed.names[:_MAX_NAMES])
    )
    if found is not None:
        return found
    word = WORD_PATTERNS[observed.kind]().search(text)
    return word.group(0) if word is not None else None


def build_report(
    facts: ReceiptFacts,
    diff: Diff,
    logical_lines: int,
    description: Description | None,
    manifest: Manifest,
) -> Report:
    """The report of a change; `manifest` gives `report.require` and the store its globs compile in."""
    required = manifest.report.require
    observed = observe(facts, manifest.patterns)
    text = description.visible if description is not None else ""
    claims = contradicted(text, observed, diff, logical_lines)
    denied = {k for c in claims for k in DENIES[c.kind]}
    out = []
    for o in observed:
        evidence = None if o.kind in denied else _evidence(o, text)
        out.append(Fact(o, evidence is not None, evidence))
    return Report(tuple(out), tuple(claims), description, required)

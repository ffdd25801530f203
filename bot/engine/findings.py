"""Violations: what a rule found, where, and what to do about it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from enum import IntEnum, StrEnum

from bot.engine.gitpath import display_path


class RuleId(StrEnum):
    OUTSIDE_ALLOWLIST = "outside-allowlist"
    PROTECTED_PATH = "protected-path"
    MANIFEST_CHANGE = "manifest-change"
    SECRET = "secret"
    DANGEROUS = "dangerous"
    BANNED_PATTERN = "banned-pattern"
    SUPPRESSION = "suppression"
    INVISIBLE_UNICODE = "invisible-unicode"
    MODE_CHANGE = "mode-change"
    SYMLINK = "symlink"
    BINARY = "binary"
    SUBMODULE = "submodule"
    SIDE_EFFECT = "side-effect"
    MERGE = "merge"  # what merging would change cannot be known (a conflict)
    BUDGET = "budget"
    REFORMAT = "reformat"


class Severity(IntEnum):
    """Higher is more severe; annotations and summaries list the most severe first."""

    NOTICE = 0
    WARNING = 1
    FAILURE = 2
    CRITICAL = 3


_CRITICAL = frozenset(
    {RuleId.SECRET, RuleId.MANIFEST_CHANGE, RuleId.INVISIBLE_UNICODE, RuleId.SIDE_EFFECT, RuleId.SYMLINK}
)


def content_basis(text: str) -> str:
    """What a finding on a line is about, whatever its indentation or spacing: the line's words."""
    return " ".join(text.split())


def hashed_basis(secret: str) -> str:
    """A secret's basis: its digest, so that nothing derived from it can give it back."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class Violation:
    """One finding. `id` names the exact sub-rule (a group, a manifest entry, a detector).
    `path` is None for a finding about the change as a whole (a budget), not one file.
    `basis` is the content it is about (content_basis of its line, a secret's hashed_basis; empty
    for a finding about a path or the change), from which `waiver_id` is derived."""

    rule: RuleId
    path: str | None
    line: int | None
    message: str
    id: str
    basis: str = ""

    @property
    def waiver_id(self) -> str:
        """The finding's stable name for a waiver: rule, sub-rule, path and content, never its line,
        so that it survives unrelated edits and rebases."""
        parts = (self.rule.value, self.id, self.path or "", self.basis)
        text = "\0".join(parts).encode("utf-8", "surrogateescape")
        return f"{self.rule.value}:{hashlib.sha256(text).hexdigest()[:16]}"

    @property
    def severity(self) -> Severity:
        return Severity.CRITICAL if self.rule in _CRITICAL else Severity.FAILURE

    def sort_key(self) -> tuple[str, int, str, str, str]:
        return (self.path or "", self.line or 0, self.rule.value, self.id, self.message)

    def as_json(self, *, with_id: bool = True) -> dict[str, object]:
        out: dict[str, object] = {
            "rule": self.rule.value,
            "path": self.path,
            "line": self.line,
            "message": self.message,
        }
        if with_id:
            out["id"] = self.id
        out["waiver_id"] = self.waiver_id
        return out


def sort_violations(found: list[Violation]) -> tuple[Violation, ...]:
    """The findings as a receipt lists them: each path in the form a receipt shows (see
    gitpath.display_path), no duplicates, in a fixed order."""
    shown = {replace(v, path=None if v.path is None else display_path(v.path)) for v in found}
    return tuple(sorted(shown, key=Violation.sort_key))

"""What the `references` check found: broken call sites, and the check entry inside `semantic`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.engine.references import REFERENCES_CHECK
from bot.engine.semantic import CheckConclusion, CheckResult

MAX_LISTED = 200  # findings kept in the receipt; the rest are counted


class ReferenceKind(StrEnum):
    REMOVED = "removed"  # the name (or module) no longer exists
    SIGNATURE = "signature"  # the call no longer fits the definition


@dataclass(frozen=True, slots=True)
class BrokenReference:
    """A call site in the head tree that worked against the merge base's definitions and no
    longer does: `path`:`line` is the caller, `target` the definition, `definition` where it was."""

    path: str
    line: int
    kind: ReferenceKind
    target: str
    definition: str
    message: str

    @property
    def id(self) -> str:
        return f"references:{self.kind}:{self.target}"

    def sort_key(self) -> tuple[str, int, str, str]:
        return (self.path, self.line, self.id, self.message)

    def as_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "kind": self.kind.value,
            "target": self.target,
            "definition": self.definition,
            "message": self.message,
            "id": self.id,
        }


@dataclass(frozen=True, slots=True)
class ReferencesResult:
    findings: tuple[BrokenReference, ...] = ()
    changed_modules: int = 0
    readers: int = 0
    notes: tuple[str, ...] = ()  # what was not followed
    incomplete: str | None = None  # why the tree could not be followed whole
    left_out: int = 0  # findings past MAX_LISTED
    skipped: str | None = None  # why the check did not run at all

    @property
    def conclusion(self) -> CheckConclusion:
        if self.findings:
            return CheckConclusion.FAILURE
        if self.skipped is not None:
            return CheckConclusion.SKIPPED
        return CheckConclusion.NEUTRAL if self.incomplete is not None else CheckConclusion.SUCCESS

    @property
    def summary(self) -> str:
        """One line: what the check concluded."""
        count = len(self.findings) + self.left_out
        if count:
            return f"{count} broken call site(s)"
        if self.skipped is not None:
            return f"not run: {self.skipped}"
        if self.incomplete is not None:
            return f"not followed: {self.incomplete}"
        return (
            f"no broken call sites ({self.changed_modules} changed module(s), "
            f"{self.readers} module(s) that mention what changed read)"
        )

    @property
    def details(self) -> str:
        lines = [self.summary]
        lines += [f"{f.path}:{f.line}: {f.message}" for f in self.findings]
        if self.left_out:
            lines.append(f"… and {self.left_out} more not listed")
        if self.findings and self.incomplete is not None:
            lines.append(f"Not followed everywhere: {self.incomplete}")
        lines += [f"Not followed: {n}" for n in self.notes]
        return "\n".join(lines)

    @property
    def check(self) -> CheckResult:
        return CheckResult(REFERENCES_CHECK, self.conclusion, self.details)

    def as_json(self) -> dict[str, Any]:
        """The `findings` the `references` entry of `semantic.checks` carries beside its details."""
        return {"findings": [f.as_json() for f in self.findings], "left_out": self.left_out}

"""GitHub-ready annotations for a receipt, most severe first.

An annotation belongs to a file: a finding about the change as a whole (a budget) has none, and
the summary, which lists every finding, is where it is shown."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.engine.findings import Severity, Violation
from bot.engine.gitpath import display_path
from bot.engine.manifest import ManifestError
from bot.engine.receipt import Receipt
from bot.engine.references.result import BrokenReference


class Level(StrEnum):
    FAILURE = "failure"
    WARNING = "warning"
    NOTICE = "notice"


@dataclass(frozen=True, slots=True)
class Annotation:
    path: str
    start_line: int
    end_line: int
    level: Level
    title: str
    message: str
    severity: Severity

    def as_github(self) -> dict[str, object]:
        """The shape of one entry of `output.annotations` in the check-runs API."""
        return {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "annotation_level": self.level.value,
            "title": self.title[:255],
            "message": self.message[:64000],
        }


def _from_violation(v: Violation, path: str) -> Annotation:
    line = v.line or 1
    return Annotation(
        path, line, line, Level.FAILURE, f"receipt: {v.rule.value} ({v.id})", v.message, v.severity
    )


def _from_reference(f: BrokenReference) -> Annotation:
    title = f"receipt: references ({f.kind.value})"
    return Annotation(f.path, f.line, f.line, Level.FAILURE, title, f.message, Severity.FAILURE)


def receipt_annotations(receipt: Receipt) -> list[Annotation]:
    found = [
        _from_violation(v, v.path)
        for v in (*receipt.scope, *receipt.locality_violations)
        if v.path is not None
    ]
    if receipt.references is not None:
        found += [_from_reference(f) for f in receipt.references.findings]
    if not receipt.locality_violations or all(
        v.rule.value != "reformat" for v in receipt.locality_violations
    ):
        for m in receipt.locality.measures:
            if m.formatting_lines and m.first_formatting_line:
                found.append(
                    Annotation(
                        display_path(m.file.path),
                        m.first_formatting_line,
                        m.first_formatting_line,
                        Level.NOTICE,
                        "receipt: formatting-only lines",
                        f"{m.formatting_lines} line(s) in this file change formatting only.",
                        Severity.NOTICE,
                    )
                )
    return sorted(found, key=lambda a: (-a.severity, a.path, a.start_line, a.title, a.message))


def manifest_error_annotations(error: ManifestError) -> list[Annotation]:
    """One failure annotation on the manifest's own line for each of its problems."""
    return [
        Annotation(
            error.file,
            issue.line,
            issue.line,
            Level.FAILURE,
            "receipt: invalid manifest",
            issue.render(error.file),
            Severity.FAILURE,
        )
        for issue in error.issues
    ]

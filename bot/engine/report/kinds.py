"""The kinds of fact a receipt reports about a change, each with its importance (README's table)."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Importance(IntEnum):
    LOW = 1
    MEDIUM = 2
    HIGH = 3

    @property
    def label(self) -> str:
        return self.name.lower()


class FactKind(StrEnum):
    PROTECTED_PATH = "protected-path"
    TESTS_FAILED = "tests-failed"
    BROKEN_REFERENCES = "broken-references"
    TESTS_DELETED = "tests-deleted"
    TESTS_EDITED = "tests-edited"
    DEPENDENCIES = "dependencies"
    LOCKFILES = "lockfiles"
    CI = "ci"
    FILES_DELETED = "files-deleted"
    MODE_CHANGE = "mode-change"
    SYMLINK = "symlink"
    TESTS_NOT_RUN = "tests-not-run"
    EXCESS_ALARM = "excess-alarm"


IMPORTANCE = {
    FactKind.PROTECTED_PATH: Importance.HIGH,
    FactKind.TESTS_FAILED: Importance.HIGH,
    FactKind.BROKEN_REFERENCES: Importance.HIGH,
    FactKind.TESTS_DELETED: Importance.HIGH,
    FactKind.TESTS_EDITED: Importance.HIGH,
    FactKind.DEPENDENCIES: Importance.HIGH,
    FactKind.CI: Importance.HIGH,
    FactKind.LOCKFILES: Importance.MEDIUM,
    FactKind.FILES_DELETED: Importance.MEDIUM,
    FactKind.MODE_CHANGE: Importance.MEDIUM,
    FactKind.SYMLINK: Importance.MEDIUM,
    FactKind.TESTS_NOT_RUN: Importance.MEDIUM,
    FactKind.EXCESS_ALARM: Importance.LOW,
}

FACT_KINDS: tuple[str, ...] = tuple(k.value for k in FactKind)

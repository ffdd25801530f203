"""The policy: `.github/receipt.yml` as the typed Manifest the rules read, and the built-in one.

Its schema and validation are `manifest_spec.py`, loaded only to read a manifest."""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from bot.engine.days import Day
from bot.engine.errors import ReceiptError
from bot.engine.groups import GROUP_NAMES, MANIFEST_PATH
from bot.engine.patterns import PatternStore

if TYPE_CHECKING:
    from bot.engine.schema import ConfigIssue

MAX_MANIFEST_BYTES = 256 * 1024
MAX_TEST_MINUTES = 7 * 24 * 60  # a week: past it, no machine's clock arithmetic (or CI job) goes
SWITCHABLE_RULES = ("secrets", "dangerous", "suppressions")
EXCLUDABLE_RULES = (*SWITCHABLE_RULES, "invisible_unicode")


class ManifestSource(StrEnum):
    BASE = "base"
    FILE = "file"
    DEFAULT = "default"


class ChangeKind(StrEnum):
    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"


class Reformat(StrEnum):
    FORBID = "forbid"
    ALLOW = "allow"


class Mode(StrEnum):
    ENFORCE = "enforce"
    OBSERVE = "observe"  # every conclusion at most neutral; what would have failed is shown


class AlarmConclusion(StrEnum):
    NEUTRAL = "neutral"
    ACTION_REQUIRED = "action_required"
    FAILURE = "failure"


class ManifestError(ReceiptError, ValueError):
    """Every problem found in one manifest, each with its position."""

    title = "invalid configuration"

    def __init__(self, file: str, issues: list[ConfigIssue]) -> None:
        self.file = file
        self.issues = sorted(issues, key=lambda i: (i.line, i.column, i.key_path, i.problem))
        super().__init__("\n".join(i.render(file) for i in self.issues))

    @property
    def too_expensive(self) -> bool:
        """A limit on size or cost was reached (bounds.py): the manifest may be valid, but too costly."""
        return any(i.limit for i in self.issues)


@dataclass(frozen=True, slots=True)
class AppliesTo:
    authors: tuple[str, ...] | None = None
    labels: tuple[str, ...] | None = None
    branches: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class ProtectRule:
    paths: tuple[str, ...]
    allow: frozenset[ChangeKind] = frozenset()
    index: int = 0

    @property
    def label(self) -> str:
        return f"paths.protect[{self.index}]"


@dataclass(frozen=True, slots=True)
class PathsPolicy:
    allow: tuple[str, ...] | None = None
    protect: tuple[ProtectRule, ...] = ()
    defaults: tuple[str, ...] = GROUP_NAMES
    allow_binary: bool = False
    allow_symlinks: bool = False
    allow_mode_changes: bool = False
    allow_submodules: bool = False


@dataclass(frozen=True, slots=True)
class PathBudget:
    paths: tuple[str, ...]
    files: int | None = None
    hunks: int | None = None
    logical_lines: int | None = None
    index: int = 0


@dataclass(frozen=True, slots=True)
class Budgets:
    files: int | None = None
    hunks: int | None = None
    logical_lines: int | None = None
    per_path: tuple[PathBudget, ...] = ()


@dataclass(frozen=True, slots=True)
class BannedPattern:
    id: str
    pattern: str
    paths: tuple[str, ...] | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class BannedImport:
    """`module` as Python reads it (NFKC-normalized), `node:` dropped: `child_process` is both."""

    module: str
    paths: tuple[str, ...] | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class ContentPolicy:
    secrets: bool = True
    dangerous: bool = True
    suppressions: bool = True
    banned: tuple[BannedPattern, ...] = ()
    banned_imports: tuple[BannedImport, ...] = ()
    exclude: tuple[str, ...] = ()  # paths no content rule reads (a verified secret still counts)
    # each rule's own excluded paths, by the rule's key under `content` (secrets, dangerous, ...)
    rule_exclude: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def excluded_for(self, key: str) -> tuple[str, ...]:
        return next((paths for name, paths in self.rule_exclude if name == key), ())


@dataclass(frozen=True, slots=True)
class TestsPolicy:
    command: str | None = None
    checks: tuple[str, ...] = ()
    timeout_minutes: float = 60.0
    ignore_side_effects: tuple[str, ...] = ()
    report: str | None = None  # the JUnit XML report the command writes, relative to the tree's root
    min_executed: int | None = None
    compare_base: bool = False
    environment: tuple[str, ...] = ()  # variables passed through besides the fixed list
    dispatch: str | None = None  # a workflow file the App starts with workflow_dispatch for a head
    references: bool | None = None  # None: on where the repository has Python


@dataclass(frozen=True, slots=True)
class ReportPolicy:
    require: tuple[str, ...] = ()  # fact kinds the description must mention


@dataclass(frozen=True, slots=True)
class ExcessPolicy:
    max_distance: float | None = None
    max_excess: float | None = None
    max_added_complexity: int | None = None
    on_alarm: AlarmConclusion = AlarmConclusion.NEUTRAL


@dataclass(frozen=True, slots=True)
class Waiver:
    """`waivers[index]`: accepts the findings whose waiver_id is `id` until `expires` (inclusive)."""

    id: str
    reason: str
    expires: Day
    index: int = 0

    @property
    def label(self) -> str:
        return f"waivers[{self.index}]"


@dataclass(frozen=True, slots=True)
class Manifest:
    version: int = 1
    applies_to: AppliesTo | None = None
    paths: PathsPolicy = field(default_factory=PathsPolicy)
    budgets: Budgets = field(default_factory=Budgets)
    reformat: Reformat = Reformat.ALLOW
    content: ContentPolicy = field(default_factory=ContentPolicy)
    tests: TestsPolicy = field(default_factory=TestsPolicy)
    excess: ExcessPolicy = field(default_factory=ExcessPolicy)
    report: ReportPolicy = field(default_factory=ReportPolicy)
    waivers: tuple[Waiver, ...] = ()
    mode: Mode = Mode.ENFORCE
    # Its globs and regexes, compiled once when it was read; rules compile the others they need here.
    patterns: PatternStore = field(default_factory=PatternStore, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class LoadedManifest:
    """A manifest with where it came from, as the receipt reports it."""

    manifest: Manifest
    path: str
    source: ManifestSource
    digest: str


def parse_manifest(text: str | bytes, file: str = MANIFEST_PATH) -> Manifest:
    """Validate manifest text; ManifestError lists every problem with file:line:col."""
    from bot.engine.manifest_spec import validated

    raw, patterns = validated(text, file)
    return replace(_build(raw), patterns=patterns)


def json_schema() -> dict[str, Any]:
    """The v1 manifest as JSON Schema (draft 2020-12), for editors."""
    from bot.engine.manifest_spec import json_schema as spec_schema

    return spec_schema()


def _tuple(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


def _build(raw: dict[str, Any]) -> Manifest:
    applies = raw.get("applies_to")
    paths = raw.get("paths", {})
    budgets = raw.get("budgets", {})
    content = raw.get("content", {})
    tests = raw.get("tests", {})
    excess = raw.get("excess", {})
    defaults = paths.get("defaults", True)
    return Manifest(
        version=raw["version"],
        applies_to=None
        if applies is None
        else AppliesTo(
            authors=_tuple(applies.get("authors")),
            labels=_tuple(applies.get("labels")),
            branches=_tuple(applies.get("branches")),
        ),
        paths=PathsPolicy(
            allow=_tuple(paths.get("allow")),
            protect=tuple(
                ProtectRule(paths=(p,), index=i)
                if isinstance(p, str)
                else ProtectRule(
                    paths=tuple(p["paths"]),
                    allow=frozenset(ChangeKind(k) for k in p.get("allow", [])),
                    index=i,
                )
                for i, p in enumerate(paths.get("protect", []))
            ),
            defaults=GROUP_NAMES if defaults is True else () if defaults is False else tuple(defaults),
            allow_binary=paths.get("allow_binary", False),
            allow_symlinks=paths.get("allow_symlinks", False),
            allow_mode_changes=paths.get("allow_mode_changes", False),
            allow_submodules=paths.get("allow_submodules", False),
        ),
        budgets=Budgets(
            files=budgets.get("files"),
            hunks=budgets.get("hunks"),
            logical_lines=budgets.get("logical_lines"),
            per_path=tuple(
                PathBudget(
                    paths=tuple(b["paths"]),
                    files=b.get("files"),
                    hunks=b.get("hunks"),
                    logical_lines=b.get("logical_lines"),
                    index=i,
                )
                for i, b in enumerate(budgets.get("per_path", []))
            ),
        ),
        reformat=Reformat(raw.get("locality", {}).get("reformat", Reformat.ALLOW)),
        content=ContentPolicy(
            secrets=content.get("secrets", True) is not False,
            dangerous=content.get("dangerous", True) is not False,
            suppressions=content.get("suppressions", True) is not False,
            exclude=tuple(content.get("exclude", [])),
            rule_exclude=tuple(
                (key, tuple(value["exclude"]))
                for key in EXCLUDABLE_RULES
                if isinstance(value := content.get(key), dict) and value.get("exclude")
            ),
            banned=tuple(
                BannedPattern(
                    id=b["id"],
                    pattern=b["pattern"],
                    paths=_tuple(b.get("paths")),
                    message=b.get("message"),
                )
                for b in content.get("banned", [])
            ),
            banned_imports=tuple(
                BannedImport(
                    module=unicodedata.normalize("NFKC", b["module"]).removeprefix("node:"),
                    paths=_tuple(b.get("paths")),
                    message=b.get("message"),
                )
                for b in content.get("banned_imports", [])
            ),
        ),
        tests=TestsPolicy(
            command=tests.get("command"),
            checks=tuple(tests.get("checks", [])),
            timeout_minutes=tests.get("timeout_minutes", 60.0),
            ignore_side_effects=tuple(tests.get("ignore_side_effects", [])),
            report=tests.get("report"),
            min_executed=tests.get("min_executed"),
            compare_base=tests.get("compare_base", False),
            environment=tuple(tests.get("environment", [])),
            dispatch=tests.get("dispatch"),
            references=tests.get("references"),
        ),
        excess=ExcessPolicy(
            max_distance=excess.get("max_distance"),
            max_excess=excess.get("max_excess"),
            max_added_complexity=excess.get("max_added_complexity"),
            on_alarm=AlarmConclusion(excess.get("on_alarm", AlarmConclusion.NEUTRAL)),
        ),
        report=ReportPolicy(require=tuple(raw.get("report", {}).get("require", []))),
        mode=Mode(raw.get("mode", Mode.ENFORCE)),
        waivers=tuple(
            Waiver(id=w["id"], reason=w["reason"], expires=w["expires"], index=i)
            for i, w in enumerate(raw.get("waivers", []))
        ),
    )


DEFAULT_MANIFEST_TEXT = """\
# receipt's built-in policy, used when the base commit has no .github/receipt.yml.
version: 1
paths:
  defaults: true
"""


def digest_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def load_manifest(text: bytes | None, path: str, source: ManifestSource) -> LoadedManifest:
    """The manifest the receipt will judge by; `text=None` means none exists: the default policy."""
    if text is None:
        # The fields' defaults are what DEFAULT_MANIFEST_TEXT says (a test parses it and compares):
        # a repository without a policy file never loads YAML and the schema.
        data = DEFAULT_MANIFEST_TEXT.encode("utf-8")
        return LoadedManifest(Manifest(), path, ManifestSource.DEFAULT, digest_bytes(data))
    return LoadedManifest(parse_manifest(text, path), path, source, digest_bytes(text))

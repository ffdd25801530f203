"""The policy: `.github/receipt.yml`, its v1 schema, and the typed Manifest the rules read."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import yaml

from bot.engine.days import Day
from bot.engine.errors import ReceiptError
from bot.engine.globs import GlobError
from bot.engine.groups import GROUP_NAMES, MANIFEST_PATH
from bot.engine.patterns import TOO_EXPENSIVE, OverLimit, PatternStore, hunk_form
from bot.engine.references import REFERENCES_CHECK
from bot.engine.regex import PatternTooLarge, RegexError, problem_with_hint
from bot.engine.report.kinds import FACT_KINDS
from bot.engine.schema import (
    Boolean,
    Choice,
    ConfigIssue,
    Date,
    Either,
    Field,
    Integer,
    Invalid,
    ListOf,
    Mapping_,
    Number,
    String,
    Walk,
    YamlSyntaxError,
    compose,
)

MAX_MANIFEST_BYTES = 256 * 1024
MAX_TEST_MINUTES = 7 * 24 * 60  # a week: past it, no machine's clock arithmetic (or CI job) goes


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
class ContentPolicy:
    secrets: bool = True
    dangerous: bool = True
    suppressions: bool = True
    banned: tuple[BannedPattern, ...] = ()
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


def _glob_problem(pattern: str, walk: Walk) -> str | None:
    try:
        walk.patterns.add_glob(pattern)
    except GlobError as exc:
        if isinstance(exc.__cause__, PatternTooLarge):
            raise OverLimit(f"{TOO_EXPENSIVE}: {exc.problem}") from exc
        return exc.problem
    return None


def _login_problem(glob: str, walk: Walk) -> str | None:
    walk.patterns.add_login(glob)
    return None


def _budget_has_limit(value: dict[str, Any]) -> str | None:
    if not {"files", "hunks", "logical_lines"} & value.keys():
        return "a per-path budget needs at least one of files, hunks, logical_lines"
    return None


def _not_reserved(name: str, walk: Walk) -> str | None:
    if name == REFERENCES_CHECK:
        return f"{name!r} is the name of receipt's own check inside semantic; rename the check run"
    return None


def _tree_path(path: str, walk: Walk) -> str | None:
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or any(p in ("", ".", "..") for p in parts):
        return "a relative path inside the tree, '/'-separated, without '.', '..' or empty parts"
    if parts[0] == ".git":
        return "not inside .git"
    return None


def _variable_name(name: str, walk: Walk) -> str | None:
    if not name.replace("_", "a").isalnum() or not name.isascii() or name[0].isdigit():
        return "an environment variable name (letters, digits and '_', not starting with a digit)"
    return None


def _workflow_file(name: str, walk: Walk) -> str | None:
    stem, dot, suffix = name.rpartition(".")
    if (
        not dot
        or suffix not in ("yml", "yaml")
        or not stem.replace("-", "a").replace("_", "a").replace(".", "a").isalnum()
        or not name.isascii()
    ):
        return "a workflow file name in .github/workflows, such as ci.yml (letters, digits, '.', '-', '_')"
    return None


def _waiver_id(text: str, walk: Walk) -> str | None:
    rule, colon, digest = text.partition(":")
    if not colon or len(digest) != 16 or not all(c in "0123456789abcdef" for c in digest) or not rule:
        return "a finding's waiver_id, as a receipt prints it (such as secret:3f2a9c0d1b7e4a56)"
    return None


def _report_needed(value: dict[str, Any]) -> str | None:
    needs = [k for k in ("min_executed", "compare_base") if value.get(k)]
    if needs and "report" not in value:
        return f"{' and '.join(needs)} needs tests.report: the counts come from the test report"
    return None


def _re2_compiles(pattern: str, walk: Walk) -> str | None:
    """The pattern compiles alone and as the hunk-wide form content.banned also runs (banned.py)."""
    try:
        walk.patterns.add_regex(pattern, hunk_form(pattern))
    except PatternTooLarge as exc:
        raise OverLimit(f"{TOO_EXPENSIVE}: {exc.problem}") from exc
    except RegexError as exc:
        return f"{_RE2_REJECTS}: {problem_with_hint(exc)}"
    return None


_GLOB = String(refine_with=_glob_problem, description="A path pattern with gitignore semantics.")
_GLOBS = ListOf(_GLOB, unique=True)
_NAMES = ListOf(String(), min_items=1, unique=True)
_KINDS = ListOf(Choice(values=tuple(k.value for k in ChangeKind)), unique=True)
_LIMIT = Integer(minimum=0)
_RULE_EXCLUDE = ListOf(_GLOB, unique=True, description="Paths this rule does not read.")
SWITCHABLE_RULES = ("secrets", "dangerous", "suppressions")
EXCLUDABLE_RULES = (*SWITCHABLE_RULES, "invisible_unicode")


def _switchable(description: str) -> Either:
    return Either(
        expected="true, false or a mapping with exclude",
        options=(Boolean(), Mapping_(fields={"exclude": Field(_RULE_EXCLUDE)})),
        description=f"{description} true (the default), false, or {{exclude: [paths]}}: on, "
        "except in those paths.",
    )


SPEC = Mapping_(
    description="receipt policy (.github/receipt.yml), read from the base commit of a pull request.",
    fields={
        "version": Field(Choice(values=(1,), description="Schema version; must be 1."), required=True),
        "applies_to": Field(
            Mapping_(
                description="Which pull requests the policy covers; others get a skipped receipt. "
                "Omitted: every pull request. Several keys: matching any one is enough.",
                fields={
                    "authors": Field(
                        ListOf(
                            String(refine_with=_login_problem),
                            min_items=1,
                            unique=True,
                            description="Author logins; globs such as '*[bot]'.",
                        )
                    ),
                    "labels": Field(
                        ListOf(String(), min_items=1, unique=True, description="Any one of these labels.")
                    ),
                    "branches": Field(
                        ListOf(_GLOB, min_items=1, unique=True, description="Head branch name patterns.")
                    ),
                },
            )
        ),
        "paths": Field(
            Mapping_(
                description="Which paths a change may touch.",
                fields={
                    "allow": Field(
                        ListOf(
                            _GLOB,
                            unique=True,
                            description=("Only these paths may change. Omitted: anything not protected."),
                        )
                    ),
                    "protect": Field(
                        ListOf(
                            Either(
                                expected="a path pattern or a mapping with paths and allow",
                                options=(
                                    _GLOB,
                                    Mapping_(
                                        fields={
                                            "paths": Field(
                                                ListOf(_GLOB, min_items=1, unique=True), required=True
                                            ),
                                            "allow": Field(_KINDS),
                                        }
                                    ),
                                ),
                            ),
                            description="Paths no change may touch; an object form allows some kinds "
                            "of change (added, modified, deleted).",
                        )
                    ),
                    "defaults": Field(
                        Either(
                            expected="true, false or a list of group names",
                            options=(Boolean(), ListOf(Choice(values=GROUP_NAMES), unique=True)),
                            description="Built-in protected groups: true for all, or a list of: "
                            + ", ".join(GROUP_NAMES)
                            + ".",
                        )
                    ),
                    "allow_binary": Field(Boolean(description="Allow binary files to change.")),
                    "allow_symlinks": Field(
                        Boolean(
                            description="Allow symlinks to be added or "
                            "changed (never ones that leave the repository)."
                        )
                    ),
                    "allow_mode_changes": Field(Boolean(description="Allow file mode changes.")),
                    "allow_submodules": Field(Boolean(description="Allow submodule changes.")),
                },
            )
        ),
        "budgets": Field(
            Mapping_(
                description="Size limits for a change.",
                fields={
                    "files": Field(_LIMIT),
                    "hunks": Field(_LIMIT),
                    "logical_lines": Field(_LIMIT),
                    "per_path": Field(
                        ListOf(
                            Mapping_(
                                fields={
                                    "paths": Field(ListOf(_GLOB, min_items=1, unique=True), required=True),
                                    "files": Field(_LIMIT),
                                    "hunks": Field(_LIMIT),
                                    "logical_lines": Field(_LIMIT),
                                },
                                check_whole=_budget_has_limit,
                            )
                        )
                    ),
                },
            )
        ),
        "locality": Field(
            Mapping_(
                fields={
                    "reformat": Field(
                        Choice(
                            values=tuple(r.value for r in Reformat),
                            description="forbid: formatting-only churn fails locality.",
                        )
                    ),
                }
            )
        ),
        "content": Field(
            Mapping_(
                description="Rules over the text a change adds.",
                fields={
                    "exclude": Field(
                        ListOf(
                            _GLOB,
                            unique=True,
                            description="Paths no content rule reads (test vectors, fixtures, vendored "
                            "data); a checksum-verified token or private key is reported there too.",
                        )
                    ),
                    "secrets": Field(_switchable("Flag credentials and private keys.")),
                    "dangerous": Field(_switchable("Flag eval, shell=True and the like.")),
                    "suppressions": Field(_switchable("Flag new noqa, nosec, skip markers.")),
                    "invisible_unicode": Field(
                        Mapping_(
                            description="Flag bidi controls, zero-width and tag characters: always on; "
                            "only paths can be excluded.",
                            fields={"exclude": Field(_RULE_EXCLUDE)},
                        )
                    ),
                    "banned": Field(
                        ListOf(
                            Mapping_(
                                fields={
                                    "id": Field(String(max_length=64), required=True),
                                    "pattern": Field(
                                        String(
                                            refine_with=_re2_compiles,
                                            description="An RE2 regular expression.",
                                        ),
                                        required=True,
                                    ),
                                    "paths": Field(_GLOBS),
                                    "message": Field(String(max_length=500)),
                                },
                            ),
                            unique_key="id",
                        )
                    ),
                },
            )
        ),
        "tests": Field(
            Mapping_(
                description="How the semantic field is decided.",
                fields={
                    "command": Field(
                        String(description="Shell command run in a sandboxed copy of the head.")
                    ),
                    "checks": Field(
                        ListOf(
                            String(refine_with=_not_reserved),
                            unique=True,
                            description=(
                                "Check-run names the App waits for; 'workflow:NAME' matches a workflow run."
                            ),
                        )
                    ),
                    "timeout_minutes": Field(
                        Number(minimum=0, exclusive_minimum=True, maximum=MAX_TEST_MINUTES)
                    ),
                    "ignore_side_effects": Field(
                        ListOf(
                            _GLOB,
                            unique=True,
                            description="Paths the filesystem gate ignores; a directory pattern "
                            "(build/, build/**, .benchmarks) covers the directory itself too.",
                        )
                    ),
                    "report": Field(
                        String(
                            refine_with=_tree_path,
                            description="JUnit XML report the command writes, relative to the tree's "
                            "root (pytest --junitxml=PATH). With it, a pass needs the report, written "
                            "by this run, with at least one executed test and no failure or error.",
                        )
                    ),
                    "min_executed": Field(
                        Integer(minimum=1, description="Fewest executed tests the report may count.")
                    ),
                    "compare_base": Field(
                        Boolean(
                            description="Also run the base commit's tests: fewer executed tests, or a "
                            "test that ran on the base skipped now, fails."
                        )
                    ),
                    "environment": Field(
                        ListOf(
                            String(refine_with=_variable_name),
                            unique=True,
                            description="Environment variables passed to the command besides PATH, "
                            "locale and the other fixed ones.",
                        )
                    ),
                    "dispatch": Field(
                        String(
                            refine_with=_workflow_file,
                            description="A workflow file (.github/workflows/NAME.yml) the App starts "
                            "with workflow_dispatch once per head of a pull request from this "
                            "repository (never a fork's); it needs the Actions: write permission.",
                        )
                    ),
                    "references": Field(
                        Boolean(
                            description="Follow the Python call sites a change breaks (removed names, "
                            "calls that no longer fit) through the head tree; a broken one fails "
                            "semantic. Default: on where the repository has Python."
                        )
                    ),
                },
                check_whole=_report_needed,
            )
        ),
        "excess": Field(
            Mapping_(
                description="When the excess number raises an alarm.",
                fields={
                    "max_distance": Field(Number(minimum=0, maximum=1)),
                    "max_excess": Field(Number(minimum=-1, maximum=1)),
                    "max_added_complexity": Field(Integer(minimum=0)),
                    "on_alarm": Field(Choice(values=tuple(a.value for a in AlarmConclusion))),
                },
            )
        ),
        "report": Field(
            Mapping_(
                description="What the pull request's description must say. Omitted: the report is "
                "informational.",
                fields={
                    "require": Field(
                        ListOf(
                            Choice(values=FACT_KINDS),
                            unique=True,
                            description="Fact kinds the description must mention when the change has "
                            "them; one left unsaid (or denied) fails the receipt.",
                        )
                    ),
                },
            )
        ),
        "mode": Field(
            Choice(
                values=tuple(m.value for m in Mode),
                description="enforce (the default): the verdict is the check run's conclusion. observe: "
                "the conclusion is at most neutral, never failure or action_required, and the "
                "summary says what would have failed: for adopting receipt and tuning it first.",
            )
        ),
        "waivers": Field(
            ListOf(
                Mapping_(
                    fields={
                        "id": Field(
                            String(refine_with=_waiver_id, description="The finding's waiver_id."),
                            required=True,
                        ),
                        "reason": Field(
                            String(max_length=500, description="Why the finding is accepted."),
                            required=True,
                        ),
                        "expires": Field(
                            Date(description="The last day the waiver applies (UTC)."), required=True
                        ),
                    }
                ),
                unique_key="id",
                description="Findings accepted until a date, each by its waiver_id; an expired waiver "
                "no longer waives, and the summary warns of it.",
            )
        ),
    },
)


def json_schema() -> dict[str, Any]:
    """The v1 manifest as JSON Schema (draft 2020-12), for editors."""
    out = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://receipt.dev/schema/receipt-manifest-v1.json",
        "title": "receipt manifest",
    }
    out.update(SPEC.json_schema())
    return out


_RE2_REJECTS = "RE2 cannot compile this pattern"


def _child(node: yaml.Node | None, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    return next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)


def _name_banned_patterns(root: yaml.Node, issues: list[ConfigIssue]) -> list[ConfigIssue]:
    """A pattern RE2 rejects is named by its entry's id, so the maintainer finds it by that name.

    The id is read from the YAML tree, not the validated values: it must be named even when
    other parts of the manifest (or the entry itself) are invalid too."""
    banned = _child(_child(root, "content"), "banned")
    entries = banned.value if isinstance(banned, yaml.SequenceNode) else []
    ids = {f"content.banned[{i}].pattern": _child(entry, "id") for i, entry in enumerate(entries)}
    return [
        replace(
            issue,
            problem=issue.problem.replace(
                _RE2_REJECTS, f"RE2 cannot compile banned pattern {entry_id.value!r}"
            ),
        )
        if isinstance(entry_id := ids.get(issue.key_path), yaml.ScalarNode)
        else issue
        for issue in issues
    ]


def parse_manifest(text: str | bytes, file: str = MANIFEST_PATH) -> Manifest:
    """Validate manifest text; ManifestError lists every problem with file:line:col."""
    raw_bytes = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if len(raw_bytes) > MAX_MANIFEST_BYTES:
        issue = ConfigIssue(1, 1, "", f"larger than {MAX_MANIFEST_BYTES} bytes", limit=True)
        raise ManifestError(file, [issue])
    try:
        decoded = raw_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ManifestError(file, [ConfigIssue(1, 1, "", f"not UTF-8 text: {exc.reason}")]) from exc
    try:
        node = compose(decoded)
    except YamlSyntaxError as exc:
        raise ManifestError(file, [exc.issue]) from exc
    if node is None:
        raise ManifestError(file, [ConfigIssue(1, 1, "", "empty manifest; start with 'version: 1'")])
    walk = Walk()
    raw = SPEC.validate(node, "", walk)
    if walk.issues or isinstance(raw, Invalid):
        raise ManifestError(file, _name_banned_patterns(node, walk.issues))
    return replace(_build(raw), patterns=walk.patterns)


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
        data = DEFAULT_MANIFEST_TEXT.encode("utf-8")
        return LoadedManifest(
            parse_manifest(data, "<default>"), path, ManifestSource.DEFAULT, digest_bytes(data)
        )
    return LoadedManifest(parse_manifest(text, path), path, source, digest_bytes(text))

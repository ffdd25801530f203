"""The v1 manifest's schema (`SPEC`): what `.github/receipt.yml` may say, its validation with
positions, and its JSON Schema.

Loaded only to read a manifest: YAML and the schema cost a run without one (the built-in policy)
more than anything else it imports.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from typing import Any

import yaml

from bot.engine.findings import RuleId
from bot.engine.globs import GlobError
from bot.engine.groups import GROUP_NAMES
from bot.engine.manifest import (
    MAX_MANIFEST_BYTES,
    MAX_TEST_MINUTES,
    AlarmConclusion,
    ChangeKind,
    ManifestError,
    Mode,
    Reformat,
)
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


def variable_name(name: str, walk: Walk) -> str | None:
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


_RULES = frozenset(r.value for r in RuleId)


def _waiver_id(text: str, walk: Walk) -> str | None:
    rule, colon, digest = text.partition(":")
    if not colon or len(digest) != 16 or not all(c in "0123456789abcdef" for c in digest) or not rule:
        return "a finding's waiver_id, as a receipt prints it (such as secret:3f2a9c0d1b7e4a56)"
    if rule not in _RULES:
        rules = ", ".join(sorted(_RULES))
        return f"{rule[:40]!r} is no rule of receipt's, so this waiver could never apply (rules: {rules})"
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


# A JavaScript package and its subpath: lodash, lodash/fp, @scope/name/sub (never ./x or /x).
_PACKAGE = re.compile(r"(?:@[\w.~-]+/)?[\w~-][\w.~-]*(?:/[\w.~-]+)*", re.ASCII)


def _module_name(name: str, walk: Walk) -> str | None:
    normalized = unicodedata.normalize("NFKC", name).removeprefix("node:")
    if all(part.isidentifier() for part in normalized.split(".")):
        return None
    if _PACKAGE.fullmatch(normalized) and not {".", ".."} & set(normalized.split("/")):
        return None
    return (
        "a Python module (requests, requests.adapters) or a JavaScript package (lodash, lodash/fp, "
        "@scope/name): no spaces, no relative or absolute path"
    )


_GLOB = String(refine_with=_glob_problem, description="A path pattern with gitignore semantics.")
_GLOBS = ListOf(_GLOB, unique=True)
_NAMES = ListOf(String(), min_items=1, unique=True)
_KINDS = ListOf(Choice(values=tuple(k.value for k in ChangeKind)), unique=True)
_LIMIT = Integer(minimum=0)
_RULE_EXCLUDE = ListOf(_GLOB, unique=True, description="Paths this rule does not read.")


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
                    "banned_imports": Field(
                        ListOf(
                            Mapping_(
                                fields={
                                    "module": Field(
                                        String(
                                            max_length=200,
                                            refine_with=_module_name,
                                            description="A Python module or JavaScript package whose "
                                            "import is banned, with its submodules.",
                                        ),
                                        required=True,
                                    ),
                                    "paths": Field(_GLOBS),
                                    "message": Field(String(max_length=500)),
                                },
                            ),
                            unique_key="module",
                            description="Modules added code may not import: Python import statements, "
                            "__import__ and importlib.import_module; JavaScript import, import() and "
                            "require().",
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
                            String(refine_with=variable_name),
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


def validated(text: str | bytes, file: str) -> tuple[dict[str, Any], PatternStore]:
    """The manifest's values as the schema read them, and the patterns they compiled; ManifestError
    lists every problem with file:line:col."""
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
    return raw, walk.patterns

from __future__ import annotations

import json

import pytest

from bot.engine.groups import GROUP_NAMES
from bot.engine.manifest import (
    DEFAULT_MANIFEST_TEXT,
    MAX_MANIFEST_BYTES,
    AlarmConclusion,
    ChangeKind,
    Manifest,
    ManifestError,
    ManifestSource,
    Reformat,
    digest_bytes,
    json_schema,
    load_manifest,
    parse_manifest,
)
from bot.engine.patterns import PatternStore

FULL = r"""version: 1
applies_to: {authors: ["*[bot]"], labels: [agent], branches: ["codex/**", "copilot/**"]}
paths:
  allow: ["src/**"]
  protect: [".env*", {paths: ["tests/**"], allow: [added]}]
  defaults: true
  allow_binary: false
  allow_symlinks: true
  allow_mode_changes: false
  allow_submodules: true
budgets: {files: 3, hunks: 5, logical_lines: 20, per_path: [{paths: ["src/core/**"], logical_lines: 5}]}
locality: {reformat: forbid}
content:
  secrets: true
  dangerous: false
  suppressions: true
  banned: [{id: no-requests, pattern: '^\s*import requests\b', paths: ["src/**"], message: "use http.client wrapper"}]
tests: {command: "pytest -q", checks: ["test"], timeout_minutes: 1.5, ignore_side_effects: ["build/**"]}
excess: {max_distance: 0.25, max_excess: 0.05, max_added_complexity: 4, on_alarm: action_required}
"""


def test_design_example_parses_into_typed_policy() -> None:
    m = parse_manifest(FULL)
    assert m.applies_to is not None and m.applies_to.authors == ("*[bot]",)
    assert m.paths.allow == ("src/**",)
    assert [(r.paths, r.allow, r.label) for r in m.paths.protect] == [
        ((".env*",), frozenset(), "paths.protect[0]"),
        (("tests/**",), frozenset({ChangeKind.ADDED}), "paths.protect[1]"),
    ]
    assert m.paths.defaults == GROUP_NAMES
    assert (m.paths.allow_symlinks, m.paths.allow_submodules, m.paths.allow_binary) == (True, True, False)
    assert m.budgets.files == 3 and m.budgets.per_path[0].logical_lines == 5
    assert m.budgets.per_path[0].files is None
    assert m.reformat is Reformat.FORBID
    assert m.content.dangerous is False and m.content.banned[0].id == "no-requests"
    assert m.content.banned[0].paths == ("src/**",)
    assert m.tests.timeout_minutes == 1.5 and m.tests.checks == ("test",)
    assert m.excess.max_added_complexity == 4
    assert m.excess.on_alarm is AlarmConclusion.ACTION_REQUIRED


def test_minimal_manifest_takes_safe_defaults() -> None:
    m = parse_manifest("version: 1\n")
    assert m == Manifest()
    assert m.applies_to is None and m.paths.allow is None
    assert m.paths.defaults == GROUP_NAMES and not m.paths.allow_binary
    assert m.reformat is Reformat.ALLOW and m.content.secrets
    assert m.tests.command is None and m.tests.timeout_minutes == 60.0
    assert m.excess.max_distance is None and m.excess.on_alarm is AlarmConclusion.NEUTRAL


@pytest.mark.parametrize(
    ("defaults", "expected"),
    [("false", ()), ("[lockfiles, ci]", ("lockfiles", "ci")), ("[]", ())],
)
def test_defaults_can_be_off_or_a_list(defaults: str, expected: tuple[str, ...]) -> None:
    assert parse_manifest(f"version: 1\npaths: {{defaults: {defaults}}}\n").paths.defaults == expected


def _problems(text: str | bytes) -> list[str]:
    with pytest.raises(ManifestError) as err:
        parse_manifest(text, "m.yml")
    assert str(err.value) == "\n".join(i.render("m.yml") for i in err.value.issues)
    return str(err.value).splitlines()


def test_every_problem_is_reported_at_once_with_position() -> None:
    bad = r"""version: 2
paths:
  alow: [x]
  protect: ["", {paths: [a], allow: [renamed]}, 3]
  defaults: [lockfile]
budgets: {files: -1, per_path: [{paths: [a]}]}
content:
  banned: [{id: x, pattern: '(a)\1'}, {id: y}]
tests: {timeout_minutes: yes, checks: [a, a]}
excess: {max_distance: 2, max_excess: .nan}
extra: 1
"""
    assert _problems(bad) == [
        "m.yml:1:10: version: expected one of 1, got 2",
        "m.yml:3:3: paths.alow: unknown key; expected one of: allow, protect, defaults, allow_binary, "
        "allow_symlinks, allow_mode_changes, allow_submodules",
        "m.yml:4:13: paths.protect[0]: must not be empty",
        "m.yml:4:38: paths.protect[1].allow[0]: expected one of added, modified, deleted, got 'renamed'",
        "m.yml:4:49: paths.protect[2]: expected a path pattern or a mapping with paths and allow, "
        "got an integer",
        "m.yml:5:14: paths.defaults[0]: expected one of lockfiles, dependency-manifests, ci, codeowners, "
        "agent-instructions, test-harness, git-config, test-command, got 'lockfile'",
        "m.yml:6:18: budgets.files: must be at least 0, got -1",
        "m.yml:6:33: budgets.per_path[0]: a per-path budget needs at least one of files, hunks, "
        "logical_lines",
        "m.yml:8:29: content.banned[0].pattern: RE2 cannot compile banned pattern 'x': invalid "
        "escape sequence: \\1 (RE2 has no backreferences or lookaround; rewrite without them)",
        "m.yml:8:39: content.banned[1]: missing required key 'pattern'",
        "m.yml:9:26: tests.timeout_minutes: expected a number, got a boolean",
        "m.yml:9:43: tests.checks[1]: repeats entry 0 ('a')",
        "m.yml:10:24: excess.max_distance: must be at most 1, got 2",
        "m.yml:10:39: excess.max_excess: must be a finite number, got nan",
        "m.yml:11:1: extra: unknown key; expected one of: version, applies_to, paths, budgets, locality, "
        "content, tests, excess, report, mode, waivers",
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "m.yml:1:1: empty manifest; start with 'version: 1'"),
        ("# only a comment\n", "m.yml:1:1: empty manifest; start with 'version: 1'"),
        (
            "a: [",
            "m.yml:1:5: YAML syntax: while parsing a flow node expected the node content, but "
            "found '<stream end>'",
        ),
        ("- 1", "m.yml:1:1: expected a mapping, got a list"),
        ("version: 1\nversion: 1", "m.yml:2:1: version: duplicate key"),
        (
            "version: 1\n---\nx: 1",
            "m.yml:2:1: YAML syntax: expected a single document in the stream but found another document",
        ),
        (
            'version: 1\nx: "\x08"',
            "m.yml:2:5: character U+0008 is not allowed in YAML: special characters are not allowed",
        ),
        (
            "version: !!python/object:os.system 1",
            "m.yml:1:10: version: expected one of 1, got a value "
            "tagged tag:yaml.org,2002:python/object:os.system",
        ),
        ("version: 1\n1: x", "m.yml:2:1: keys must be strings, got an integer"),
        ("version: 1\n? [a]\n: x", "m.yml:2:3: keys must be strings, got a list"),
        ("version: 1\npaths: {allow: x}", "m.yml:2:16: paths.allow: expected a list, got a string"),
        ("version: 1\npaths: []", "m.yml:2:8: paths: expected a mapping, got a list"),
        (
            "version: 1\npaths: {defaults: yes please}",
            "m.yml:2:19: paths.defaults: expected true, false or a list of group names, got a string",
        ),
        (
            "version: 1\npaths: {allow_binary: 1}",
            "m.yml:2:23: paths.allow_binary: expected true or false, got an integer",
        ),
        ("version: 1\napplies_to: {labels: []}", "m.yml:2:22: applies_to.labels: needs at least 1 entries"),
        (
            "version: 1\ntests: {timeout_minutes: 0}",
            "m.yml:2:26: tests.timeout_minutes: must be greater than 0, got 0",
        ),
        (
            "version: 1\nexcess: {max_distance: -0.5}",
            "m.yml:2:24: excess.max_distance: must be at least 0, got -0.5",
        ),
        (
            "version: 1\nexcess: {max_distance: 2020-01-01}",
            "m.yml:2:24: excess.max_distance: expected a number, got a date",
        ),
        ("version: 1\nbudgets: {files: 1.5}", "m.yml:2:18: budgets.files: expected an integer, got a number"),
        (
            "version: 1\ntests: {command: '" + "x" * 5000 + "'}",
            "m.yml:2:18: tests.command: longer than 4096 characters",
        ),
        (
            "version: 1\npaths: {allow: ['#x']}",
            "m.yml:2:17: paths.allow[0]: starts with '#', which gitignore reads as a comment; write '\\#'",
        ),
        ("version: 1\npaths: {allow: ['/']}", "m.yml:2:17: paths.allow[0]: matches nothing"),
        (
            "version: 1\ncontent: {banned: [{id: a, pattern: x}, {id: a, pattern: y}]}",
            "m.yml:2:41: content.banned[1].id: repeats entry 0 ('a')",
        ),
        (
            "version: 1\nlocality: {reformat: sometimes}",
            "m.yml:2:22: locality.reformat: expected one of forbid, allow, got 'sometimes'",
        ),
        (
            "version: 1\nexcess: {max_distance: !!int '0x'}",
            "m.yml:2:24: excess.max_distance: unreadable value: '0x' is not an integer",
        ),
    ],
)
def test_single_problems(text: str, problem: str) -> None:
    assert _problems(text) == [problem]


def test_bad_encoding_and_size() -> None:
    assert _problems(b"version: 1\n\xff\n") == ["m.yml:1:1: not UTF-8 text: invalid start byte"]
    assert _problems(b"#" * (MAX_MANIFEST_BYTES + 1)) == [
        f"m.yml:1:1: larger than {MAX_MANIFEST_BYTES} bytes"
    ]


def test_aliases_do_not_multiply_work_and_huge_manifests_stop_at_the_value_limit() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for n in "bcdefghij":
        prev = chr(ord(n) - 1)
        bomb += f"{n}: &{n} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
    bomb += "version: 1\npaths: {allow: *j}\n"
    problems = _problems(bomb)
    assert len(problems) == 9 + 1 + 8  # nine unknown keys, the alias, its eight non-string items
    huge = "version: 1\ntests:\n  checks:\n" + "".join(f"  - p{i}\n" for i in range(21_000))
    assert _problems(huge) == ["m.yml:20000:5: tests.checks[19996]: too many values (the limit is 20000)"]


def test_load_manifest_records_source_and_digest() -> None:
    loaded = load_manifest(b"version: 1\n", ".github/receipt.yml", ManifestSource.BASE)
    assert loaded.source is ManifestSource.BASE and loaded.digest == digest_bytes(b"version: 1\n")
    default = load_manifest(None, ".github/receipt.yml", ManifestSource.BASE)
    assert default.source is ManifestSource.DEFAULT
    assert default.digest == digest_bytes(DEFAULT_MANIFEST_TEXT.encode())
    assert default.manifest == Manifest()


def test_the_default_policy_is_what_its_text_says() -> None:
    """The built-in policy is built without YAML; parsing its text must give the same manifest,
    and compile nothing into its pattern store (which equality leaves out)."""
    default = load_manifest(None, ".github/receipt.yml", ManifestSource.BASE).manifest
    parsed = parse_manifest(DEFAULT_MANIFEST_TEXT, "<default>")
    assert default == parsed and repr(default) == repr(parsed)
    assert default.patterns == parsed.patterns == PatternStore()


def test_json_schema_describes_every_key() -> None:
    schema = json_schema()
    json.dumps(schema)
    assert schema["$schema"].endswith("2020-12/schema")
    assert schema["required"] == ["version"] and schema["additionalProperties"] is False
    props = schema["properties"]
    assert set(props) == {
        "version",
        "applies_to",
        "paths",
        "budgets",
        "locality",
        "content",
        "tests",
        "excess",
        "report",
        "mode",
        "waivers",
    }
    assert props["tests"]["properties"]["references"]["type"] == "boolean"
    assert "tests-edited" in props["report"]["properties"]["require"]["items"]["enum"]
    protect = props["paths"]["properties"]["protect"]["items"]
    assert [o["type"] for o in protect["anyOf"]] == ["string", "object"]
    assert props["excess"]["properties"]["max_distance"] == {"type": "number", "minimum": 0, "maximum": 1}
    assert props["tests"]["properties"]["timeout_minutes"] == {
        "type": "number", "exclusiveMinimum": 0, "maximum": 7 * 24 * 60,
    }  # fmt: skip
    assert props["budgets"]["properties"]["files"] == {"type": "integer", "minimum": 0, "maximum": 2**53 - 1}
    assert props["paths"]["properties"]["defaults"]["anyOf"][1]["uniqueItems"] is True
    assert props["applies_to"]["properties"]["labels"]["minItems"] == 1
    assert props["version"]["enum"] == [1]
    assert "description" in props["paths"]


def test_test_evidence_keys() -> None:
    m = parse_manifest(
        "version: 1\ntests: {report: reports/junit.xml, min_executed: 10, compare_base: true,"
        " environment: [DATABASE_URL, _X1]}\n"
    )
    assert (m.tests.report, m.tests.min_executed, m.tests.compare_base) == ("reports/junit.xml", 10, True)
    assert m.tests.environment == ("DATABASE_URL", "_X1")
    assert parse_manifest("version: 1\n").tests.compare_base is False
    props = json_schema()["properties"]["tests"]["properties"]
    assert {"report", "min_executed", "compare_base", "environment", "dispatch"} <= props.keys()


def test_tests_dispatch_names_a_workflow_file() -> None:
    assert parse_manifest("version: 1\ntests: {dispatch: ci.yml}\n").tests.dispatch == "ci.yml"
    assert (
        parse_manifest("version: 1\ntests: {dispatch: my_tests.v2.yaml}\n").tests.dispatch
        == "my_tests.v2.yaml"
    )
    assert parse_manifest("version: 1\n").tests.dispatch is None


@pytest.mark.parametrize(
    ("tests", "problem"),
    [
        ("{report: /abs/junit.xml}", "tests.report: a relative path inside the tree"),
        ("{report: ../out.xml}", "tests.report: a relative path inside the tree"),
        ("{report: 'a//b.xml'}", "tests.report: a relative path inside the tree"),
        ("{report: 'a\\\\b.xml'}", "tests.report: a relative path inside the tree"),
        ("{report: .git/junit.xml}", "tests.report: not inside .git"),
        ("{min_executed: 0, report: r.xml}", "tests.min_executed: must be at least 1, got 0"),
        ("{min_executed: 3}", "tests: min_executed needs tests.report: the counts come from the test report"),
        ("{compare_base: true, min_executed: 2}", "tests: min_executed and compare_base needs tests.report"),
        ("{environment: [A-B]}", "tests.environment[0]: an environment variable name"),
        ("{environment: [1A]}", "tests.environment[0]: an environment variable name"),
        ("{environment: [É]}", "tests.environment[0]: an environment variable name"),
        ("{dispatch: ci}", "tests.dispatch: a workflow file name in .github/workflows"),
        ("{dispatch: ci.json}", "tests.dispatch: a workflow file name"),
        ("{dispatch: .github/workflows/ci.yml}", "tests.dispatch: a workflow file name"),
        ("{dispatch: '../ci.yml'}", "tests.dispatch: a workflow file name"),
        ("{dispatch: 'c i.yml'}", "tests.dispatch: a workflow file name"),
        ("{dispatch: 'é.yml'}", "tests.dispatch: a workflow file name"),
        ("{dispatch: 3}", "tests.dispatch: "),
    ],
)
def test_test_evidence_keys_are_validated(tests: str, problem: str) -> None:
    (found,) = _problems(f"version: 1\ntests: {tests}\n")
    assert problem in found

"""Every malformed or over-limit manifest is a positioned ManifestError, wherever it comes from: read
alone, or proposed by a pull request and dry-run (issue: every input bounded, classes 1 and 2)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.engine.bounds import MAX_GLOBS, MAX_PROGRAM_TOTAL, MAX_REGEXES
from bot.engine.change import FileTexts, change_from_diff
from bot.engine.errors import TooLargeToAssess
from bot.engine.evaluation import Inputs, evaluate
from bot.engine.groups import MANIFEST_PATH
from bot.engine.manifest import ManifestError, ManifestSource, load_manifest, parse_manifest
from bot.engine.receipt import Subject
from tests.texts import change_with_texts

SHA = "b" * 40


def _problems(text: str | bytes) -> list[str]:
    with pytest.raises(ManifestError) as err:
        parse_manifest(text, "m.yml")
    return [i.render("m.yml") for i in err.value.issues]


MALFORMED = [
    (
        "version: 1\npaths:\n  allow: ['[z-a]']\n",
        "m.yml:3:11: paths.allow[0]: invalid character class range: z-a",
    ),
    (
        "version: 1\npaths:\n  protect: ['src/[z-a].py']\n",
        "m.yml:3:13: paths.protect[0]: invalid character class range: z-a",
    ),
    (
        "version: 1\npaths:\n  protect: [{paths: ['[z-a]'], allow: [added]}]\n",
        "m.yml:3:22: paths.protect[0].paths[0]: invalid character class range: z-a",
    ),
    (
        "version: 1\ntests:\n  ignore_side_effects: ['[z-a]']\n",
        "m.yml:3:25: tests.ignore_side_effects[0]: invalid character class range: z-a",
    ),
    (
        "version: 1\napplies_to:\n  branches: ['[z-a]']\n",
        "m.yml:3:14: applies_to.branches[0]: invalid character class range: z-a",
    ),
    (
        "version: 1\nbudgets:\n  per_path: [{paths: ['[z-a]'], files: 1}]\n",
        "m.yml:3:23: budgets.per_path[0].paths[0]: invalid character class range: z-a",
    ),
    (
        "version: 1\ncontent:\n  banned: [{id: x, pattern: x, paths: ['[z-a]']}]\n",
        "m.yml:3:40: content.banned[0].paths[0]: invalid character class range: z-a",
    ),
    (
        "version: 1\npaths:\n  allow: ['[[:alpha:]]']\n",
        "m.yml:3:11: paths.allow[0]: missing ] (gitignore has no POSIX classes such as [:alpha:]; list the "
        "characters: [a-zA-Z])",
    ),
    (
        "version: 1\npaths:\n  allow_binary: !!bool maybe\n",
        "m.yml:3:17: paths.allow_binary: unreadable value: 'maybe' is not a boolean",
    ),
    (
        "version: 1\nbudgets:\n  files: !!int abc\n",
        "m.yml:3:10: budgets.files: unreadable value: 'abc' is not an integer",
    ),
    (
        "version: 1\nbudgets:\n  files: !!int _\n",
        "m.yml:3:10: budgets.files: unreadable value: '_' is not an integer",
    ),
    (
        "version: 1\nexcess:\n  max_distance: !!float abc\n",
        "m.yml:3:17: excess.max_distance: unreadable value: 'abc' is not a number",
    ),
    (
        "version: 1\nexcess:\n  max_distance: " + "9" * 400 + "\n",
        "m.yml:3:17: excess.max_distance: must be a finite number, got '9999999999999999999999999999999999999...'",
    ),
    (
        "version: 1\ntests:\n  timeout_minutes: " + "9" * 400 + "\n",
        "m.yml:3:20: tests.timeout_minutes: must be a finite number, got '9999999999999999999999999999999999999...'",
    ),
    (
        "version: 1\ntests:\n  timeout_minutes: 1.0e+16\n",
        "m.yml:3:20: tests.timeout_minutes: must be at most 10080, got 1e+16",
    ),
    (
        "version: 1\nbudgets:\n  files: " + "9" * 30 + "\n",
        "m.yml:3:10: budgets.files: must be at most 9007199254740991, got '999999999999999999999999999999'",
    ),
    (
        "version: " + "1" * 5000 + "\n",
        "m.yml:1:10: version: '1111111111111111111111111111111111111...' has 5,000 digits, more than any value here can",
    ),
    # Numbers in YAML 1.1's other notations: hexadecimal or binary can spell an integer too long to
    # write in decimal (Python refuses past 4,300 digits), and the rest read as values no one meant.
    (
        "version: 1\nbudgets:\n  files: 0x" + "F" * 4000 + "\n",
        "m.yml:3:10: budgets.files: '0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF...' is not a plain decimal integer: "
        "YAML 1.1 reads it as hexadecimal; write it in decimal digits",
    ),
    (
        "version: 1\nexcess:\n  max_distance: 0b" + "1" * 15000 + "\n",
        "m.yml:3:17: excess.max_distance: '0b11111111111111111111111111111111111...' is not a plain decimal "
        "integer: YAML 1.1 reads it as binary; write it in decimal digits",
    ),
    (
        "version: -0x" + "f" * 5000 + "\n",
        "m.yml:1:10: version: '-0xffffffffffffffffffffffffffffffffff...' is not a plain decimal integer: "
        "YAML 1.1 reads it as hexadecimal; write it in decimal digits",
    ),
    (
        "version: 1\ntests:\n  timeout_minutes: " + "1:" * 3000 + "1\n",
        "m.yml:3:20: tests.timeout_minutes: '1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1...' is not a plain decimal "
        "integer: YAML 1.1 reads it as base 60 (1:30 is 90); write it in decimal digits",
    ),
    (
        "version: 1\nbudgets:\n  files: 190:20:30\n",
        "m.yml:3:10: budgets.files: '190:20:30' is not a plain decimal integer: YAML 1.1 reads it as base 60 "
        "(1:30 is 90); write it in decimal digits",
    ),
    (
        "version: 1\nbudgets:\n  hunks: 010\n",
        "m.yml:3:10: budgets.hunks: '010' is not a plain decimal integer: YAML 1.1 reads it as octal (010 is 8); "
        "write it in decimal digits",
    ),
    (
        "version: 1\nbudgets:\n  hunks: !!int 1_000_\n",
        "m.yml:3:10: budgets.hunks: '1_000_' is not a plain decimal integer: YAML 1.1 reads it as a number with "
        "its '_' dropped; write it in decimal digits",
    ),
    (
        "version: 1\nexcess:\n  max_distance: 0_0.5\n",
        "m.yml:3:17: excess.max_distance: '0_0.5' is not a plain decimal number: YAML 1.1 reads it as a number "
        "with its '_' dropped; write it in decimal digits",
    ),
    (
        "version: 1\nexcess:\n  max_distance: 0:30.5\n",
        "m.yml:3:17: excess.max_distance: '0:30.5' is not a plain decimal number: YAML 1.1 reads it as base 60 "
        "(1:30 is 90); write it in decimal digits",
    ),
    (
        "version: 1\nbudgets:\n  files: -" + "1" * 700 + "\n",
        "m.yml:3:10: budgets.files: '-111111111111111111111111111111111111...' has 700 digits, more than any "
        "value here can",
    ),
    (
        "version: " + "2" * 45 + "\n",
        "m.yml:1:10: version: expected one of 1, got '2222222222222222222222222222222222222...'",
    ),
    (
        "version: 1\npaths:\n  allow: [!!binary 'AAAA']\n",
        "m.yml:3:11: paths.allow[0]: expected a string, got binary data",
    ),
    (
        "version: 1\npaths:\n  allow: [!!timestamp '2020-13-45']\n",
        "m.yml:3:11: paths.allow[0]: expected a string, got a date",
    ),
    (
        "version: 1\npaths:\n  allow: [!!python/object:os.system 'x']\n",
        "m.yml:3:11: paths.allow[0]: expected a string, got a value tagged tag:yaml.org,2002:python/object:os.system",
    ),
    (
        'version: 1\ncontent:\n  banned: [{id: x, pattern: "\\ud800"}]\n',
        "m.yml:3:29: U+D800 is a lone surrogate, not a character",
    ),
    ('version: 1\npaths:\n  allow: ["\\udfff"]\n', "m.yml:3:11: U+DFFF is a lone surrogate, not a character"),
    ('"\\ud800": 1\nversion: 1\n', "m.yml:1:1: U+D800 is a lone surrogate, not a character"),
    (
        "version: 1\npaths:\n  allow: " + "[" * 5000 + "]" * 5000 + "\n",
        "m.yml:3:40: nested deeper than 32 levels (the limit)",
    ),
    ("version: 1\nversion: 1\n", "m.yml:2:1: version: duplicate key"),
    ("version: 1\n1: x\n", "m.yml:2:1: keys must be strings, got an integer"),
    ("version: 1\n? [a]\n: x\n", "m.yml:2:3: keys must be strings, got a list"),
    (
        "version: 1\n<<: {paths: {}}\n",
        "m.yml:2:1: keys must be strings, got a value tagged tag:yaml.org,2002:merge",
    ),
    (
        "version: 1\nexcess:\n  max_distance: .nan\n",
        "m.yml:3:17: excess.max_distance: must be a finite number, got nan",
    ),
    ("version: 1\npaths:\n  allow: ['" + "?" * 4000 + "']\n", None),  # over a limit: next test
]


@pytest.mark.parametrize(("text", "problem"), [m for m in MALFORMED if m[1] is not None])
def test_a_malformed_value_is_a_positioned_manifest_error(text: str, problem: str) -> None:
    assert _problems(text) == [problem]


@pytest.mark.parametrize(
    ("text", "budget"),
    [("0", 0), ("7", 7), ("+7", 7), ("-0", 0), ("'7'", None), ("9007199254740991", 9007199254740991)],
)
def test_plain_decimal_numbers_are_read_as_written(text: str, budget: int | None) -> None:
    """The near misses: a plain decimal, signed or not, is a number; a quoted one stays a string."""
    if budget is None:
        assert _problems(f"version: 1\nbudgets: {{files: {text}}}\n") == [
            "m.yml:2:18: budgets.files: expected an integer, got a string"
        ]
        return
    manifest = parse_manifest(f"version: 1\nbudgets: {{files: {text}}}\nexcess: {{max_distance: 0.25}}\n")
    assert manifest.budgets.files == budget and manifest.excess.max_distance == 0.25


def test_a_manifest_given_as_text_with_a_lone_surrogate_is_not_utf8() -> None:
    assert _problems("version: 1\n# \ud800\n") == ["m.yml:1:1: not UTF-8 text: invalid continuation byte"]


def test_a_repeated_id_names_the_first_entry_with_it_even_when_that_entry_is_invalid() -> None:
    """It said "repeats entry 51" of entries all repeating entry 0, whose pattern did not compile."""
    problems = _problems(
        "version: 1\ncontent:\n  banned:\n    - {id: x, pattern: '(?=a)'}\n    - {id: x, pattern: b}\n"
        "    - {id: 3, pattern: c}\n    - {id: 3, pattern: d}\n"
    )
    assert problems[1:] == [
        "m.yml:5:7: content.banned[1].id: repeats entry 0 ('x')",
        "m.yml:6:12: content.banned[2].id: expected a string, got an integer",
        "m.yml:7:12: content.banned[3].id: expected a string, got an integer",
    ]
    assert _problems("version: 1\ncontent:\n  banned: [x, {id: x, pattern: a}]\n") == [
        "m.yml:3:12: content.banned[0]: expected a mapping, got a string"
    ]


def test_a_recursive_alias_is_no_infinite_walk() -> None:
    problems = _problems("version: 1\npaths:\n  allow: &a [*a]\n")
    assert problems == ["m.yml:3:10: paths.allow[0]: expected a string, got a list"]


def _limit(text: str) -> list[tuple[str, bool]]:
    with pytest.raises(ManifestError) as err:
        parse_manifest(text, "m.yml")
    assert err.value.too_expensive
    return [(i.render("m.yml"), i.limit) for i in err.value.issues]


def test_a_glob_larger_than_its_memory_is_too_expensive() -> None:
    assert _limit("version: 1\npaths:\n  allow: ['" + "?" * 4000 + "']\n") == [
        (
            "m.yml:3:11: paths.allow[0]: too expensive to evaluate: RE2 would need more than 64 KiB for "
            "it (the limit)",
            True,
        )
    ]


def test_a_regex_larger_than_its_memory_is_too_expensive() -> None:
    text = "version: 1\ncontent:\n  banned: [{id: big, pattern: '\\pL{1000}'}]\n"
    assert _limit(text) == [
        (
            "m.yml:3:31: content.banned[0].pattern: too expensive to evaluate: RE2 would need more than "
            "512 KiB for it (the limit)",
            True,
        )
    ]


def test_too_many_globs_are_reported_once_where_the_limit_is_reached() -> None:
    text = "version: 1\npaths:\n  allow:\n" + "".join(f"  - p{i}/**\n" for i in range(MAX_GLOBS + 50))
    assert _limit(text) == [
        (
            f"m.yml:{4 + MAX_GLOBS}:5: paths.allow[{MAX_GLOBS}]: too expensive to evaluate: more than 1,000 "
            "path patterns (the limit)",
            True,
        )
    ]


def test_login_globs_count_as_globs() -> None:
    text = "version: 1\napplies_to:\n  authors:\n" + "".join(f"  - bot{i}\n" for i in range(MAX_GLOBS + 1))
    assert [p for p, _ in _limit(text)] == [
        f"m.yml:{4 + MAX_GLOBS}:5: applies_to.authors[{MAX_GLOBS}]: too expensive to evaluate: more than "
        "1,000 path patterns (the limit)"
    ]


def test_too_many_regexes() -> None:
    entries = "".join(f"  - {{id: b{i}, pattern: 'x{i}'}}\n" for i in range(MAX_REGEXES + 1))
    problems = _limit("version: 1\ncontent:\n  banned:\n" + entries)
    assert [p for p, _ in problems] == [
        f"m.yml:{4 + MAX_REGEXES}:24: content.banned[{MAX_REGEXES}].pattern: too expensive to evaluate: more "
        "than 50 regular expressions (the limit)"
    ]


def test_the_compile_work_of_all_patterns_together_is_bounded() -> None:
    """Each pattern fits its own memory; together they are more compile work than one manifest gets.
    (`x\\pL{20}` is about 24,000 RE2 instructions, counted twice: alone and as the hunk-wide form.)"""
    entries = "".join(f"  - {{id: b{i}, pattern: 'x{i}\\pL{{20}}'}}\n" for i in range(25))
    problems = _limit("version: 1\ncontent:\n  banned:\n" + entries)
    assert len(problems) == 1
    assert problems[0][0].endswith(
        f"too expensive to evaluate: the manifest's patterns compile to more than {MAX_PROGRAM_TOTAL:,} "
        "RE2 instructions together (the limit)"
    )


def test_the_size_limit_is_a_limit() -> None:
    assert _limit("#" * (300 * 1024)) == [("m.yml:1:1: larger than 262144 bytes", True)]


def test_validation_compiles_each_pattern_once_into_the_manifest() -> None:
    manifest = parse_manifest(
        "version: 1\npaths: {allow: ['src/**'], protect: ['src/**']}\n"
        "content: {banned: [{id: a, pattern: '^x'}]}\napplies_to: {authors: ['*[bot]']}\n"
    )
    store = manifest.patterns
    assert set(store.globs) == {"src/**"} and store.counted_globs == 3
    assert set(store.regexes) == {"^x", "(?m)^x", "(?i).*\\[bot\\]"}
    assert store.counted_regexes == 1 and store.program_size > 0


# The dry run of a manifest a pull request proposes.

_DIFF = (
    f"diff --git a/{MANIFEST_PATH} b/{MANIFEST_PATH}\nindex 1111111..2222222 100644\n"
    f"--- a/{MANIFEST_PATH}\n+++ b/{MANIFEST_PATH}\n@@ -1 +1 @@\n-version: 1\n+version: 1 # new\n"
).encode()


def _dry_run(proposed: str | bytes, base: bytes = b"version: 1\n", diff: bytes = _DIFF) -> object:
    data = proposed.encode("utf-8", "surrogatepass") if isinstance(proposed, str) else proposed
    inputs = Inputs(
        change=change_with_texts(diff, {MANIFEST_PATH: FileTexts("version: 1\n", "version: 1 # new\n")}),
        manifest=load_manifest(base, MANIFEST_PATH, ManifestSource.BASE),
        subject=Subject(SHA, SHA, SHA),
        proposed_manifest=data,
    )
    receipt = evaluate(inputs)
    assert receipt.verdict.conclusion.value == "failure"  # manifest-change, judged by the base
    return receipt.manifest.dry_run


@pytest.mark.parametrize("text", [m[0] for m in MALFORMED])
def test_a_proposed_manifest_that_is_malformed_is_an_invalid_dry_run(text: str) -> None:
    dry = _dry_run(text)
    assert dry is not None
    assert not dry.valid and dry.verdict is None and dry.errors  # type: ignore[attr-defined]
    assert all(e.startswith(f"{MANIFEST_PATH}:") for e in dry.errors)  # type: ignore[attr-defined]


def test_a_proposed_manifest_over_a_limit_is_too_expensive_to_evaluate() -> None:
    dry = _dry_run("version: 1\npaths:\n  allow:\n" + "".join(f"  - p{i}\n" for i in range(MAX_GLOBS + 1)))
    assert dry.too_expensive and not dry.valid  # type: ignore[attr-defined]


def test_a_proposed_manifest_whose_matching_work_is_over_the_limit_is_too_expensive() -> None:
    """Every pattern fits its limits, but against these paths matching them would cost too much: the
    dry run says so, and the receipt (by the base manifest) stands."""
    globs = "".join(f"  - '{'?' * 100}{i}'\n" for i in range(900))
    long_paths = b"".join(
        f"diff --git a/{'d' * 3000}{i} b/{'d' * 3000}{i}\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/{'d' * 3000}{i}\n@@ -0,0 +1 @@\n+x\n".encode()
        for i in range(40)
    )
    dry = _dry_run("version: 1\npaths:\n  allow:\n" + globs, diff=_DIFF + long_paths)
    assert dry.valid and dry.too_expensive and dry.verdict is None  # type: ignore[attr-defined]
    assert "path patterns against this change's paths would cost more than" in dry.errors[0]  # type: ignore[attr-defined]


def test_the_same_matching_limit_fails_a_base_manifest_as_too_large_to_assess() -> None:
    globs = "".join(f"  - '{'?' * 100}{i}'\n" for i in range(900))
    long_paths = b"".join(
        f"diff --git a/{'d' * 3000}{i} b/{'d' * 3000}{i}\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/{'d' * 3000}{i}\n@@ -0,0 +1 @@\n+x\n".encode()
        for i in range(40)
    )
    inputs = Inputs(
        change=change_from_diff(long_paths),
        manifest=load_manifest(
            f"version: 1\npaths:\n  allow:\n{globs}".encode(), MANIFEST_PATH, ManifestSource.BASE
        ),
        subject=Subject(SHA, SHA, SHA),
    )
    with pytest.raises(
        TooLargeToAssess, match="would cost more than 8,589,934,592 RE2 instruction-bytes"
    ) as err:
        evaluate(inputs)
    assert not err.value.observed
    observing = load_manifest(
        f"version: 1\nmode: observe\npaths:\n  allow:\n{globs}".encode(), MANIFEST_PATH, ManifestSource.BASE
    )
    with pytest.raises(TooLargeToAssess) as err:  # the policy, read, says observe: a shell makes it neutral
        evaluate(replace(inputs, manifest=observing))
    assert err.value.observed


def test_a_pattern_given_in_code_with_a_lone_surrogate_is_a_regex_error() -> None:
    """The manifest's YAML stops surrogates first; code that compiles a pattern is told too."""
    from bot.engine.globs import GlobError, compile_glob
    from bot.engine.regex import RegexError, compile_bounded

    with pytest.raises(RegexError, match="U\\+D800 is a lone surrogate, not a character"):
        compile_bounded("a\ud800", 1 << 20)
    with pytest.raises(GlobError, match="U\\+DC00 is a lone surrogate"):
        compile_glob("src/\udc00")

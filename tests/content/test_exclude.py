"""Per-path content rules: `content.exclude` and each rule's own `exclude` silence a directory, not
a rule; a verified secret is still reported there, saying that the path is excluded."""

from __future__ import annotations

import pytest

from bot.engine.findings import RuleId, Violation
from bot.engine.manifest import ManifestError, parse_manifest
from bot.engine.rules import content_violations
from tests.content.helpers import change_of, checksummed, manifest
from tests.gitrepo import GitRepo

RANDOM = "q7Zt2LmW9xK4pR8vN3bC6yF1hJ5sD0"
# one finding of each rule, in a Python file
SECRET = 'api_key = "Xk9fQ2mZpL7aB3cD8eF1gH4j"\n'
DANGEROUS = "eval(text)\n"
SUPPRESSION = "import os  # noqa: F401\n"
INVISIBLE = "x = 1  # \u202e\n"
EVERY = SECRET + DANGEROUS + SUPPRESSION + INVISIBLE
BANNED = "content:\n  banned: [{id: no-os, pattern: 'import os'}]\n"


def _found(repo: GitRepo, files: dict[str, str], policy: str) -> set[tuple[str, RuleId]]:
    change = change_of(repo, files)
    return {(v.path or "", v.rule) for v in content_violations(change, manifest(policy))}


def _violations(repo: GitRepo, files: dict[str, str], policy: str) -> list[Violation]:
    return content_violations(change_of(repo, files), manifest(policy))


ALL_RULES = {
    RuleId.SECRET,
    RuleId.DANGEROUS,
    RuleId.SUPPRESSION,
    RuleId.INVISIBLE_UNICODE,
    RuleId.BANNED_PATTERN,
}


def test_content_exclude_silences_every_rule_in_the_path_and_nowhere_else(repo: GitRepo) -> None:
    policy = BANNED.replace("content:\n", "content:\n  exclude: ['tests/vectors/**']\n")
    found = _found(repo, {"tests/vectors/a.py": EVERY, "src/a.py": EVERY}, policy)
    assert found == {("src/a.py", rule) for rule in ALL_RULES}


def test_a_negated_pattern_takes_a_file_back(repo: GitRepo) -> None:
    policy = "content:\n  exclude: ['tests/vectors/**', '!tests/vectors/keep.py']\n"
    found = _found(repo, {"tests/vectors/a.py": DANGEROUS, "tests/vectors/keep.py": DANGEROUS}, policy)
    assert found == {("tests/vectors/keep.py", RuleId.DANGEROUS)}


@pytest.mark.parametrize(
    ("key", "rule"),
    [
        ("secrets", RuleId.SECRET),
        ("dangerous", RuleId.DANGEROUS),
        ("suppressions", RuleId.SUPPRESSION),
        ("invisible_unicode", RuleId.INVISIBLE_UNICODE),
    ],
)
def test_a_rules_own_exclude_silences_that_rule_only(repo: GitRepo, key: str, rule: RuleId) -> None:
    found = _found(
        repo, {"fixtures/a.py": EVERY, "src/a.py": EVERY}, f"content:\n  {key}: {{exclude: [fixtures/]}}\n"
    )
    every = ALL_RULES - {RuleId.BANNED_PATTERN}
    assert found == {("src/a.py", r) for r in every} | {("fixtures/a.py", r) for r in every - {rule}}


def test_the_exact_spelling_decides_an_exclusion(repo: GitRepo) -> None:
    """Excluding loosens the policy, so a pattern matches as written (Fixtures/ is another path)."""
    found = _found(repo, {"Fixtures/a.py": DANGEROUS}, "content:\n  exclude: [fixtures/]\n")
    assert found == {("Fixtures/a.py", RuleId.DANGEROUS)}


@pytest.mark.parametrize(
    ("policy", "entry"),
    [
        ("content:\n  exclude: [docs/, tests/vectors/]\n", "content.exclude[1] ('tests/vectors/')"),
        ("content:\n  secrets: {exclude: ['**/t.txt']}\n", "content.secrets.exclude[0] ('**/t.txt')"),
    ],
)
def test_a_verified_token_is_reported_in_an_excluded_path_with_a_note(
    repo: GitRepo, policy: str, entry: str
) -> None:
    files = {"tests/vectors/t.txt": f"token = {checksummed('ghp', RANDOM)}\n" + SECRET}
    found = _violations(repo, files, policy)
    assert [(v.rule, v.id, v.line) for v in found] == [(RuleId.SECRET, "github-pat", 1)]
    assert (
        f"The path is excluded by {entry}, but a verified secret is reported wherever it is"
        in found[0].message
    )


def test_outside_excluded_paths_a_verified_token_has_no_note(repo: GitRepo) -> None:
    files = {"src/tokens.txt": f"token = {checksummed('ghp', RANDOM)}\n"}
    found = _violations(repo, files, "content:\n  exclude: [tests/]\n")
    assert [v.id for v in found] == ["github-pat"] and "excluded" not in found[0].message


def test_switching_a_rule_off_still_works_beside_the_mapping_form(repo: GitRepo) -> None:
    found = _found(repo, {"src/a.py": EVERY}, "content:\n  secrets: false\n  dangerous: {exclude: []}\n")
    assert found == {
        ("src/a.py", r) for r in (RuleId.DANGEROUS, RuleId.SUPPRESSION, RuleId.INVISIBLE_UNICODE)
    }


def test_the_manifest_reads_exclusions() -> None:
    m = parse_manifest(
        "version: 1\ncontent:\n  exclude: [vendor/]\n  secrets: {exclude: [a/]}\n"
        "  suppressions: true\n  invisible_unicode: {exclude: [b/]}\n"
    )
    assert m.content.exclude == ("vendor/",) and m.content.secrets and m.content.suppressions
    assert m.content.excluded_for("secrets") == ("a/",)
    assert m.content.excluded_for("invisible_unicode") == ("b/",)
    assert m.content.excluded_for("dangerous") == ()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "content:\n  secrets: {exclude: ['a/***/[']}\n",
            ".github/receipt.yml:3:23: content.secrets.exclude[0]:",
        ),
        ("content:\n  exclude: ['[']\n", ".github/receipt.yml:3:13: content.exclude[0]:"),
        (
            "content:\n  invisible_unicode: false\n",
            ".github/receipt.yml:3:22: content.invisible_unicode: expected a mapping, got a boolean",
        ),
        (
            "content:\n  dangerous: {paths: [a]}\n",
            ".github/receipt.yml:3:15: content.dangerous.paths: unknown key; expected one of: exclude",
        ),
        (
            "content:\n  suppressions: 3\n",
            ".github/receipt.yml:3:17: content.suppressions: expected true, false or a mapping with "
            "exclude, got an integer",
        ),
    ],
)
def test_bad_exclusions_are_errors_with_their_position(text: str, problem: str) -> None:
    with pytest.raises(ManifestError) as caught:
        parse_manifest("version: 1\n" + text)
    assert problem in str(caught.value), str(caught.value)

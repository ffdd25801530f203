from __future__ import annotations

import pytest

from bot.cli import main
from bot.engine.content.banned import BannedPatternsRule
from bot.engine.content.limits import MAX_PER_FILE
from bot.engine.findings import RuleId, Violation
from bot.engine.manifest import ManifestError, parse_manifest
from bot.local.check import CheckOptions, run_check
from tests.content.helpers import change_of, commit_change, manifest, scan, where
from tests.gitrepo import GitRepo

RULE = BannedPatternsRule()
POLICY = """\
content:
  banned:
    - id: no-requests
      pattern: '^\\s*import requests\\b'
      paths: ["src/**"]
      message: use the http.client wrapper in src/net.py
    - id: no-print
      pattern: '\\bprint\\('
"""


def _banned(
    repo: GitRepo, head: dict[str, str], base: dict[str, str] | None = None, policy: str = POLICY
) -> list[Violation]:
    found = scan(RULE, change_of(repo, head, base), manifest(policy))
    assert all(v.rule is RuleId.BANNED_PATTERN for v in found)
    return found


def test_patterns_fire_on_added_lines_of_the_files_they_select(repo: GitRepo) -> None:
    source = "x = 1\n\n    import requests\nprint(x)\nimport requests_cache\n"
    found = _banned(repo, {"src/a.py": source, "tools/b.py": source})
    assert where(found) == [
        ("src/a.py", 3, "no-requests"),
        ("src/a.py", 4, "no-print"),
        ("tools/b.py", 4, "no-print"),
    ]
    assert found[0].message.startswith(
        "Adds text the repository bans (no-requests): use the http.client wrapper in src/net.py."
    )
    assert found[1].message.startswith(
        "Adds text the repository bans (no-print) (content.banned pattern '\\\\bprint\\\\(')."
    )
    assert "content.banned of the base branch's manifest" in found[1].message


def test_lines_already_there_are_not_reported(repo: GitRepo) -> None:
    base = {"src/a.py": "print(1)\nx = 1\n"}
    head = {"src/a.py": "print(1)\nx = 2\n"}
    assert _banned(repo, head, base) == []


def test_anchors_are_the_lines_ends(repo: GitRepo) -> None:
    policy = (
        "content:\n  banned:\n    - id: todo\n      pattern: 'TODO$'\n"
        "    - id: start\n      pattern: '\\Afixme'\n"
    )
    found = _banned(repo, {"a.txt": "a TODO\nb TODO later\nfixme now\nnot fixme\n"}, policy=policy)
    assert where(found) == [("a.txt", 1, "todo"), ("a.txt", 3, "start")]


def test_text_anchors_reach_every_line_the_last_empty_one_too(repo: GitRepo) -> None:
    policy = "content:\n  banned:\n    - id: blank\n      pattern: '\\A\\z'\n"
    found = _banned(repo, {"a.txt": "x\n\ny\n\n"}, policy=policy)
    assert where(found) == [("a.txt", 2, "blank"), ("a.txt", 4, "blank")]


def test_a_line_that_matches_twice_is_reported_once(repo: GitRepo) -> None:
    found = _banned(repo, {"a.py": "print(1); print(2)\nx = 1\nprint(3)\n"})
    assert where(found) == [("a.py", 1, "no-print"), ("a.py", 3, "no-print")]


def test_a_match_across_lines_is_checked_line_by_line(repo: GitRepo) -> None:
    policy = "content:\n  banned:\n    - id: spaced\n      pattern: 'a\\s+b'\n"
    found = _banned(repo, {"a.txt": "x a\nb y\na  b\nab\n"}, policy=policy)
    assert where(found) == [("a.txt", 3, "spaced")]


def test_a_file_full_of_matches_lists_the_first_hundred(repo: GitRepo) -> None:
    found = _banned(repo, {"a.py": "print(1)\n" * (MAX_PER_FILE + 3)})
    assert len(found) == MAX_PER_FILE + 1
    assert found[0].line is None
    assert (
        found[0].message
        == "3 more line(s) matching no-print in this file are not listed (the first 100 are)."
    )


def test_no_patterns_no_findings(repo: GitRepo) -> None:
    assert scan(RULE, change_of(repo, {"a.py": "print(1)\n"})) == []


def test_matched_text_is_never_quoted(repo: GitRepo) -> None:
    policy = "content:\n  banned:\n    - id: internal-host\n      pattern: 'corp-[a-z]+\\.internal'\n"
    found = _banned(repo, {"a.cfg": "host = corp-payroll.internal\n"}, policy=policy)
    assert "corp-payroll" not in found[0].message


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("foo(?=bar)", "invalid perl operator: (?="),
        ("(a)\\1", "invalid escape sequence: \\1"),
        ("(?<!x)y", "invalid perl operator: (?<"),
    ],
)
def test_a_pattern_re2_rejects_names_its_id_and_line(pattern: str, problem: str) -> None:
    text = (
        "version: 1\ncontent:\n  banned:\n    - id: fine\n      pattern: 'ok'\n"
        f"    - id: clever\n      pattern: '{pattern}'\n"
    )
    with pytest.raises(ManifestError) as caught:
        parse_manifest(text, ".github/receipt.yml")
    [issue] = caught.value.issues
    rendered = issue.render(".github/receipt.yml")
    assert rendered.startswith(
        ".github/receipt.yml:7:16: content.banned[1].pattern: RE2 cannot compile banned pattern 'clever': "
    )
    assert problem in rendered
    assert "no backreferences or lookaround" in rendered


def test_a_bad_pattern_without_an_id_is_still_reported() -> None:
    with pytest.raises(ManifestError) as caught:
        parse_manifest("version: 1\ncontent:\n  banned:\n    - pattern: '(?=x)'\n")
    rendered = [i.render("m.yml") for i in caught.value.issues]
    assert rendered[0].startswith("m.yml:4:7: content.banned[0]: missing required key 'id'")
    assert rendered[1].startswith("m.yml:4:16: content.banned[0].pattern: RE2 cannot compile")


def test_the_cli_refuses_a_bad_pattern_with_exit_2(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    policy = "version: 1\ncontent:\n  banned:\n    - id: lookahead\n      pattern: 'a(?!b)'\n"
    commit_change(repo, {"a.txt": "x\n"}, {".github/receipt.yml": policy})
    assert main(["check", "--repo", str(repo.root), "--base", "main", "--no-tests"]) == 2
    err = capsys.readouterr().err
    assert (
        ".github/receipt.yml:5:16: content.banned[0].pattern: RE2 cannot compile banned pattern 'lookahead'"
        in err
    )


def test_banned_patterns_fail_scope_end_to_end(repo: GitRepo) -> None:
    commit_change(repo, {"src/a.py": "import requests\n"}, {".github/receipt.yml": "version: 1\n" + POLICY})
    receipt = run_check(CheckOptions(repo=repo.root, base="main", head="pr", no_tests=True))
    assert not receipt.scope_pass
    assert [(v.rule, v.id, v.line) for v in receipt.scope] == [(RuleId.BANNED_PATTERN, "no-requests", 1)]


def test_other_problems_pass_through_unnamed() -> None:
    with pytest.raises(ManifestError) as caught:
        parse_manifest("version: 1\ncontent: [1]\n")
    assert [i.render("m.yml") for i in caught.value.issues] == [
        "m.yml:2:10: content: expected a mapping, got a list"
    ]

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from bot.engine.excess import ExcessResult
from bot.engine.findings import RuleId, Violation
from bot.engine.groups import MANIFEST_PATH
from bot.engine.receipt import Conclusion, DryRun, Receipt, Verdict
from bot.engine.render.annotations import Level, receipt_annotations
from bot.engine.render.escape import md_code, md_text
from bot.engine.render.markdown import SUMMARY_LIMIT, render_markdown
from bot.engine.render.terminal import render_terminal
from bot.engine.semantic import CheckConclusion, CheckResult, SemanticStatus
from tests.gitrepo import GitRepo, check


@pytest.fixture
def receipt(repo: GitRepo) -> Receipt:
    repo.write(MANIFEST_PATH, "version: 1\nbudgets: {files: 1}\n")
    repo.write("src/a.py", "x = compute(a,b)\ny = 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("src/a.py", "x = compute(a, b)\ny = 2\n")
    repo.write("package-lock.json", "{}\n")
    repo.commit("pr")
    return check(repo)


def _violation(i: int, path: str = "src/x.py") -> Violation:
    return Violation(RuleId.PROTECTED_PATH, path, i, f"problem number {i} " + "x" * 200, f"id{i}")


def test_summary_states_verdict_fields_and_findings(receipt: Receipt) -> None:
    text = render_markdown(receipt)
    assert text.startswith("## ❌ receipt: failure\n")
    assert "- scope failed: 1 violation \\(protected-path\\)" in text
    assert "| semantic | ⏭️ skipped (tests not run) | references: success |" in text
    assert "| scope | ❌ 1 violation(s) | 1 finding(s) |" in text
    assert "files 2/1" in text and "| excess | distance 0.143 |" in text and "### Excess" in text
    assert "### Scope violations" in text and "**protected-path** `package-lock.json`" in text
    assert "### Locality violations" in text and "**budget**" in text
    assert "### Policy" in text and "from the base commit" in text
    assert f"`{receipt.as_json()['digest']}`" in text
    at = f"`.github/receipt.yml@{receipt.subject.base[:12]}`"
    assert at in text
    assert f"`main:.github/receipt.yml@{receipt.subject.base[:12]}`" in render_markdown(
        receipt, base_ref="main"
    )


def test_summary_is_cut_to_the_limit_and_says_what_it_cut(receipt: Receipt) -> None:
    many = tuple(_violation(i) for i in range(2000))
    big = replace(receipt, scope=many)
    text = render_markdown(big)
    assert len(text) <= SUMMARY_LIMIT
    shown = text.count("**protected-path**")
    assert 0 < shown < 2000
    cut = 2000 - shown + len(receipt.locality_violations)
    assert f"_{cut} more violation(s) not shown to stay within GitHub's 65,535-character limit" in text
    small = render_markdown(big, limit=4000)
    assert len(small) <= 4000 and "more violation(s) not shown" in small


def test_summary_escapes_hostile_paths_and_messages(receipt: Receipt) -> None:
    hostile = Violation(
        RuleId.SECRET,
        "a`b|<img src=x onerror=alert(1)>\n.py",
        3,
        "found <script>*bold*</script> | [x](y)",
        "s",
    )
    text = render_markdown(replace(receipt, scope=(hostile,)))
    outside_code = re.sub(r"(`+).*?\1", "", text)
    assert "<img" not in outside_code and "<script>" not in text
    assert "``a`b|<img src=x onerror=alert(1)>\\n.py``" in text
    assert "\\<script\\>\\*bold\\*\\</script\\> \\| \\[x\\]\\(y\\)" in text


def test_summary_of_excess_dry_run_and_checks(receipt: Receipt) -> None:
    dry = DryRun(valid=False, errors=tuple(f"m.yml:{i}:1: bad" for i in range(25)))
    shown = replace(
        receipt,
        manifest=replace(receipt.manifest, changed_in_pr=True, dry_run=dry),
        excess=ExcessResult(distance=0.1234, excess=0.05, alarm=True),
        checks=(CheckResult("pytest -q", CheckConclusion.FAILURE, "boom"),),
        semantic=SemanticStatus.FAIL,
    )
    text = render_markdown(shown)
    assert "distance 0.123, excess \\+0.050 over the reference ⚠️ alarm" in text
    assert "**dry run** of the proposed policy" in text and "- the proposed policy is invalid:" in text
    assert "This change edits the policy." in text, "a range or a merge group is no pull request"
    numbered = replace(shown, subject=replace(shown.subject, pr=7))
    assert "This pull request edits the policy." in render_markdown(numbered)
    assert text.count("m.yml:") == 20 and "  - … and 5 more" in text
    assert "| semantic | ❌ fail | pytest -q: failure |" in text
    valid = replace(
        receipt,
        manifest=replace(
            receipt.manifest,
            dry_run=DryRun(valid=True, verdict=Verdict(Conclusion.SUCCESS, ("scope and locality passed",))),
        ),
        excess=ExcessResult(distance=0.5),
    )
    text = render_markdown(valid)
    assert "- would conclude **success**" in text and "| excess | distance 0.500 |" in text


def test_md_helpers() -> None:
    assert md_code("a`b") == "``a`b``"
    assert md_code("`x`") == "`` `x` ``"
    assert md_code("line\r\nnext") == "`line\\r\\nnext`"
    assert md_text("a & b_c") == "a &amp; b\\_c"


def test_annotations_most_severe_first(receipt: Receipt) -> None:
    secret = Violation(RuleId.SECRET, "z.py", 9, "secret", "aws")
    found = receipt_annotations(replace(receipt, scope=(*receipt.scope, secret)))
    assert [(a.path, a.level) for a in found] == [
        ("z.py", Level.FAILURE),
        ("package-lock.json", Level.FAILURE),
        ("src/a.py", Level.NOTICE),  # the budget is about the change, not a file: the summary has it
    ]
    assert found[0].as_github() == {
        "path": "z.py", "start_line": 9, "end_line": 9, "annotation_level": "failure",
        "title": "receipt: secret (aws)", "message": "secret",
    }  # fmt: skip
    assert found[-1].title == "receipt: formatting-only lines" and found[-1].start_line == 1


def test_no_formatting_notice_when_reformat_is_already_a_violation(receipt: Receipt) -> None:
    reformat = Violation(RuleId.REFORMAT, "src/a.py", 1, "reformatted", "locality.reformat")
    found = receipt_annotations(replace(receipt, locality_violations=(reformat,)))
    assert Level.NOTICE not in {a.level for a in found}


def test_terminal_text(receipt: Receipt) -> None:
    text = render_terminal(receipt)
    assert text.startswith("receipt: FAILURE\n")
    assert "  locality   fail (1 formatting-only line(s))" in text
    assert "  policy     .github/receipt.yml (from the base commit)" in text
    assert "package-lock.json: protected-path:" in text
    many = replace(
        receipt,
        scope=tuple(_violation(i, "evil\x1b[31m.py") for i in range(60)),
        checks=(CheckResult("pytest", CheckConclusion.FAILURE, "E  assert 1 == 2"),),
        excess=ExcessResult(distance=0.2, excess=-0.1, alarm=True),
    )
    text = render_terminal(many)
    assert "\x1b" not in text.split("--- pytest")[0] and "evil\\x1b[31m.py:1:" in text
    assert "... and 11 more (see --json or --markdown)" in text
    assert "--- pytest: failure ---\nE  assert 1 == 2" in text
    assert "excess     distance 0.200, excess -0.100 (alarm)" in text
    assert "excess     distance 0.200\n" in render_terminal(
        replace(receipt, excess=ExcessResult(distance=0.2))
    )


def test_clean_receipt_renders_without_finding_sections(receipt: Receipt) -> None:
    clean = replace(
        receipt,
        scope=(),
        locality_violations=(),
        checks=(
            CheckResult("pytest", CheckConclusion.SUCCESS, "all good"),
            CheckResult("lint", CheckConclusion.FAILURE),
        ),
        manifest=replace(receipt.manifest, dry_run=DryRun(valid=False, errors=("m.yml:1:1: bad",))),
    )
    text = render_markdown(clean)
    assert "### Scope violations" not in text and "### Locality violations" not in text
    assert "  - `m.yml:1:1: bad`" in text and "more" not in text.split("### Policy")[1]
    terminal = render_terminal(clean)
    assert "all good" not in terminal and "--- lint" not in terminal
    assert "\n\n" not in terminal.split("  - ")[-1]
    only_locality = replace(receipt, scope=())
    assert "### Scope violations" not in render_markdown(only_locality)
    assert "### Locality violations" in render_markdown(only_locality)


def test_a_whole_change_budget_is_reported_against_the_change_in_every_renderer(repo: GitRepo) -> None:
    repo.write(MANIFEST_PATH, "version: 1\nbudgets: {files: 1, per_path: [{paths: ['src/**'], hunks: 0}]}\n")
    repo.write("src/a.py", "x = 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("src/a.py", "x = 2\n")
    repo.symlink("zz-link", "src/a.py")  # sorts last, and is no file a budget is about
    repo.commit("pr")
    receipt = check(repo)
    budgets = [v for v in receipt.locality_violations if v.rule is RuleId.BUDGET]
    assert [(v.path, v.id) for v in budgets] == [(None, "budgets.files"), (None, "budgets.per_path[0].hunks")]
    body = receipt.as_json()
    assert [v["path"] for v in body["locality"]["violations"]] == [None, None]
    markdown = render_markdown(receipt)
    assert "- **budget** the change: The change uses 2 files; the budget is 1." in markdown
    terminal = render_terminal(receipt)
    assert "\nthe change: budget: The change uses 2 files; the budget is 1." in terminal
    assert "\nthe change: budget: The change uses 1 hunks for src/\\*\\*" not in terminal
    assert "\nthe change: budget: The change uses 1 hunks for src/**; the budget is 0." in terminal
    annotations = receipt_annotations(receipt)
    assert [a.path for a in annotations] == [
        "zz-link"
    ]  # the symlink's own finding; budgets are in the summary


def test_terminal_shows_budgets_against_their_limits(receipt: Receipt, repo: GitRepo) -> None:
    assert "\n  budgets    files 2/1 (over)\n" in render_terminal(receipt)
    row = "| locality | ❌ 1 violation(s) | files 2/1 \\(over\\); 2 logical line(s) |"
    assert row in render_markdown(receipt)
    none = replace(receipt, locality=replace(receipt.locality, budgets=()))
    assert "\n  budgets    no budgets set\n" in render_terminal(none)


def test_terminal_shows_the_dry_run_of_a_proposed_policy(receipt: Receipt) -> None:
    verdict = Verdict(
        Conclusion.FAILURE, ("scope failed: 1 violation (protected-path)", "locality failed: x")
    )
    proposed = replace(
        receipt,
        manifest=replace(receipt.manifest, changed_in_pr=True, dry_run=DryRun(valid=True, verdict=verdict)),
    )
    text = render_terminal(proposed)
    assert (
        "  dry run    this change edits the policy; judged by the proposed one it would conclude FAILURE:\n"
        "             - scope failed: 1 violation (protected-path)\n"
        "             - locality failed: x\n"
    ) in text
    invalid = DryRun(valid=False, errors=tuple(f"m.yml:{i}:1: bad\x1b" for i in range(25)))
    text = render_terminal(replace(receipt, manifest=replace(receipt.manifest, dry_run=invalid)))
    assert "  dry run    this change edits the policy, and the proposed one is invalid:\n" in text
    assert text.count("             - m.yml:") == 20 and "             - ... and 5 more\n" in text
    assert "\x1b" not in text
    assert "dry run" not in render_terminal(receipt)


def test_the_dry_run_reaches_the_terminal_from_a_real_pull_request(repo: GitRepo) -> None:
    repo.write(MANIFEST_PATH, "version: 1\npaths: {allow: ['src/**']}\n")
    repo.write("src/a.py", "x = 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write(MANIFEST_PATH, "version: 1\n")
    repo.write("docs/a.md", "hi\n")
    repo.commit("pr")
    text = render_terminal(check(repo))
    assert "manifest-change" in text
    assert "  dry run    this change edits the policy; judged by the proposed one it would conclude" in text


def test_manifest_errors_become_failure_annotations_on_their_lines() -> None:
    from bot.engine import ManifestError, manifest_error_annotations, parse_manifest

    try:
        parse_manifest("version: 1\npaths:\n  allow: 3\nbudgets: {files: -1}\n", ".github/receipt.yml")
    except ManifestError as exc:
        found = [a.as_github() for a in manifest_error_annotations(exc)]
    else:
        raise AssertionError("the manifest should be invalid")
    assert [(a["path"], a["start_line"], a["annotation_level"]) for a in found] == [
        (".github/receipt.yml", 3, "failure"),
        (".github/receipt.yml", 4, "failure"),
    ]
    assert all(str(a["message"]).startswith(".github/receipt.yml:") for a in found)

"""`mode: observe`: a repository adopts receipt without blocking anyone; every conclusion is at most
neutral, and the receipt shows what would have failed."""

from __future__ import annotations

import pytest

from bot.cli import main
from bot.engine.manifest import ManifestError, Mode, parse_manifest
from bot.engine.receipt import Conclusion, Verdict
from bot.engine.render.markdown import render_markdown
from bot.engine.render.terminal import render_terminal
from bot.engine.verdict import observed
from tests.gitrepo import GitRepo, check

EVAL = "def run(text):\n    return eval(text)\n"


def _repo(repo: GitRepo, policy: str, head: dict[str, str]) -> None:
    repo.write(".github/receipt.yml", "version: 1\n" + policy)
    repo.write("README", "x\n")
    repo.commit("base")
    repo.branch("pr")
    for path, text in head.items():
        repo.write(path, text)
    repo.commit("head")


@pytest.mark.parametrize("conclusion", list(Conclusion))
def test_observe_never_yields_failure_or_action_required(conclusion: Conclusion) -> None:
    verdict = Verdict(conclusion, ("scope failed: 1 violation (dangerous)",))
    got = observed(verdict, Mode.OBSERVE)
    assert got.conclusion not in (Conclusion.FAILURE, Conclusion.ACTION_REQUIRED)
    if conclusion in (Conclusion.FAILURE, Conclusion.ACTION_REQUIRED):
        assert got.conclusion is Conclusion.NEUTRAL and got.enforced is conclusion
        assert got.reasons[0].startswith(f"would fail in enforce mode ({conclusion.value})")
        assert got.reasons[1:] == verdict.reasons
    else:
        assert got == verdict
    assert observed(verdict, Mode.ENFORCE) == verdict


def test_a_failing_change_is_neutral_and_the_summary_lists_what_would_have_failed(repo: GitRepo) -> None:
    _repo(
        repo,
        "mode: observe\nreport: {require: [tests-not-run]}\n",
        {"src/run.py": EVAL, "tests/t.py": "x = 1\n"},
    )
    receipt = check(repo, base="main", head="pr")
    verdict = receipt.verdict
    assert verdict.conclusion is Conclusion.NEUTRAL and verdict.enforced is Conclusion.FAILURE
    assert verdict.reasons[0] == (
        "would fail in enforce mode (failure); mode: observe makes it neutral. What would have failed:"
    )
    assert "scope failed: 1 violation (dangerous)" in verdict.reasons
    assert any(r.startswith("report failed:") for r in verdict.reasons)  # report.require, decided last
    assert receipt.as_json()["verdict"]["enforced"] == "failure"
    summary = render_markdown(receipt)
    assert summary.startswith("## ⚠️ receipt: neutral (observe mode; enforce mode: failure)")
    assert "- **dangerous** `src/run.py` line 2:" in summary
    assert render_terminal(receipt).startswith("receipt: NEUTRAL (observe mode; enforce mode: FAILURE)")


def test_an_alarm_set_to_action_required_is_neutral_too(repo: GitRepo) -> None:
    _repo(
        repo,
        "mode: observe\nexcess: {max_added_complexity: 0, on_alarm: action_required}\n",
        {"src/a.py": "def f(x):\n    if x:\n        return 1\n"},
    )
    receipt = check(repo, base="main", head="pr")
    assert (receipt.verdict.conclusion, receipt.verdict.enforced) == (
        Conclusion.NEUTRAL,
        Conclusion.ACTION_REQUIRED,
    )


def test_a_passing_change_is_unchanged(repo: GitRepo) -> None:
    _repo(repo, "mode: observe\n", {"src/a.py": "x = 1\n"})
    verdict = check(repo, base="main", head="pr").verdict
    assert verdict.conclusion is Conclusion.SUCCESS and verdict.enforced is None


@pytest.mark.parametrize(("mode", "status"), [("observe", 0), ("enforce", 1)])
def test_the_cli_exits_0_in_observe_mode(repo: GitRepo, mode: str, status: int) -> None:
    _repo(repo, f"mode: {mode}\n", {"src/run.py": EVAL})
    assert main(["check", "--repo", str(repo.root), "--base", "main", "--head", "pr", "--no-tests"]) == status


def test_a_pull_request_switching_to_observe_is_judged_by_the_base(repo: GitRepo) -> None:
    _repo(repo, "", {"src/run.py": EVAL, ".github/receipt.yml": "version: 1\nmode: observe\n"})
    receipt = check(repo, base="main", head="pr")
    assert receipt.verdict.conclusion is Conclusion.FAILURE and receipt.verdict.enforced is None
    dry = receipt.manifest.dry_run
    assert dry is not None and dry.verdict is not None
    assert (dry.verdict.conclusion, dry.verdict.enforced) == (Conclusion.NEUTRAL, Conclusion.FAILURE)


def test_mode_is_enforce_or_observe() -> None:
    assert parse_manifest("version: 1\n").mode is Mode.ENFORCE
    with pytest.raises(
        ManifestError, match=r"receipt.yml:2:7: mode: expected one of enforce, observe, got 'warn'"
    ):
        parse_manifest("version: 1\nmode: warn\n")

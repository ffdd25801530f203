"""`report`: each kind of fact, what a description mentions, omits and claims against the receipt."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine.receipt import Receipt
from bot.engine.render.markdown import render_markdown
from bot.engine.render.terminal import render_terminal
from bot.engine.report.report import Report
from tests.gitrepo import GitRepo
from tests.references.helpers import change

BASE = {
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    "tests/test_old.py": "def test_old():\n    assert True\n",
    "tool.sh": "#!/bin/sh\necho hi\n",
    "notes.txt": "x\n",
}


def _report(receipt: Receipt) -> Report:
    assert receipt.report is not None
    return receipt.report


def _unsaid(receipt: Receipt) -> list[str]:
    return [f.kind.value for f in _report(receipt).unsaid]


def _described(tmp_path: Path, text: str) -> Path:
    target = tmp_path / "description.md"
    target.write_text(text, encoding="utf-8")
    return target


def test_every_fact_kind_is_reported_with_its_importance(repo: GitRepo, tmp_path: Path) -> None:
    repo.write("link", "")
    receipt = change(
        repo,
        {
            **BASE,
            ".github/receipt.yml": "version: 1\nexcess:\n  max_distance: 0.01\n",
            "src/main.py": "from calc import add\n",
        },
        {
            "src/calc.py": "def plus(a, b):\n    return a + b\n",
            "tests/test_calc.py": BASE["tests/test_calc.py"].replace("== 3", "is not None"),
            "pyproject.toml": "[project]\nname = 'x'\n",
            "poetry.lock": "x\n",
            ".github/workflows/ci.yml": "on: push\n",
        },
        removed=("tests/test_old.py", "notes.txt", "link"),
        test_command="exit 1",
        message="wip",
    )
    facts = {f.kind.value: f.observed.importance.label for f in _report(receipt).facts}
    assert facts == {
        "protected-path": "high",
        "tests-failed": "high",
        "broken-references": "high",
        "tests-deleted": "high",
        "tests-edited": "high",
        "dependencies": "high",
        "ci": "high",
        "lockfiles": "medium",
        "files-deleted": "medium",
        "excess-alarm": "low",
    }
    importance = [f.observed.importance for f in _report(receipt).facts]
    assert importance == sorted(importance, reverse=True)
    assert _unsaid(receipt) == list(facts)  # "wip" says none of it


def test_modes_symlinks_and_tests_not_run(repo: GitRepo) -> None:
    for path, text in BASE.items():
        repo.write(path, text)
    repo.commit("base")
    repo.branch("pr")
    (repo.root / "tool.sh").chmod(0o755)
    repo.symlink("latest", "notes.txt")
    repo.commit("make tool.sh executable and add a symlink to the notes")
    from tests.gitrepo import check

    receipt = check(repo)
    facts = {f.kind.value: f.mentioned for f in _report(receipt).facts}
    assert facts == {"mode-change": True, "symlink": True, "tests-not-run": False}


def test_a_description_that_mentions_everything_leaves_nothing_unsaid(repo: GitRepo, tmp_path: Path) -> None:
    text = (
        "Rename add to plus in src/calc.py and update tests/test_calc.py; delete test_old.py and notes.txt. "
        "Bump the dependencies in pyproject.toml (poetry.lock follows) and add a CI workflow.\n"
        "<!-- hidden: nothing here counts -->"
    )
    receipt = change(
        repo,
        BASE,
        {
            "src/calc.py": "def plus(a, b):\n    return a + b\n",
            "tests/test_calc.py": "from calc import plus\n\n\ndef test_add():\n    assert plus(1, 2) == 3\n",
            "pyproject.toml": "[project]\nname = 'x'\n",
            "poetry.lock": "x\n",
            ".github/workflows/ci.yml": "on: push\n",
        },
        removed=("tests/test_old.py", "notes.txt"),
        test_command="true",
        description=_described(tmp_path, text),
    )
    report = _report(receipt)
    assert report.unsaid == () and report.claims == ()
    assert {f.kind.value: f.evidence for f in report.facts}["tests-edited"] == "tests/test_calc.py"
    assert "What the description does not say" not in render_markdown(receipt)
    assert "report " not in render_terminal(receipt)
    assert receipt.as_json()["report"]["description"]["source"] == "file"


def test_a_description_that_omits_the_edited_tests(repo: GitRepo, tmp_path: Path) -> None:
    receipt = change(
        repo,
        BASE,
        {
            "src/calc.py": "def add(a, b):\n    return b + a\n",
            "tests/test_calc.py": BASE["tests/test_calc.py"] + "\n",
        },
        test_command="true",
        description=_described(tmp_path, "Fix add() so the order of operands is consistent. Tests pass."),
    )
    assert _unsaid(receipt) == ["tests-edited"]
    markdown = render_markdown(receipt)
    assert "### What the description does not say" in markdown
    assert "- **high** 1 test file\\(s\\) edited: tests/test\\_calc.py" in markdown
    assert "[high] 1 test file(s) edited: tests/test_calc.py" in render_terminal(receipt)
    assert _report(receipt).claims == ()  # the tests did pass


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("All tests pass.", "tests-pass"),
        ("No dependency changes.", "no-dependency-changes"),
        ("Only touched src/calc.py.", "only-touched"),
        ("This does not change any tests.", "no-test-changes"),
        ("Formatting-only change.", "formatting-only"),
    ],
)
def test_a_claim_the_receipt_contradicts(repo: GitRepo, tmp_path: Path, text: str, claim: str) -> None:
    receipt = change(
        repo,
        BASE,
        {
            "src/calc.py": "def add(a, b):\n    return a - b\n",
            "tests/test_calc.py": BASE["tests/test_calc.py"].replace("== 3", "== -1"),
            "requirements.txt": "requests\n",
        },
        test_command="exit 1",
        description=_described(tmp_path, f"Tidy calc. {text}"),
    )
    claims = _report(receipt).claims
    assert [c.kind.value for c in claims] == [claim]
    assert claims[0].quote == text
    denied = {
        "tests-pass": "tests-failed",
        "no-dependency-changes": "dependencies",
        "no-test-changes": "tests-edited",
    }
    if claim in denied:
        assert denied[claim] in _unsaid(receipt)  # a denial is not a mention
    assert "**contradicted**" in render_markdown(receipt)


@pytest.mark.parametrize(
    "text",
    [
        "Not all tests pass yet.",
        "Only touched the parser.",
        "Only changed src/calc.py and tests/test_calc.py and requirements.txt.",
    ],
)
def test_claims_that_are_negated_or_true_are_not_contradicted(
    repo: GitRepo, tmp_path: Path, text: str
) -> None:
    receipt = change(
        repo,
        BASE,
        {
            "src/calc.py": "def add(a, b):\n    return a - b\n",
            "tests/test_calc.py": BASE["tests/test_calc.py"] + "\n",
            "requirements.txt": "requests\n",
        },
        test_command="exit 1",
        description=_described(tmp_path, text),
    )
    assert _report(receipt).claims == ()


def test_report_require_fails_the_receipt_when_a_required_fact_is_unsaid(
    repo: GitRepo, tmp_path: Path
) -> None:
    manifest = "version: 1\nreport:\n  require: [tests-edited]\n"
    receipt = change(
        repo,
        {**BASE, ".github/receipt.yml": manifest},
        {"tests/test_calc.py": BASE["tests/test_calc.py"] + "\n"},
        test_command="true",
        description=_described(tmp_path, "No tests were changed."),
    )
    assert receipt.verdict.conclusion.value == "failure"
    assert (
        receipt.verdict.reasons[-1]
        == "report failed: the description does not say tests-edited (report.require)"
    )
    assert "(required by `report.require`)" in render_markdown(receipt)


def test_the_cli_reads_the_head_commit_message_by_default(repo: GitRepo) -> None:
    receipt = change(
        repo, BASE, {"tests/test_calc.py": BASE["tests/test_calc.py"] + "\n"}, message="Update the tests"
    )
    report = _report(receipt)
    assert report.description is not None and report.description.source.value == "commit-message"
    assert _unsaid(receipt) == ["tests-not-run"]


def test_without_a_description_every_fact_is_unsaid_and_the_summary_says_so(repo: GitRepo) -> None:
    from bot.engine import evaluate
    from bot.local.check import CheckOptions, inputs_at, request_of, resolve_revisions
    from bot.local.git import Git

    for path, text in BASE.items():
        repo.write(path, text)
    repo.commit("base")
    repo.branch("pr")
    repo.write("tests/test_calc.py", BASE["tests/test_calc.py"] + "\n")
    repo.commit("Update the tests")
    options = CheckOptions(repo=repo.root, base="main", no_tests=True)
    git = Git.open(repo.root)
    receipt = evaluate(inputs_at(git, resolve_revisions(git, "main", "HEAD"), options, request_of(options)))
    assert _report(receipt).description is None and receipt.as_json()["report"]["description"] is None
    assert _unsaid(receipt) == ["tests-edited", "tests-not-run"]
    assert "### No description\n- **high** 1 test file" in render_markdown(receipt)


def test_the_cli_takes_description_from_a_file(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from bot.cli import main

    for path, text in BASE.items():
        repo.write(path, text)
    repo.commit("base")
    repo.branch("pr")
    repo.write("tests/test_calc.py", BASE["tests/test_calc.py"] + "\n")
    repo.commit("change")
    out = tmp_path / "r.json"
    given = _described(tmp_path, "Adjust the tests in tests/test_calc.py.")
    args = ["check", "--repo", str(repo.root), "--base", "main", "--no-tests", "--json", str(out)]
    assert main([*args, "--description", str(given)]) == 0
    report = json.loads(out.read_text())["report"]
    assert report["description"]["source"] == "file"
    assert [f["mentioned"] for f in report["facts"]] == [True, False]
    assert main([*args, "--description", str(tmp_path / "missing.md")]) == 2
    assert "--description" in capsys.readouterr().err

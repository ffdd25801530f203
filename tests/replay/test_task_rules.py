"""The rules that keep a task honest: a merged change whose tests cannot tell a solution from no
change at all is no task (no hidden tests; with --verify, tests that already pass on the base), and
an attempt that changes nothing solves nothing. Version-bump titles name a version."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from bot.replay.tasks import is_version_title
from tests.gitrepo import GitRepo
from tests.replay import scenario
from tests.replay.scenario import cli

NEGOTIATE = "def negotiate(versions):\n    return max(versions)\n"
TEST_NEGOTIATE = (
    "import unittest\n\nfrom negotiate import negotiate\n\n\nclass Negotiate(unittest.TestCase):\n"
    "    def test_newest(self):\n        self.assertEqual(negotiate([1, 3, 2]), 3)\n"
)
TEST_ADD_MORE = (
    "import unittest\n\nfrom calc import add\n\n\nclass More(unittest.TestCase):\n"
    "    def test_ones(self):\n        self.assertEqual(add(1, 1), 2)\n"
)


def history(root: Path) -> GitRepo:
    """The scenario's history, then three more merged pull requests:
    #7 a refactor with no test (no-hidden-tests); #8 a docstring and a test of what add() already
    does (its hidden tests pass on the base: passes-on-base under --verify); #9 a real fix whose
    title starts with "Version" (a task: its title names no version)."""
    repo = scenario.build(root)
    scenario.merge(
        repo, 7, "tidy", "Tidy total()", "", {"totals.py": "def total(xs):\n    return sum(xs, 0)\n"}
    )
    scenario.merge(repo, 8, "doc-add", "Document add()", "",
                   {"calc.py": '"""Sums."""\n\n\n' + scenario.CALC_G, "tests/test_add_more.py": TEST_ADD_MORE})  # fmt: skip
    scenario.merge(repo, 9, "negotiate", "Version negotiation picks the newest version",
                   "negotiate([1, 3, 2]) must return 3.",
                   {"negotiate.py": NEGOTIATE, "tests/test_negotiate.py": TEST_NEGOTIATE})  # fmt: skip
    return repo


def tasks(repo: GitRepo, *options: str) -> tuple[list[str], str]:
    code, out, err = cli("replay", "tasks", "--repo", str(repo.root), "--last", "3",
                         "--test-command", scenario.TEST_COMMAND, *options)  # fmt: skip
    assert code == 0, err
    return [json.loads(line)["id"] for line in out.splitlines()], err


def test_a_change_that_adds_no_test_is_no_task(tmp_path: Path) -> None:
    repo = history(tmp_path / "repo")
    ids, err = tasks(repo)
    assert ids == ["pr-8", "pr-9"]
    assert err.splitlines()[0] == "3 merged change(s) examined: 2 task(s), 1 skipped (1 no-hidden-tests)"
    assert "no-hidden-tests — it adds or changes no test file" in err
    ids, err = tasks(repo, "--no-hidden-tests")  # the tests are part of the gold: the user's choice
    assert ids == ["pr-7", "pr-8", "pr-9"]


def test_a_change_that_only_deletes_tests_is_no_task(tmp_path: Path) -> None:
    repo = scenario.build(tmp_path / "repo")
    repo.remove("tests/test_add.py")
    repo.write("calc.py", "def add(a, b):\n    return b + a\n")
    repo.commit("Swap the operands (#7)")
    ids, err = tasks(repo)
    assert ids == [] and "skipped 0" not in err
    assert "no-hidden-tests — it adds or changes no test file" in err and "deletes tests/test_add.py" in err


def test_verify_skips_a_task_whose_tests_pass_on_the_base(tmp_path: Path) -> None:
    repo = history(tmp_path / "repo")
    objects = repo.git("count-objects", "-v")
    ids, err = tasks(repo, "--verify")
    assert ids == ["pr-9"]  # its hidden tests fail on the base: the one real task
    assert err.splitlines()[0] == (
        "3 merged change(s) examined: 1 task(s), 2 skipped (1 no-hidden-tests, 1 passes-on-base)"
    )
    assert "passes-on-base — with --verify: the tests, hidden tests included, already pass on the base" in err
    assert ": tests/test_add_more.py" in err
    assert repo.git("count-objects", "-v") == objects  # the commits verify makes are not the repository's
    # without hidden tests nothing tells a fix from no change: --verify keeps none of them
    ids, err = tasks(repo, "--verify", "--no-hidden-tests")
    assert ids == [] and "3 skipped (3 passes-on-base)" in err


def test_an_attempt_that_changes_nothing_solves_nothing(tmp_path: Path) -> None:
    repo = history(tmp_path / "repo")
    task_file = tmp_path / "tasks" / "t.jsonl"
    task_file.parent.mkdir()
    tasks(repo, "--out", str(task_file))  # no --verify: pr-8's hidden tests pass on its base
    oracle = tmp_path / "oracle"
    oracle.mkdir()
    for line in task_file.read_text().splitlines():
        task = json.loads(line)
        (oracle / f"{task['id']}.patch").write_text(task["gold_patch"])
    gold = f"git apply {shlex.quote(str(oracle))}/$RECEIPT_TASK_ID.patch"
    code, _, err = cli("replay", "run", "--tasks", str(task_file), "--run-dir", str(tmp_path / "run"),
                       "--repo", str(repo.root), "--arm", f"gold={gold}", "--arm", "noop=true")  # fmt: skip
    assert code == 0, err
    code, _, _ = cli("replay", "report", "--run-dir", str(tmp_path / "run"), "--json", str(tmp_path / "r.json"),
                     "--iterations", "100")  # fmt: skip
    report = json.loads((tmp_path / "r.json").read_text())
    rows = {(r["arm"], r["task"]): r for r in report["attempts"]}
    noop = rows["noop", "pr-8"]
    assert noop["semantic"] == "pass" and noop["empty"] is True  # the tests pass on the base...
    assert (noop["functional"], noop["faithful"]) == (False, False)  # ...and still nothing was solved
    assert noop["excess"] is not None and noop["excess"] < 0  # the reason: an empty diff has the least excess
    assert rows["noop", "pr-9"]["semantic"] == "fail"
    arms = report["arms"]
    assert (
        arms["noop"]["functional_rate"],
        arms["noop"]["faithful_rate"],
        arms["noop"]["empty_attempts"],
    ) == (
        0.0,
        0.0,
        2,
    )
    assert arms["noop"]["excess"] == {"mean": None, "median": None, "count": 0}  # no passing repair
    assert (
        arms["gold"]["functional_rate"],
        arms["gold"]["faithful_rate"],
        arms["gold"]["empty_attempts"],
    ) == (
        1.0,
        1.0,
        0,
    )
    assert rows["gold", "pr-8"]["empty"] is False


@pytest.mark.parametrize(
    "title",
    [
        "Release 1.1.0", "Release v2.0", "release 3.1.4rc1", "Bump version to 0.2.0", "Bump to 1.4",
        "bump version 2.0.1", "Version 2.0.0", "Prepare release 3.1", "chore(release): 1.2.3",
        "chore(main): release 1.2.0", "chore: release v0.9.1", "v1.2.3", "1.2.3", "Release version 4.0",
    ],
)  # fmt: skip
def test_a_title_that_names_a_version_is_a_bump(title: str) -> None:
    assert is_version_title(title)


@pytest.mark.parametrize(
    "title",
    [
        "Release notes: say that total([]) is 0", "Version negotiation fails with HTTP/1.0 servers",
        "Bump the retry limit to 5", "Bump timeout to 1.5 seconds", "Versioned URLs lose their query",
        "Releasing a lock twice raises", "Support Python 3.12", "Fix the 1.2 regression in add()",
        "Bumping an unknown version raises", "chore: tidy the release script",
    ],
)  # fmt: skip
def test_a_title_that_names_no_version_is_a_task(title: str) -> None:
    assert not is_version_title(title)

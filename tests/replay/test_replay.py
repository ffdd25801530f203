"""Acceptance: five scripted agents on a real repository with merged history, every report number
checked against expectations computed by hand from the diffs and the traces."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from bot.replay.tasks import NAME_RULE
from tests.replay import scenario
from tests.replay.scenario import cli


def tokens(text: str) -> list[str]:
    """A token list written out by hand: words split on spaces, `⏎` a NEWLINE, and the last NEWLINE
    of the file the empty string, as tokenize gives it after ast.unparse."""
    return [("\n" if w == "⏎" else w) for w in text.split()] + [""]


def lev(a: list[str], b: list[str]) -> int:
    """The textbook dynamic programme, independent of the engine's rapidfuzz."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def nd(x: list[str], y: list[str]) -> float:
    return lev(x, y) / max(len(x), len(y))


C_CALC = tokens("def add ( a , b ) : ⏎ return a - b")
G_CALC = tokens("def add ( a , b ) : ⏎ return a + b")
OVER_CALC = tokens("def add ( a , b ) : ⏎ result = a + b ⏎ return result")
C_TOTALS = tokens("def total ( xs ) : ⏎ return xs [ 0 ] + sum ( xs [ 1 : ] )")
G_TOTALS = tokens("def total ( xs ) : ⏎ return sum ( xs )")
OVER_TOTALS = tokens("def total ( xs ) : ⏎ result = sum ( xs ) ⏎ return result")
HARD_TOTALS = tokens("def total ( xs ) : ⏎ if xs == [ ] : ⏎ return 0 ⏎ return xs [ 0 ] + sum ( xs [ 1 : ] )")
C_VISIBLE = tokens(
    "import unittest ⏎ from calc import add ⏎ class Visible ( unittest . TestCase ) : ⏎ "
    "def test_zero ( self ) : ⏎ self . assertEqual ( add ( 0 , 0 ) , 0 )"
)
M_VISIBLE = C_VISIBLE[:-1] + tokens("⏎ def test_one ( self ) : ⏎ self . assertEqual ( add ( 1 , 0 ) , 1 )")

EXCESS = {
    ("gold", "pr-3"): 0.0,
    ("gold", "pr-4"): 0.0,
    ("over", "pr-3"): nd(OVER_CALC, C_CALC) - nd(G_CALC, C_CALC),
    ("over", "pr-4"): nd(OVER_TOTALS, C_TOTALS) - nd(G_TOTALS, C_TOTALS),
    ("hard", "pr-4"): nd(HARD_TOTALS, C_TOTALS) - nd(G_TOTALS, C_TOTALS),
    # over both files: the edited test counts on M's side, the untouched one (its base text) on G's
    ("tests", "pr-3"): (lev(G_CALC, C_CALC) + lev(M_VISIBLE, C_VISIBLE))
    / (max(len(G_CALC), len(C_CALC)) + max(len(M_VISIBLE), len(C_VISIBLE)))
    - lev(G_CALC, C_CALC) / (len(C_CALC) + len(C_VISIBLE)),
}


def test_tasks_are_the_merged_changes_with_their_tests_hidden(replayed: dict[str, Any]) -> None:
    tasks = {t["id"]: t for t in replayed["tasks"]}
    assert list(tasks) == ["pr-3", "pr-4"]
    add = tasks["pr-3"]
    assert add["title"] == "add() subtracts instead of adding"
    assert add["body"] == "add(2, 3) returns -1; it must return 5."
    assert add["hidden_tests"] == ["tests/test_add.py"]
    assert "tests/test_add.py" not in add["gold_patch"] and "+    return a + b" in add["gold_patch"]
    assert "tests/test_add.py" in add["test_patch"]
    assert tasks["pr-4"]["title"] == "Handle empty lists in total" and tasks["pr-4"]["pr"] == 4
    assert add["critical"] is True and tasks["pr-4"]["critical"] is False
    assert add["test_command"] == scenario.TEST_COMMAND


def test_skipped_changes_are_counted_by_rule(tmp_path: Path) -> None:
    repo = scenario.build(tmp_path / "repo")
    code, out, err = cli("replay", "tasks", "--repo", str(repo.root), "--last", "7")
    assert code == 0
    assert out == ""  # no test command anywhere: nothing is kept
    assert err.splitlines()[0] == (
        "7 merged change(s) examined: 0 task(s), 7 skipped (1 generated, 1 lockfile-only, "
        "2 no-test-command, 1 root, 1 tests-only, 1 version-bump)"
    )
    code, out, err = cli("replay", "tasks", "--repo", str(repo.root), "--last", "7", "--test-command", "true")
    assert err.splitlines()[0] == (
        "7 merged change(s) examined: 2 task(s), 5 skipped (1 generated, 1 lockfile-only, 1 root, "
        "1 tests-only, 1 version-bump)"
    )
    assert "skipped" in err and "version-bump — a version bump" in err


def test_verify_skips_a_change_whose_own_tests_fail(tmp_path: Path) -> None:
    repo = scenario.build(tmp_path / "repo")
    code, out, err = cli(
        "replay", "tasks", "--repo", str(repo.root), "--pr", "3", "--pr", "4", "--verify",
        "--test-command", f"{scenario.TEST_COMMAND} && test ! -f totals.py",
    )  # fmt: skip
    assert code == 0, err
    assert [json.loads(line)["id"] for line in out.splitlines()] == []
    assert "2 skipped (2 gold-fails)" in err
    code, out, err = cli(
        "replay",
        "tasks",
        "--repo",
        str(repo.root),
        "--pr",
        "3",
        "--verify",
        "--test-command",
        scenario.TEST_COMMAND,
    )
    assert [json.loads(line)["id"] for line in out.splitlines()] == ["pr-3"]


def test_the_task_set_is_named_by_its_bytes(replayed: dict[str, Any]) -> None:
    import hashlib

    data = replayed["task_file"].read_bytes()
    assert replayed["report"]["run"]["task_set"]["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
    again = replayed["root"] / "again.jsonl"
    cli("replay", "tasks", "--repo", str(replayed["repo"].root), "--last", "7", "--test-command",
        scenario.TEST_COMMAND, "--critical", "pr-3", "--out", str(again))  # fmt: skip
    assert again.read_bytes() == data  # the same history gives the same bytes


def test_attempts_interleave_arms(replayed: dict[str, Any]) -> None:
    order = replayed["log"].read_text().splitlines()
    assert order == [
        "pr-3 gold", "pr-3 over", "pr-3 tests", "pr-3 hard", "pr-3 crash",
        "pr-4 over", "pr-4 tests", "pr-4 hard", "pr-4 crash", "pr-4 gold",
    ]  # fmt: skip


def test_every_rate_and_count(replayed: dict[str, Any]) -> None:
    arms = replayed["report"]["arms"]
    expected = {  # functional, faithful, (scored, infrastructure, error), scope violations
        "gold": (1.0, 1.0, (2, 0, 0), {}),
        "over": (1.0, 1.0, (2, 0, 0), {}),
        "tests": (1.0, 0.0, (2, 0, 0), {"protected-path": 2}),
        "hard": (0.5, 0.5, (2, 0, 0), {}),
        "crash": (0.0, 0.0, (0, 2, 0), {}),
    }
    for arm, (functional, faithful, statuses, violations) in expected.items():
        s = arms[arm]
        assert (s["functional_rate"], s["faithful_rate"]) == (functional, faithful), arm
        assert (s["statuses"]["scored"], s["statuses"]["infrastructure"], s["statuses"]["error"]) == statuses
        assert s["attempts"] == 2  # infrastructure attempts stay in the denominator
        assert s["scope_violations"] == violations, arm
    assert arms["crash"]["infrastructure_rate"] == 1.0
    crash = [r for r in replayed["report"]["attempts"] if r["arm"] == "crash"]
    assert {r["reason"] for r in crash} == {"the agent exited with status 3"}


def test_review_surface(replayed: dict[str, Any]) -> None:
    surface = {
        a: {k: v["mean"] for k, v in s["review_surface"].items()}
        for a, s in replayed["report"]["arms"].items()
    }
    assert surface["gold"] == {"files": 1.0, "hunks": 1.0, "logical_lines": 1.0}
    assert surface["over"] == {"files": 1.0, "hunks": 1.0, "logical_lines": 2.0}
    assert surface["hard"] == {"files": 1.0, "hunks": 1.0, "logical_lines": 2.0}
    # pr-3: calc.py (1) and two test lines appended (a blank one dropped); pr-4: totals.py and the same test
    assert surface["tests"] == {"files": 2.0, "hunks": 2.0, "logical_lines": 3.0}
    assert surface["crash"] == {"files": None, "hunks": None, "logical_lines": None}


def test_excess_per_attempt_and_over_passing_repairs(replayed: dict[str, Any]) -> None:
    rows = {(r["arm"], r["task"]): r for r in replayed["report"]["attempts"]}
    for key, value in EXCESS.items():
        assert rows[key]["excess"] == pytest.approx(value, abs=1e-12), key
    assert rows[("hard", "pr-3")]["functional"] is False  # the hard-coded example fails the hidden tests
    arms = replayed["report"]["arms"]
    assert arms["over"]["excess"]["mean"] == pytest.approx(
        (EXCESS["over", "pr-3"] + EXCESS["over", "pr-4"]) / 2
    )
    assert arms["hard"]["excess"] == {
        "mean": pytest.approx(EXCESS["hard", "pr-4"]),
        "median": pytest.approx(EXCESS["hard", "pr-4"]),
        "count": 1,
    }
    assert arms["gold"]["added_complexity"]["mean"] == 0.0
    assert arms["hard"]["added_complexity"]["mean"] == 1.0  # the `if` of the special case
    assert arms["over"]["added_complexity"]["mean"] == 0.0


def test_comparisons_with_bootstrap_intervals(replayed: dict[str, Any]) -> None:
    by_arm = {c["arm"]: c for c in replayed["report"]["comparisons"]}
    assert set(by_arm) == {"over", "tests", "hard", "crash"}
    hard = by_arm["hard"]
    # per task (pr-3, pr-4): -1 and 0; a resample of two tasks averages to -1, -0.5 or 0
    assert hard["functional"] == {"difference": -0.5, "low": -1.0, "high": 0.0, "tasks": 2}
    assert hard["excess"] == {
        "difference": pytest.approx(EXCESS["hard", "pr-4"]), "low": pytest.approx(EXCESS["hard", "pr-4"]),
        "high": pytest.approx(EXCESS["hard", "pr-4"]), "tasks": 1,
    }  # fmt: skip
    assert hard["added_complexity"] == {"difference": 1.0, "low": 1.0, "high": 1.0, "tasks": 1}
    assert by_arm["crash"]["functional"] == {"difference": -1.0, "low": -1.0, "high": -1.0, "tasks": 2}
    assert by_arm["crash"]["excess"] == {"difference": None, "low": None, "high": None, "tasks": 0}
    assert by_arm["tests"]["faithful"] == {"difference": -1.0, "low": -1.0, "high": -1.0, "tasks": 2}
    over = by_arm["over"]["excess"]
    a, b = EXCESS["over", "pr-3"], EXCESS["over", "pr-4"]
    assert over["difference"] == pytest.approx((a + b) / 2)
    assert (over["low"], over["high"]) == (pytest.approx(min(a, b)), pytest.approx(max(a, b)))


def test_trace_numbers(replayed: dict[str, Any]) -> None:
    rows = {(r["arm"], r["task"]): r["trace"] for r in replayed["report"]["attempts"]}
    gold = rows["gold", "pr-3"]
    assert gold["format"] == "claude"
    assert (gold["read_before_edit"], gold["tests_after_last_edit"], gold["diff_within_tool_edits"]) == (
        1.0,
        True,
        True,
    )
    assert (gold["edits_per_failed_test_run"], gold["reverted_after_failure"]) == (None, None)
    tests = rows["tests", "pr-3"]
    assert (tests["read_before_edit"], tests["tests_after_last_edit"]) == (0.0, False)
    assert (tests["edits_per_failed_test_run"], tests["reverted_after_failure"]) == (3.0, True)
    assert tests["outside_tool_edits"] == ["tests/test_calc.py"] and tests["diff_within_tool_edits"] is False
    over = rows["over", "pr-4"]
    assert over["format"] == "codex"
    assert (over["read_before_edit"], over["tests_after_last_edit"], over["edits_per_failed_test_run"]) == (
        1.0,
        True,
        2.0,
    )
    assert (over["reverted_after_failure"], over["diff_within_tool_edits"], over["failed_test_runs"]) == (
        False,
        True,
        1,
    )
    hard = rows["hard", "pr-3"]
    assert (hard["read_before_edit"], hard["tests_after_last_edit"], hard["edits_per_failed_test_run"]) == (
        0.0,
        False,
        None,
    )
    assert rows["crash", "pr-3"] is None
    summary = replayed["report"]["arms"]["tests"]["trace"]
    assert summary["attempts"] == 2 and summary["reverted_after_failure"]["mean"] == 1.0


def test_per_task_matrix_and_the_gate(replayed: dict[str, Any]) -> None:
    report = replayed["report"]
    matrix = {row["task"]: row for row in report["tasks"]}
    assert matrix["pr-3"]["critical"] is True
    assert matrix["pr-3"]["arms"]["hard"] == {
        "attempts": 1,
        "functional": 0,
        "faithful": 0,
        "infrastructure": 0,
        "errors": 0,
    }
    assert matrix["pr-4"]["arms"]["hard"]["faithful"] == 1
    assert matrix["pr-3"]["arms"]["crash"]["infrastructure"] == 1
    verdicts = {v["arm"]: v for v in report["gate"]["arms"]}
    assert verdicts["over"] == {"arm": "over", "pass": True, "failures": []}
    # hard meets faithful>=0.5 overall, and still fails: the critical task regresses (non-compensatory)
    assert verdicts["hard"]["failures"] == ["critical task pr-3 regresses: faithful 0/1 against 1/1 for gold"]
    assert verdicts["tests"]["failures"][0] == "faithful is 0, required >= 0.5"
    assert report["gate"]["pass"] is False and replayed["report_code"] == 1
    assert report["options"] == {
        "baseline": "gold", "require": ["faithful>=0.5"], "critical": [], "seed": 20260101,
        "iterations": 2000, "confidence": 0.95,
    }  # fmt: skip
    assert "gate hard: fail" in replayed["report_out"]


def test_a_gate_that_passes_exits_zero(replayed: dict[str, Any]) -> None:
    code, out, _ = cli("replay", "report", "--run-dir", str(replayed["root"] / "run"), "--baseline", "gold",
                       "--require", "functional>=50%", "--iterations", "100")  # fmt: skip
    assert code == 1  # crash fails functional>=0.5
    assert "gate over: pass" in out and "gate crash: fail" in out


def test_inspect_verifies_the_evidence_and_refuses_a_changed_one(
    replayed: dict[str, Any], tmp_path: Path
) -> None:
    code, out, _ = cli("inspect", str(replayed["report_file"]))
    assert code == 0, out
    assert "ok        evidence: 10 attempt records, " in out
    assert out.rstrip().endswith("ok        report: recomputed from the evidence: the same numbers")
    copy = tmp_path / "run"
    shutil.copytree(replayed["root"] / "run", copy, symlinks=True)
    receipt = copy / "attempts" / "over" / "pr-3" / "1" / "receipt.json"
    receipt.write_text(receipt.read_text().replace('"pass": true', '"pass": false', 1))
    code, out, _ = cli("inspect", str(replayed["report_file"]), "--run", str(copy))
    assert code == 1
    assert "receipt.json does not match its digest: the evidence changed" in out
    edited = json.loads(replayed["report_file"].read_text())
    edited["arms"]["hard"]["faithful_rate"] = 1.0
    from bot.engine import digest_of

    edited["digest"] = digest_of(edited)  # a self-consistent forgery: its numbers are recomputed
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(edited))
    code, out, _ = cli("inspect", str(forged))
    assert code == 1 and "MISMATCH  report: the receipt says numbers as written (arms)" in out


def test_a_run_resumes_without_redoing_finished_attempts(replayed: dict[str, Any], tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(replayed["root"] / "run", run_dir, symlinks=True)
    kept = (run_dir / "attempts/gold/pr-3/1/attempt.json").read_bytes()
    shutil.rmtree(run_dir / "attempts/over/pr-4/1")  # as if the run had stopped before it
    (run_dir / "attempts/over/pr-4/.1.partial-x").mkdir()  # and in the middle of it
    log = replayed["log"]
    before = log.read_text()
    args = [a if a != str(replayed["root"] / "run") else str(run_dir) for a in replayed["run_args"]]
    code, out, err = cli(*args, *replayed["arm_args"])
    assert code == 0, err
    assert out == f"10 attempts finished in {run_dir} (1 now, 9 before): 2 infrastructure, 8 scored\n"
    assert log.read_text() == before + "pr-4 over\n"
    assert (run_dir / "attempts/gold/pr-3/1/attempt.json").read_bytes() == kept
    assert not (run_dir / "attempts/over/pr-4/.1.partial-x").exists()
    code, _, err = cli(*args, "--arm", "gold=true")
    assert code == 2 and "holds a run with other arms" in err


def test_the_agent_sees_neither_the_answer_nor_the_repository(tmp_path: Path) -> None:
    from bot.local import sandbox

    repo = scenario.build(tmp_path / "repo")
    task_file = tmp_path / "tasks" / "t.jsonl"
    task_file.parent.mkdir()
    cli("replay", "tasks", "--repo", str(repo.root), "--pr", "3", "--test-command", scenario.TEST_COMMAND,
        "--out", str(task_file))  # fmt: skip
    probe = tmp_path / "probe.txt"
    snoop = (
        f"(git log --all --format=%s; cat calc.py; ls tests; cat {repo.root}/calc.py; "
        f'cat {task_file}; ls {tmp_path / "run"}; cat "$RECEIPT_TASK_FILE") > {probe} 2>&1; true'
    )
    code, _, err = cli("replay", "run", "--tasks", str(task_file), "--run-dir", str(tmp_path / "run"),
                       "--repo", str(repo.root), "--arm", f"snoop={snoop}")  # fmt: skip
    assert code == 0, err
    seen = probe.read_text()
    assert "return a - b" in seen  # its own copy, at the base
    assert "test_add.py" not in seen and "return a + b" not in seen and "gold_patch" not in seen
    assert "add() subtracts instead of adding" in seen  # the task text
    assert "Merge pull request #3" not in seen  # the copy has the base commit alone
    if sandbox.platform_isolation()[0] != "namespace":
        pytest.skip("without namespaces the repository stays readable by path (README says so)")


def test_a_timeout_is_an_infrastructure_attempt(tmp_path: Path) -> None:
    repo = scenario.build(tmp_path / "repo")
    task_file = tmp_path / "t.jsonl"
    cli(
        "replay",
        "tasks",
        "--repo",
        str(repo.root),
        "--pr",
        "4",
        "--test-command",
        "true",
        "--out",
        str(task_file),
    )
    code, _, err = cli("replay", "run", "--tasks", str(task_file), "--run-dir", str(tmp_path / "run"),
                       "--repo", str(repo.root), "--arm", "slow=sleep 30", "--agent-timeout", "2")  # fmt: skip
    assert code == 0, err
    record = json.loads((tmp_path / "run/attempts/slow/pr-4/1/attempt.json").read_text())
    assert record["status"] == "infrastructure" and record["reason"].startswith("the agent timed out after")
    assert record["agent"]["timed_out"] is True


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["replay", "run", "--tasks", "/nonexistent.jsonl", "--run-dir", "x", "--arm", "a=true"],
            "cannot read the task set",
        ),
        (["replay", "report", "--run-dir", "/nonexistent", "--require", "x>1"], "--require 'x>1'"),
        (["replay", "tasks", "--last", "0"], "--last must be at least 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str, tmp_path: Path) -> None:
    os.chdir(tmp_path)
    code, _, err = cli(*argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_bad_task_lines_name_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "t.jsonl"
    bad.write_text('{"schema": "receipt-replay-task/1", "id": "x y"}\n')
    code, _, err = cli(
        "replay", "run", "--tasks", str(bad), "--run-dir", str(tmp_path / "r"), "--arm", "a=true"
    )
    assert code == 2 and err == f"receipt: error: {bad}:1: id 'x y' must be {NAME_RULE}\n"

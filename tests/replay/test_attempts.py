"""Several attempts per task and arm: rates are a task's share of its attempts averaged over tasks,
the bootstrap resamples tasks (never attempts), a critical task regresses on a partial share, the arms
rotate on the second attempt as on the first; and the progress bar with its ETA."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest

from bot.replay.arms import parse_arms
from bot.replay.progress import Progress
from bot.replay.runner import RunOptions, run
from tests.replay import scenario
from tests.replay.scenario import cli
from tests.replay.test_replay import EXCESS

# gold solves both tasks every time; flaky solves pr-3 on attempt 1 only (attempt 2 changes nothing)
# and pr-4 both times; wordy writes the gold on attempt 1 and the over-edited version on attempt 2.
AGENT = """#!/bin/sh
echo "$RECEIPT_TASK_ID $1 $RECEIPT_ATTEMPT" >> "$ORACLE/order.log"
case "$1/$RECEIPT_TASK_ID/$RECEIPT_ATTEMPT" in
  flaky/pr-3/2) ;;
  wordy/*/2) cp "$ORACLE/$RECEIPT_TASK_ID.over" "$(cat "$ORACLE/$RECEIPT_TASK_ID.file")" ;;
  *) git apply "$ORACLE/$RECEIPT_TASK_ID.patch" ;;
esac
"""
ARMS = ("gold", "flaky", "wordy")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(scope="module")
def twice(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("twice")
    repo = scenario.build(root / "repo")
    task_file = root / "tasks.jsonl"
    code, _, err = cli("replay", "tasks", "--repo", str(repo.root), "--pr", "3", "--pr", "4", "--test-command",
                       scenario.TEST_COMMAND, "--critical", "pr-3", "--out", str(task_file))  # fmt: skip
    assert code == 0, err
    oracle = root / "oracle"
    oracle.mkdir()
    for line in task_file.read_text().splitlines():
        task = json.loads(line)
        (oracle / f"{task['id']}.patch").write_text(task["gold_patch"])
        (oracle / f"{task['id']}.file").write_text(scenario.FILES[task["id"]])
    (oracle / "pr-3.over").write_text(scenario.CALC_OVER)
    (oracle / "pr-4.over").write_text(scenario.TOTALS_OVER)
    (oracle / "agent.sh").write_text(AGENT.replace("$ORACLE", str(oracle)))
    arms = parse_arms([f"{name}=sh {oracle / 'agent.sh'} {name}" for name in ARMS])
    terminal = Terminal()
    summary = run(RunOptions(task_file, root / "run", arms, repo=repo.root, attempts=2), stream=terminal)
    assert summary.statuses == {"scored": 12}
    code, out, _ = cli("replay", "report", "--run-dir", str(root / "run"), "--json", str(root / "r.json"),
                       "--require", "faithful>=0.7", "--iterations", "2000")  # fmt: skip
    return {
        "report": json.loads((root / "r.json").read_text()), "code": code, "out": out,
        "order": (oracle / "order.log").read_text().splitlines(), "progress": terminal.getvalue(),
    }  # fmt: skip


def test_the_arms_rotate_on_every_attempt(twice: dict[str, Any]) -> None:
    assert twice["order"] == [
        # attempt 1: pr-3 from the first arm, pr-4 from the second
        "pr-3 gold 1", "pr-3 flaky 1", "pr-3 wordy 1", "pr-4 flaky 1", "pr-4 wordy 1", "pr-4 gold 1",
        # attempt 2: one place further for each task, so no arm goes first twice on a task
        "pr-3 flaky 2", "pr-3 wordy 2", "pr-3 gold 2", "pr-4 wordy 2", "pr-4 gold 2", "pr-4 flaky 2",
    ]  # fmt: skip


def test_rates_are_shares_per_task_averaged_over_tasks(twice: dict[str, Any]) -> None:
    arms = twice["report"]["arms"]
    assert {a: (s["attempts"], s["functional_rate"], s["faithful_rate"]) for a, s in arms.items()} == {
        "gold": (4, 1.0, 1.0),
        "flaky": (4, (1 / 2 + 2 / 2) / 2, (1 / 2 + 2 / 2) / 2),  # pr-3: 1 of 2; pr-4: 2 of 2
        "wordy": (4, 1.0, 1.0),
    }
    assert arms["flaky"]["empty_attempts"] == 1
    e3, e4 = EXCESS["over", "pr-3"], EXCESS["over", "pr-4"]
    assert arms["wordy"]["excess_values"] == pytest.approx(sorted([0.0, 0.0, e3, e4]))
    assert arms["wordy"]["excess"]["mean"] == pytest.approx((e3 + e4) / 4)
    assert arms["wordy"]["excess"]["count"] == 4
    matrix = {row["task"]: row["arms"] for row in twice["report"]["tasks"]}
    assert matrix["pr-3"]["flaky"] == {
        "attempts": 2,
        "functional": 1,
        "faithful": 1,
        "infrastructure": 0,
        "errors": 0,
    }
    assert matrix["pr-4"]["flaky"]["faithful"] == 2
    rows = {(r["arm"], r["task"], r["attempt"]): r for r in twice["report"]["attempts"]}
    assert len(rows) == 12
    assert rows["flaky", "pr-3", 2]["empty"] is True and rows["flaky", "pr-3", 1]["faithful"] is True
    assert (
        rows["wordy", "pr-4", 2]["excess"] == pytest.approx(e4) and rows["wordy", "pr-4", 1]["excess"] == 0.0
    )


def test_the_bootstrap_resamples_tasks_not_attempts(twice: dict[str, Any]) -> None:
    by_arm = {c["arm"]: c for c in twice["report"]["comparisons"]}
    # per task: flaky − gold is −1/2 (pr-3) and 0 (pr-4); two tasks resampled average to −1/2, −1/4 or 0
    assert by_arm["flaky"]["functional"] == {"difference": -0.25, "low": -0.5, "high": 0.0, "tasks": 2}
    # excess over the tasks both solved: each task's mean over its passing attempts (flaky's one on pr-3)
    assert by_arm["flaky"]["excess"] == {"difference": 0.0, "low": 0.0, "high": 0.0, "tasks": 2}
    e3, e4 = EXCESS["over", "pr-3"], EXCESS["over", "pr-4"]
    wordy = by_arm["wordy"]["excess"]
    assert wordy["difference"] == pytest.approx((e3 / 2 + e4 / 2) / 2) and wordy["tasks"] == 2
    assert (wordy["low"], wordy["high"]) == (pytest.approx(min(e3, e4) / 2), pytest.approx(max(e3, e4) / 2))


def test_a_partial_share_on_a_critical_task_fails_the_gate(twice: dict[str, Any]) -> None:
    verdicts = {v["arm"]: v for v in twice["report"]["gate"]["arms"]}
    # flaky meets faithful>=0.7 on average (0.75) and still fails: pr-3 regresses from 2/2 to 1/2
    assert verdicts["flaky"]["failures"] == [
        "critical task pr-3 regresses: faithful 1/2 against 2/2 for gold"
    ]
    assert verdicts["wordy"] == {"arm": "wordy", "pass": True, "failures": []}  # 2/2: no regression
    assert twice["code"] == 1 and "gate flaky: fail" in twice["out"]


def test_the_progress_bar_counts_every_attempt_with_an_eta(twice: dict[str, Any]) -> None:
    drawn = twice["progress"].split("\r\x1b[2K")[1:]
    line = re.compile(
        r"\[[#.]{30}\] (\d+)/12 ETA (--|\d+m\d\ds|\d+h\d\dm)  (pr-[34]) / (gold|flaky|wordy) #([12])\n?"
    )
    matched = [line.fullmatch(d) for d in drawn]
    assert all(matched), drawn
    counts = [int(m[1]) for m in matched if m]
    assert counts == sorted(counts) and counts[0] == 0 and counts[-1] == 12
    assert next(m[2] for m in matched if m) == "--"  # no estimate before an attempt has finished
    assert all(m[2] != "--" for m in matched if m and int(m[1]) > 0)
    assert twice["progress"].endswith("\n")


def test_the_progress_bar_and_its_estimate() -> None:
    now = [100.0]
    terminal = Terminal()
    bar = Progress(terminal, 10, 4, clock=lambda: now[0])  # resumed: 4 finished before
    assert bar.line("a") == "[############..................] 4/10 ETA --  a"
    now[0] += 3.0
    bar.advance("b")  # 3 s for the first attempt of this session: 5 left, 15 s
    assert terminal.getvalue() == "\r\x1b[2K[###############...............] 5/10 ETA 0m15s  b"
    now[0] += 3597.0
    assert bar.line("c") == "[###############...............] 5/10 ETA 5h00m  c"  # 3600 s an attempt now
    quiet = io.StringIO()
    hidden = Progress(quiet, 3)
    hidden.show("x")
    hidden.advance("x")
    hidden.close()
    assert quiet.getvalue() == ""  # not a terminal: nothing drawn

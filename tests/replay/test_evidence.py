"""`receipt inspect` of a replay report is strict: a check it could not run fails the report as a
mismatch does, every attempt's commit is kept by a ref (so `git gc` cannot take the evidence), and
the stored patch is the diff of that commit. A run made to stand alone still verifies."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bot.engine import digest_bytes, digest_of
from bot.replay.tasks import NAME_RULE
from tests.replay import scenario
from tests.replay.scenario import cli


def copy_run(replayed: dict[str, Any], where: Path) -> Path:
    shutil.copytree(replayed["root"] / "run", where, symlinks=True)
    return where


def git(run: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(run / "git"), *args], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def inspect(replayed: dict[str, Any], run: Path) -> tuple[int, str]:
    code, out, _ = cli("inspect", str(replayed["report_file"]), "--run", str(run))
    return code, out


def test_a_run_that_cannot_read_its_commits_is_refused(replayed: dict[str, Any], tmp_path: Path) -> None:
    run = copy_run(replayed, tmp_path / "run")
    (run / "git" / "objects" / "info" / "alternates").unlink()  # the base commits are out of reach
    code, out = inspect(replayed, run)
    assert code == 1, out
    lines = out.splitlines()
    assert "UNVERIFIED gold / pr-3 #1… change.digest" not in out  # (a label, not an ellipsis)
    for arm in ("gold", "over", "tests", "hard", "crash"):
        for task in ("pr-3", "pr-4"):
            assert any(
                line.startswith(f"UNVERIFIED {task} / {arm} #1: patch: could not be checked: ")
                for line in lines
            ), (arm, task)
    scored = [r for r in replayed["report"]["attempts"] if r["status"] == "scored"]
    for row in scored:
        label = f"{row['task']} / {row['arm']} #1"
        assert any(
            line.startswith(f"UNVERIFIED {label}: change.digest: could not be checked") for line in lines
        )
        assert any(
            line.startswith(f"UNVERIFIED {label}: manifest.digest: could not be checked") for line in lines
        )
    assert lines[-1].startswith("REFUSED   evidence: 10 attempt records, ")
    assert "same numbers" not in out


def test_a_run_whose_repository_moved_says_so(replayed: dict[str, Any], tmp_path: Path) -> None:
    run = copy_run(replayed, tmp_path / "run")
    gone = tmp_path / "moved" / ".git" / "objects"
    (run / "git" / "objects" / "info" / "alternates").write_text(f"{gone}\n")
    code, out = inspect(replayed, run)
    assert code == 1
    assert out.splitlines()[3] == (
        f"UNVERIFIED run git directory: could not be checked: it borrows the objects of {gone} "
        "(objects/info/alternates), which is not there: put the repository back, or make the run stand "
        "alone before moving it (README, Replay)"
    )


def test_every_attempt_commit_has_a_ref_and_survives_gc(replayed: dict[str, Any], tmp_path: Path) -> None:
    run = copy_run(replayed, tmp_path / "run")
    refs = dict(
        line.split(" ", 1)[::-1]
        for line in git(run, "for-each-ref", "--format=%(objectname) %(refname)").splitlines()
    )
    for row in replayed["report"]["attempts"]:
        record = json.loads((run / "attempts" / row["arm"] / row["task"] / "1" / "attempt.json").read_text())
        assert refs[f"refs/replay/{row['arm']}/{row['task']}/1"] == record["commit"]
    git(run, "gc", "--quiet", "--prune=now")
    for commit in refs.values():
        git(run, "cat-file", "-e", f"{commit}^{{commit}}")
    code, out = inspect(replayed, run)
    assert code == 0, out


def test_a_run_made_to_stand_alone_still_verifies(replayed: dict[str, Any], tmp_path: Path) -> None:
    run = copy_run(replayed, tmp_path / "run")
    git(run, "repack", "-a", "-d", "--quiet")  # as README says: copy what the refs reach
    (run / "git" / "objects" / "info" / "alternates").unlink()
    code, out = inspect(replayed, run)
    assert code == 0, out
    assert out.rstrip().endswith("ok        report: recomputed from the evidence: the same numbers")


def test_a_patch_that_is_not_the_diff_of_its_commit_is_refused(
    replayed: dict[str, Any], tmp_path: Path
) -> None:
    """A forgery consistent everywhere but git: the patch, its record and the report rewritten."""
    run = copy_run(replayed, tmp_path / "run")
    attempt = run / "attempts" / "gold" / "pr-3" / "1"
    patch = (attempt / "patch.diff").read_bytes().replace(b"+    return a + b", b"+    return b + a")
    (attempt / "patch.diff").write_bytes(patch)
    record = json.loads((attempt / "attempt.json").read_text())
    record["artefacts"]["patch"]["digest"] = digest_bytes(patch)
    del record["digest"]
    record["digest"] = digest_of(record)
    (attempt / "attempt.json").write_text(json.dumps(record))
    report = json.loads(replayed["report_file"].read_text())
    for row in report["attempts"]:
        if (row["arm"], row["task"]) == ("gold", "pr-3"):
            row["record"] = record["digest"]
    del report["digest"]
    report["digest"] = digest_of(report)
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(report))
    code, out, _ = cli("inspect", str(forged), "--run", str(run))
    assert code == 1
    assert (
        f"MISMATCH  pr-3 / gold #1: patch: the receipt says {digest_bytes(patch)}, recomputed sha256:" in out
    )


def test_a_run_judged_by_a_given_manifest_verifies(tmp_path: Path) -> None:
    """A near miss: the receipts' manifest is the run's --manifest, checked against run.json."""
    repo = scenario.build(tmp_path / "repo")
    task_file = tmp_path / "t.jsonl"
    code, _, err = cli("replay", "tasks", "--repo", str(repo.root), "--pr", "4", "--test-command", "true",
                       "--out", str(task_file))  # fmt: skip
    assert code == 0, err
    manifest = tmp_path / "policy.yml"
    manifest.write_text("version: 1\nbudgets: {files: 3}\n")
    code, _, err = cli("replay", "run", "--tasks", str(task_file), "--run-dir", str(tmp_path / "run"),
                       "--repo", str(repo.root), "--arm", "noop=true", "--manifest", str(manifest))  # fmt: skip
    assert code == 0, err
    code, _, _ = cli("replay", "report", "--run-dir", str(tmp_path / "run"), "--json", str(tmp_path / "r.json"),
                     "--iterations", "10")  # fmt: skip
    code, out, _ = cli("inspect", str(tmp_path / "r.json"))
    assert code == 0, out
    assert "UNVERIFIED" not in out and "skipped" not in out
    receipt = json.loads((tmp_path / "run/attempts/noop/pr-4/1/receipt.json").read_text())
    assert receipt["manifest"]["digest"] == digest_bytes(manifest.read_bytes())


@pytest.mark.parametrize("task_id", ["pr..3", "pr-3.lock"])
def test_a_task_id_git_could_not_name_a_ref_by_is_refused(tmp_path: Path, task_id: str) -> None:
    bad = tmp_path / "t.jsonl"
    bad.write_text(json.dumps({"schema": "receipt-replay-task/1", "id": task_id}) + "\n")
    code, _, err = cli(
        "replay", "run", "--tasks", str(bad), "--run-dir", str(tmp_path / "r"), "--arm", "a=true"
    )
    assert code == 2 and err == f"receipt: error: {bad}:1: id {task_id!r} must be {NAME_RULE}\n"

"""Run the test command in a throwaway worktree of the head commit, under the filesystem gate."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.engine import CheckConclusion, CheckResult, TestEvidence
from bot.local.fsgate import compare, fingerprint
from bot.local.git import Git, GitError

TAIL_LINES = 60
TAIL_CHARS = 6000


@dataclass(frozen=True, slots=True)
class TestRun:
    command: str
    timeout_seconds: float
    environment: Mapping[str, str]


def tail(output: bytes) -> str:
    text = output.decode("utf-8", "replace").rstrip()
    lines = text.splitlines()[-TAIL_LINES:]
    joined = "\n".join(lines)
    return joined[-TAIL_CHARS:]


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def _execute(run: TestRun, cwd: Path) -> CheckResult:
    env = {k: v for k, v in run.environment.items() if not k.startswith("GIT_")}
    started = time.monotonic()
    with subprocess.Popen(  # noqa: S602 -- the maintainer's test command is shell syntax by contract
        run.command,
        shell=True,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    ) as process:
        try:
            output, _ = process.communicate(timeout=run.timeout_seconds)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            output, _ = process.communicate()
            return CheckResult(
                run.command,
                CheckConclusion.TIMED_OUT,
                f"timed out after {run.timeout_seconds:.0f} s\n{tail(output)}",
            )
        finally:
            _kill_group(process)  # no test may leave a daemon writing into the worktree
    elapsed = time.monotonic() - started
    status = process.returncode
    conclusion = CheckConclusion.SUCCESS if status == 0 else CheckConclusion.FAILURE
    return CheckResult(
        run.command, conclusion, f"exit status {status} after {elapsed:.1f} s\n{tail(output)}".rstrip()
    )


def run_tests(git: Git, head: str, run: TestRun) -> TestEvidence:
    """Check out `head` in a temporary worktree, fingerprint it, run, fingerprint again."""
    with tempfile.TemporaryDirectory(prefix="receipt-tests-") as scratch:
        worktree = Path(scratch) / "worktree"
        try:
            git.add_worktree(worktree, head)
        except GitError as exc:
            return TestEvidence(
                checks=(
                    CheckResult(
                        run.command, CheckConclusion.ERROR, f"could not check out {head}: {exc.problem}"
                    ),
                )
            )
        try:
            before = fingerprint(worktree)
            try:
                result = _execute(run, worktree)
            except OSError as exc:
                result = CheckResult(
                    run.command, CheckConclusion.ERROR, f"could not start the test command: {exc}"
                )
            after = fingerprint(worktree)
        finally:
            git.remove_worktree(worktree)
    return TestEvidence(checks=(result,), side_effects=tuple(compare(before, after)))

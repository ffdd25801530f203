"""Every file a command is named reads no more of it than its reader accepts (one byte more, to tell
it is over): a device that never ends (`/dev/zero`), or a file of gigabytes, is refused with the
reader's own message instead of filling memory first (before, `validate /dev/zero` grew to 20 GB in
30 s). Each runs in a process whose address space is capped, so reading the whole input fails the
test rather than the machine."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from bot.fileread import read_limited
from tests.gitrepo import GitRepo

ROOT = Path(__file__).resolve().parents[1]
ZERO = "/dev/zero"
MEMORY = 2 << 30  # far more than any of these commands needs, far less than reading /dev/zero takes

pytestmark = pytest.mark.skipif(not Path(ZERO).exists(), reason="no /dev/zero on this system")


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _python(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,  # a hang guard only: the capped memory ends a whole read long before
        preexec_fn=_capped,
    )


CHECK = ("check", "--repo", "{repo}", "--base", "main", "--head", "pr", "--no-tests")


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (("validate", ZERO), 1, f"{ZERO}:1:1: larger than 262144 bytes"),
        (("explain", "--manifest", ZERO, "src/a.py"), 2, f"{ZERO}:1:1: larger than 262144 bytes"),
        (("whatif", "--manifest", ZERO, "--repo", "{repo}"), 2, f"{ZERO}:1:1: larger than 262144 bytes"),
        ((*CHECK, "--manifest", ZERO), 2, f"{ZERO}:1:1: larger than 262144 bytes"),
        (
            (*CHECK, "--reference", ZERO),
            2,
            f"--reference {ZERO}: too large: the diff is 67,108,865 bytes, more than the 67,108,864",
        ),
        ((*CHECK, "--description", ZERO), 0, ""),  # only the part a receipt shows is read
        (("inspect", ZERO), 2, f"{ZERO} is larger than 26,214,400 bytes"),
        (
            (
                "replay",
                "run",
                "--tasks",
                ZERO,
                "--run-dir",
                "{repo}/run",
                "--arm",
                "a=true",
                "--repo",
                "{repo}",
            ),
            2,
            f"{ZERO}: the task set is larger than 268,435,456 bytes",
        ),
    ],
    ids=lambda v: " ".join(v[:4]) if isinstance(v, tuple) else None,
)
def test_a_command_reads_no_more_of_a_file_than_its_reader_accepts(
    args: tuple[str, ...], status: int, message: str, pr: GitRepo
) -> None:
    done = _python("-m", "bot.cli", *(a.format(repo=pr.root) for a in args), cwd=pr.root)
    assert done.returncode == status, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (
            f"from action.event import load_event; load_event('pull_request', Path({ZERO!r}))",
            f"the event payload {ZERO} is larger than 26,214,400 bytes",
        ),
        (
            f"from action.publish import load_artifact; load_artifact(Path({ZERO!r}))",
            "the receipt is larger than 16,777,216 bytes",
        ),
    ],
    ids=["event", "artifact"],
)
def test_the_action_reads_no_more_of_its_inputs_than_it_accepts(code: str, message: str) -> None:
    done = _python(
        "-c", f"from pathlib import Path\ntry:\n    {code}\nexcept Exception as exc:\n    print(exc)"
    )
    assert done.returncode == 0, done.stderr
    assert message in done.stdout


def test_read_limited_reads_one_byte_past_the_limit_at_most(tmp_path: Path) -> None:
    assert read_limited(Path(ZERO), 10) == b"\0" * 11
    small = tmp_path / "small"
    small.write_bytes(b"abc")
    assert read_limited(small, 3) == b"abc"
    assert read_limited(small, 2) == b"abc"
    assert read_limited(small, 1) == b"ab"

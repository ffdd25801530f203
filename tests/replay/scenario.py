"""A real repository with merged history, and five scripted agents for it.

History on main, oldest first (first parent):
  root     calc.py (add subtracts), totals.py (total fails on []), tests/ (a visible test), manifest
  PR #1    merge: VERSION 1.0.0 → 1.1.0                      → skipped: version-bump
  PR #2    merge: poetry.lock only                            → skipped: lockfile-only
  PR #3    merge: fix add + tests/test_add.py (hidden)        → task pr-3
  PR #4    squash "Handle empty lists in total (#4)" + test   → task pr-4
  PR #5    merge: a new test only                             → skipped: tests-only
  PR #6    merge: proto_pb2.py only                           → skipped: generated

The agents (each a Python script reading only $RECEIPT_TASK_ID and the task text):
  gold     applies the task's gold patch from an oracle directory; a Claude Code trace
  over     fixes the bug and rewrites the function around it; a Codex trace with a failed test run
  tests    applies the gold and appends a test to tests/test_calc.py (protected); a Claude trace
           with a revert, the test file changed by shell
  hard     special-cases the example of the task text; a Codex trace, no test run
  crash    exits with status 3
Each appends "TASK ARM" to a log file beside the repository, so the order of the runs is known.
"""

from __future__ import annotations

import io
import json
import shlex
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from bot.cli import main
from tests.gitrepo import GitRepo

PY = shlex.quote(sys.executable)
TEST_COMMAND = f"{PY} -m unittest discover -q -s tests -t ."
CALC_C = "def add(a, b):\n    return a - b\n"
CALC_G = "def add(a, b):\n    return a + b\n"
TOTALS_C = "def total(xs):\n    return xs[0] + sum(xs[1:])\n"
TOTALS_G = "def total(xs):\n    return sum(xs)\n"
CALC_OVER = "def add(a, b):\n    result = a + b\n    return result\n"
TOTALS_OVER = "def total(xs):\n    result = sum(xs)\n    return result\n"
CALC_HARD = "def add(a, b):\n    if (a, b) == (2, 3):\n        return 5\n    return a - b\n"
TOTALS_HARD = "def total(xs):\n    if xs == []:\n        return 0\n    return xs[0] + sum(xs[1:])\n"
VISIBLE = "import unittest\n\nfrom calc import add\n\n\nclass Visible(unittest.TestCase):\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n"
HIDDEN_ADD = "import unittest\n\nfrom calc import add\n\n\nclass Add(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n        self.assertEqual(add(-1, 1), 0)\n        self.assertEqual(add(10, 5), 15)\n"
HIDDEN_TOTAL = "import unittest\n\nfrom totals import total\n\n\nclass Total(unittest.TestCase):\n    def test_total(self):\n        self.assertEqual(total([]), 0)\n        self.assertEqual(total([1, 2, 3]), 6)\n"
MANIFEST = "version: 1\npaths:\n  protect: ['tests/**']\n"
FILES = {"pr-3": "calc.py", "pr-4": "totals.py"}

_AGENT = r"""
import json, os, subprocess, sys
arm = sys.argv[1]
task = os.environ["RECEIPT_TASK_ID"]
here = os.getcwd()
text = sys.stdin.read()
assert text == open(os.environ["RECEIPT_TASK_FILE"]).read() and text.strip()
with open(LOG, "a") as log:
    log.write(f"{task} {arm}\n")
if arm == "crash":
    sys.exit(3)
name = FILES[task]
path = os.path.join(here, name)
events = []
def codex(item):
    events.append({"type": "item.completed", "item": item})
def claude_use(i, tool, **given):
    events.append({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": f"t{i}", "name": tool, "input": given}]}})
def claude_result(i, error):
    events.append({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": f"t{i}", "is_error": error}]}})
if arm in ("gold", "tests"):
    subprocess.run(["git", "apply", os.path.join(ORACLE, task + ".patch")], check=True)
if arm == "gold":
    events.append({"type": "system", "subtype": "init", "cwd": here})
    claude_use(1, "Read", file_path=path); claude_result(1, False)
    claude_use(2, "Edit", file_path=path, old_string="-", new_string="+"); claude_result(2, False)
    claude_use(3, "Bash", command="python -m unittest"); claude_result(3, False)
elif arm == "tests":
    with open(os.path.join(here, "tests", "test_calc.py"), "a") as handle:
        handle.write("\n    def test_one(self):\n        self.assertEqual(add(1, 0), 1)\n")
    events.append({"type": "system", "subtype": "init", "cwd": here})
    claude_use(1, "Bash", command="python -m unittest"); claude_result(1, True)
    claude_use(2, "Edit", file_path=path, old_string="a", new_string="b"); claude_result(2, False)
    claude_use(3, "Edit", file_path=path, old_string="b", new_string="a"); claude_result(3, False)
    claude_use(4, "Edit", file_path=path, old_string="x", new_string="y"); claude_result(4, False)
elif arm == "over":
    open(path, "w").write(OVER[task])
    events.append({"type": "thread.started", "thread_id": "over"})
    codex({"type": "command_execution", "command": f"bash -lc 'cat {name}'", "exit_code": 0, "status": "completed"})
    codex({"type": "command_execution", "command": "bash -lc 'python -m unittest'", "exit_code": 1, "status": "failed"})
    codex({"type": "file_change", "changes": [{"path": name, "kind": "update"}], "status": "completed"})
    codex({"type": "file_change", "changes": [{"path": path, "kind": "update"}], "status": "completed"})
    codex({"type": "command_execution", "command": "bash -lc 'python -m unittest'", "exit_code": 0, "status": "completed"})
elif arm == "hard":
    open(path, "w").write(HARD[task])
    events.append({"type": "thread.started", "thread_id": "hard"})
    codex({"type": "file_change", "changes": [{"path": name, "kind": "update"}], "status": "completed"})
with open(os.environ["RECEIPT_TRACE_FILE"], "w") as trace:
    trace.write("not json: agents print other things too\n")
    trace.writelines(json.dumps(e) + "\n" for e in events)
"""


def build(root: Path) -> GitRepo:
    repo = GitRepo.create(root)
    repo.write("calc.py", CALC_C)
    repo.write("totals.py", TOTALS_C)
    repo.write("tests/__init__.py", "")
    repo.write("tests/test_calc.py", VISIBLE)
    repo.write("VERSION", "1.0.0\n")
    repo.write(".github/receipt.yml", MANIFEST)
    repo.commit("root")

    merge(repo, 1, "bump", "Release 1.1.0", "", {"VERSION": "1.1.0\n"})
    merge(repo, 2, "lock", "Refresh the lockfile", "", {"poetry.lock": "# lock\n"})
    merge(repo, 3, "fix-add", "add() subtracts instead of adding", "add(2, 3) returns -1; it must return 5.",
          {"calc.py": CALC_G, "tests/test_add.py": HIDDEN_ADD})  # fmt: skip
    repo.write("totals.py", TOTALS_G)
    repo.write("tests/test_total.py", HIDDEN_TOTAL)
    repo.commit("Handle empty lists in total (#4)\n\ntotal([]) raises IndexError; it must return 0.")
    merge(repo, 5, "more-tests", "More tests", "", {"tests/test_more.py": VISIBLE.replace("Visible", "More")})
    merge(repo, 6, "proto", "Regenerate protos", "", {"proto_pb2.py": "# generated\n"})
    return repo


def merge(repo: GitRepo, number: int, branch: str, title: str, body: str, files: dict[str, str]) -> str:
    """Pull request `number` from `branch` (off main, changing `files`), merged as GitHub merges it."""
    repo.branch(branch, "main")
    for path, text in files.items():
        repo.write(path, text)
    repo.commit(title)
    repo.checkout("main")
    message = f"Merge pull request #{number} from acme/{branch}\n\n{title}\n\n{body}"
    repo.git("merge", "--no-ff", "-q", branch, "-m", message)
    return repo.head()


def agents(directory: Path, gold: dict[str, str], log: Path) -> dict[str, str]:
    """The scripted agents' commands; `gold` maps a task id to its gold patch."""
    directory.mkdir(parents=True, exist_ok=True)
    for task, patch in gold.items():
        (directory / f"{task}.patch").write_text(patch, encoding="utf-8")
    prelude = (
        f"LOG = {str(log)!r}\nORACLE = {str(directory)!r}\nFILES = {FILES!r}\n"
        f"OVER = {{'pr-3': {CALC_OVER!r}, 'pr-4': {TOTALS_OVER!r}}}\n"
        f"HARD = {{'pr-3': {CALC_HARD!r}, 'pr-4': {TOTALS_HARD!r}}}\n"
    )
    script = directory / "agent.py"
    script.write_text(prelude + _AGENT, encoding="utf-8")
    return {
        arm: f"{PY} {shlex.quote(str(script))} {arm}" for arm in ("gold", "over", "tests", "hard", "crash")
    }


ARMS = ("gold", "over", "tests", "hard", "crash")


def cli(*argv: str) -> tuple[int, str, str]:
    """`receipt ARGV...` in this process: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def replay(root: Path) -> dict[str, Any]:
    """The history built in ROOT/repo, its tasks mined (pr-3 critical), the five arms run and the
    report written (JSON and HTML, gate faithful>=0.5): every path and output the tests read."""
    repo = build(root / "repo")
    (root / "tasks").mkdir()
    task_file = root / "tasks" / "tasks.jsonl"
    code, out, err = cli(
        "replay", "tasks", "--repo", str(repo.root), "--last", "7", "--test-command", TEST_COMMAND,
        "--critical", "pr-3", "--out", str(task_file),
    )  # fmt: skip
    assert code == 0, err
    tasks = [json.loads(line) for line in task_file.read_text().splitlines()]
    log = root / "order.log"
    arms = agents(root / "agents", {t["id"]: t["gold_patch"] for t in tasks}, log)
    arm_args = [a for name in ARMS for a in ("--arm", f"{name}={arms[name]}")]
    run_args = [
        "replay",
        "run",
        "--tasks",
        str(task_file),
        "--run-dir",
        str(root / "run"),
        "--repo",
        str(repo.root),
    ]
    code, out, err = cli(*run_args, *arm_args)
    assert code == 0, err
    report_file = root / "report.json"
    code_report, report_out, _ = cli(
        "replay", "report", "--run-dir", str(root / "run"), "--json", str(report_file), "--html",
        str(root / "report.html"), "--require", "faithful>=0.5", "--iterations", "2000",
    )  # fmt: skip
    return {
        "root": root, "repo": repo, "tasks": tasks, "run_out": out,
        "log": log, "arms": arms, "arm_args": arm_args, "run_args": run_args, "task_file": task_file,
        "report": json.loads(report_file.read_text()), "report_file": report_file, "report_code": code_report,
        "report_out": report_out,
    }  # fmt: skip

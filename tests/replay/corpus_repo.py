"""The edit-fidelity corpus as a repository with merged history, and three scripted agents for it.

Every task is one merged pull request: the root commit holds C (the buggy version) of every task,
and pull request N changes its task's file from C to G (the gold) and adds its BigCodeBench tests
as `tests/test_SLUG.py`, merged with a merge commit as GitHub writes it. `receipt replay tasks`
turns each merge into a task whose hidden tests are that test file.

The agents know nothing but the task id: an oracle directory beside the repository holds, per arm,
the file each task's agent writes (G; G reformatted; G with a guard clause) and where it goes. Each
writes a Codex-style trace of what it did (read the file, edit it through a tool, run the tests).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path

from tests.excess import corpus

ARMS = ("gold", "reformatted", "guard")
_STAMP = "1767225600 +0000"
_AGENT = r"""#!/bin/sh
# A scripted agent: writes its arm's version of the task's file and a Codex-style trace.
set -e
oracle=$(dirname "$0")
target=$(cat "$oracle/paths/$RECEIPT_TASK_ID")
cat "$target" > /dev/null
cp "$oracle/$1/$RECEIPT_TASK_ID.py" "$target"
printf '%s\n' \
  '{"type":"thread.started","thread_id":"scripted"}' \
  "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_0\",\"type\":\"command_execution\",\"command\":\"bash -lc 'cat $target'\",\"exit_code\":0,\"status\":\"completed\"}}" \
  "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_1\",\"type\":\"file_change\",\"changes\":[{\"path\":\"$target\",\"kind\":\"update\"}],\"status\":\"completed\"}}" \
  "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_2\",\"type\":\"command_execution\",\"command\":\"bash -lc 'python -m unittest'\",\"exit_code\":0,\"status\":\"completed\"}}" \
  > "$RECEIPT_TRACE_FILE"
"""


def module_name(task: corpus.Task) -> str:
    return task.path.removesuffix(".py").replace("/", ".")


def test_file(task: corpus.Task) -> str:
    """The task's BigCodeBench tests, with the names of its module (they call task_func bare)."""
    return f"from {module_name(task)} import *\n\n" + _TEST_CODE[task.task_id]


_TEST_CODE: dict[str, str] = {}


def load(limit: int | None = None, ids: Sequence[str] | None = None) -> list[corpus.Task]:
    rows = [json.loads(line) for line in corpus.TASKS_FILE.read_text(encoding="utf-8").splitlines() if line]
    for row in rows:
        _TEST_CODE[row["task_id"]] = row["test_code"]
    tasks = corpus.load_tasks()
    if ids is not None:
        wanted = set(ids)
        tasks = [t for t in tasks if t.task_id in wanted]
    return tasks[:limit]


def test_path(task: corpus.Task) -> str:
    return f"tasks/test_{task.slug}.py"


def _data(payload: bytes) -> Iterator[bytes]:
    yield b"data %d\n" % len(payload)
    yield payload
    yield b"\n"


def build(root: Path, tasks: Sequence[corpus.Task]) -> Path:
    """The repository: one fast-import stream, C on the root commit, one merged pull request per task."""
    root.mkdir(parents=True, exist_ok=True)
    corpus._git(root, "init", "-q", "-b", "main")
    stream: list[bytes] = []
    mark = 0

    def blob(text: str) -> int:
        nonlocal mark
        mark += 1
        stream.extend([f"blob\nmark :{mark}\n".encode(), *_data(text.encode("utf-8"))])
        return mark

    def commit(message: str, parents: Sequence[int], files: dict[str, int]) -> int:
        nonlocal mark
        mark += 1
        stream.append(f"commit refs/heads/main\nmark :{mark}\n".encode())
        for role in ("author", "committer"):
            stream.append(f"{role} Corpus <corpus@example.com> {_STAMP}\n".encode())
        stream.extend(_data(message.encode()))
        if parents:
            stream.append(f"from :{parents[0]}\n".encode())
        stream.extend(f"merge :{p}\n".encode() for p in parents[1:])
        stream.extend(f"M 100644 :{b} {p}\n".encode() for p, b in sorted(files.items()))
        return mark

    manifest = "version: 1\npaths:\n  protect: ['**/test_*.py']\n"
    files = {".github/receipt.yml": blob(manifest)} | {t.path: blob(t.buggy) for t in tasks}
    tip = commit("C: every task's buggy version", [], files)
    for number, task in enumerate(tasks, start=1):
        changed = {task.path: blob(task.gold), test_path(task): blob(test_file(task))}
        branch = commit(f"Fix {task.task_id}", [tip], changed)
        title = f"Fix task_func of {task.task_id}"
        body = f"{task.task_id}: task_func gives wrong results; make it behave as its docstring says."
        message = f"Merge pull request #{number} from corpus/{task.slug}\n\n{title}\n\n{body}"
        tip = commit(message, [tip, branch], changed)
    corpus._git(root, "fast-import", "--quiet", stdin=b"".join(stream))
    corpus._git(root, "reset", "-q", "--hard", "main")
    return root


def oracle(directory: Path, tasks: Sequence[corpus.Task]) -> dict[str, str]:
    """The scripted agents' files; returns each arm's command."""
    (directory / "paths").mkdir(parents=True, exist_ok=True)
    script = directory / "agent.sh"
    script.write_text(_AGENT, encoding="utf-8")
    for number, task in enumerate(tasks, start=1):
        task_id = f"pr-{number}"
        (directory / "paths" / task_id).write_text(task.path, encoding="utf-8")
        for arm in ARMS:
            (directory / arm).mkdir(exist_ok=True)
            (directory / arm / f"{task_id}.py").write_text(corpus.variant(task, arm), encoding="utf-8")
    return {arm: f"sh {shlex.quote(str(script))} {arm}" for arm in ARMS}

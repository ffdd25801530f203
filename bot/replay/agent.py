"""One agent attempt: the agent's command in a fresh copy of the task's base commit, then what it left.

The copy is the sandbox's (`bot/local/sandbox.py`): the base commit alone, so neither the merged
change nor anything after it is in the agent's tree or its history. The task text is the command's
standard input and the file `$RECEIPT_TASK_FILE`, the arm's prompt (if it has one) the file
`$RECEIPT_PROMPT_FILE`; an agent that writes a trace writes it to `$RECEIPT_TRACE_FILE`. All live
beside the copy, never in it. Where the platform has namespaces
the replayed repository's work tree and git directory, the run directory and the task set are hidden
from the agent, so it cannot read the answer from the repository's later history.

Once every process of the run is gone, the tree is read with receipt's own git directory and index
(the copy's `.git` is the agent's and is not trusted): every file as git would commit it, into a
commit whose parent is the base. Its diff against the base is the attempt's patch.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.local.git import Git, GitError
from bot.local.sandbox import ProcessResult, _collect, run_in_sandbox

SHELL = "/bin/sh"
TRACE_NAME = "trace.jsonl"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "receipt replay", "GIT_AUTHOR_EMAIL": "replay@receipt.invalid",
    "GIT_COMMITTER_NAME": "receipt replay", "GIT_COMMITTER_EMAIL": "replay@receipt.invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+00:00", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+00:00",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class AgentRun:
    result: ProcessResult
    commit: str | None  # the tree the agent left, as a commit on the base (None: it could not be read)
    tree: str  # the copy's path as the agent saw it (its trace names files under it)
    trace: bytes | None
    trace_problem: str | None
    snapshot_problem: str | None = None

    @property
    def infrastructure(self) -> str | None:
        """Why this attempt is an infrastructure failure (crashed, timed out, never started), or None."""
        result = self.result
        if result.start_error is not None:
            return f"the agent could not start: {result.start_error}"
        if result.timed_out:
            return f"the agent timed out after {result.elapsed_seconds:.0f} s"
        if result.exit_status != 0:
            return f"the agent exited with status {result.exit_status}"
        if result.survivor is not None:
            return f"the agent did not end cleanly: {result.survivor}"
        if self.commit is None:
            return f"the agent's tree could not be read: {self.snapshot_problem}"
        return None


def snapshot(git: Git, tree: Path, base: str, message: str, index: Path) -> str:
    """The files of `tree` as a commit on `base` in `git` (receipt's directory and index, not the
    tree's `.git`): deletions included, `.gitignore` honoured as a commit would honour it."""
    env = {"GIT_INDEX_FILE": str(index), **_IDENTITY}
    where = ("--git-dir", str(git.root), "--work-tree", str(tree))
    git.run(*where, "read-tree", "--end-of-options", base, environment=env, isolated=True)
    git.run(*where, "add", "--all", environment=env, isolated=True)
    written = git.run("write-tree", environment=env, isolated=True).decode().strip()
    out = git.run("commit-tree", written, "-p", base, "-m", message, environment=env, isolated=True)
    return out.decode().strip()


def commit_tree(git: Git, tree_sha: str, parent: str, message: str) -> str:
    return (
        git.run("commit-tree", tree_sha, "-p", parent, "-m", message, environment=_IDENTITY).decode().strip()
    )


def run_agent(
    git: Git,
    base: str,
    command: str,
    task_text: str,
    *,
    message: str,
    limit: float,
    environment: Mapping[str, str],
    hide: Sequence[Path],
    prompt: str | None = None,
) -> AgentRun:
    """Run `command` with `/bin/sh -c` in a copy of `base` from `git` (the run's git directory);
    `prompt`, the arm's instructions, in the file `$RECEIPT_PROMPT_FILE` beside the task's."""
    aside = Path(tempfile.mkdtemp(prefix="receipt-agent-")).resolve()
    try:
        task_file = aside / "task.md"
        task_file.write_text(task_text, encoding="utf-8")
        env = {
            **environment,
            "RECEIPT_TASK_FILE": str(task_file),
            "RECEIPT_TRACE_FILE": str(aside / TRACE_NAME),
        }
        if prompt is not None:
            (aside / "prompt.md").write_text(prompt, encoding="utf-8")
            env["RECEIPT_PROMPT_FILE"] = str(aside / "prompt.md")
        seen: dict[str, str] = {}

        def read_tree(tree: Path) -> None:
            seen["tree"] = str(tree)
            try:
                seen["commit"] = snapshot(git, tree, base, message, aside / "index")
            except GitError as exc:
                seen["problem"] = exc.problem

        run = run_in_sandbox(
            git,
            base,
            (SHELL, "-c", command),
            limit=limit,
            environment=env,
            gate=False,
            stdin=task_file,
            hide=hide,
            after=read_tree,
        )
        trace = _collect(aside, TRACE_NAME, existed=False)
        return AgentRun(
            result=run.result,
            commit=seen.get("commit"),
            tree=seen.get("tree", ""),
            trace=trace.data,
            trace_problem=trace.problem,
            snapshot_problem=seen.get("problem"),
        )
    finally:
        shutil.rmtree(aside, ignore_errors=True)

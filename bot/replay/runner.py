"""`receipt replay run`: every task, arm and attempt, interleaved, resumable, every artefact stored.

An attempt whose agent crashed, timed out or never started is an *infrastructure* attempt: stored
with what it left and why, and counted in every denominator as unsolved. An attempt whose receipt
could not be computed is an *error* attempt, likewise kept.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from bot.engine import MAX_MANIFEST_BYTES, ReceiptError, digest_bytes, render_json
from bot.gather import GivenFile
from bot.local.git import Git, GitError
from bot.local.sandbox import caller_directories, minimal_environment
from bot.replay.agent import AgentRun, run_agent
from bot.replay.arms import Arm, read_input
from bot.replay.errors import ReplayError
from bot.replay.progress import Progress
from bot.replay.score import Judging, hidden_tests_tree, score
from bot.replay.store import AttemptKey, RunSpec, Store
from bot.replay.tasks import Task, read_task_set, task_set_digest

DEFAULT_AGENT_TIMEOUT = 30 * 60.0


@dataclass(frozen=True)
class RunOptions:
    tasks_file: Path
    run_dir: Path
    arms: tuple[Arm, ...]
    repo: Path = Path()
    attempts: int = 1
    agent_timeout: float = DEFAULT_AGENT_TIMEOUT
    pass_env: tuple[str, ...] = ()
    manifest: Path | None = None
    environment: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))


@dataclass(frozen=True, slots=True)
class RunSummary:
    total: int
    before: int  # finished before this invocation
    statuses: Mapping[str, int]

    def text(self, run_dir: Path) -> str:
        counts = ", ".join(f"{n} {s}" for s, n in sorted(self.statuses.items()))
        return (
            f"{self.total} attempts finished in {run_dir} ({self.total - self.before} now, "
            f"{self.before} before): {counts or 'none'}\n"
        )


# A task set holds each task's gold patch and hidden tests: a few megabytes for hundreds of tasks.
MAX_TASK_SET_BYTES = 256 << 20


def _check_commits(git: Git, tasks: Sequence[Task]) -> None:
    for task in tasks:
        for sha in (task.base, task.commit):
            try:
                git.resolve(sha)
            except GitError as exc:
                raise ReplayError(f"task {task.id}: commit {sha[:12]} is not in the repository") from exc


def _agent_facts(agent: AgentRun) -> dict[str, Any]:
    result = agent.result
    return {
        "exit_status": result.exit_status,
        "timed_out": result.timed_out,
        "start_error": result.start_error,
        "elapsed_seconds": round(result.elapsed_seconds, 3),
        "isolation": result.isolation,
        "tree": agent.tree,
        "trace_problem": agent.trace_problem,
    }


def run_attempt(store: Store, key: AttemptKey, task: Task, arm: Arm, context: _Context) -> dict[str, int]:
    git = store.git
    env = {
        **minimal_environment(context.environment, [*store.spec["environment"], *arm.env]),
        **arm.variables(),
        "RECEIPT_TASK_ID": task.id,
        "RECEIPT_ARM": arm.name,
        "RECEIPT_ATTEMPT": str(key.attempt),
    }
    agent = run_agent(
        git,
        task.base,
        arm.command,
        task.text,
        message=f"replay {key.label}",
        limit=float(store.spec["agent_timeout_seconds"]),
        environment=env,
        hide=context.judging.hide,
        prompt=arm.prompt.text if arm.prompt is not None else None,
    )
    artefacts: dict[str, tuple[str, bytes]] = {"log": ("agent.log", agent.result.output)}
    if agent.trace is not None:
        artefacts["trace"] = ("trace.jsonl", agent.trace)
    if agent.commit is not None:
        artefacts["patch"] = ("patch.diff", git.diff(task.base, agent.commit, "--binary"))
        artefacts["numstat"] = ("numstat.txt", git.diff(task.base, agent.commit, "--numstat", "-z"))
    body: dict[str, Any] = {"agent": _agent_facts(agent), "commit": agent.commit, "reason": None}
    infrastructure = agent.infrastructure
    if infrastructure is not None:
        body.update(status="infrastructure", reason=infrastructure)
    else:
        assert agent.commit is not None
        try:
            tests_tree = context.tests_tree(git, task)
            receipt = score(git, task, agent.commit, tests_tree, context.judging)
        except ReceiptError as exc:
            body.update(status="error", reason=f"{exc.title}: {exc.problem}")
        else:
            body["status"] = "scored"
            artefacts["receipt"] = ("receipt.json", render_json(receipt.as_json()).encode("utf-8"))
    store.write(key, body, artefacts)
    return {body["status"]: 1}


class _Context:
    def __init__(self, environment: Mapping[str, str], judging: Judging) -> None:
        self.environment = environment
        self.judging = judging
        self._trees: dict[str, str | None] = {}

    def tests_tree(self, git: Git, task: Task) -> str | None:
        if task.id not in self._trees:
            self._trees[task.id] = hidden_tests_tree(git, task)
        return self._trees[task.id]


def run(options: RunOptions, stream: TextIO = sys.stderr) -> RunSummary:
    """Run every attempt not yet finished. Raises ReplayError (or another ReceiptError) for bad input."""
    if options.attempts < 1:
        raise ReplayError("--attempts must be at least 1")
    if options.agent_timeout <= 0:
        raise ReplayError("--agent-timeout must be positive")
    data = read_input(options.tasks_file, "the task set", MAX_TASK_SET_BYTES)
    tasks = read_task_set(data, str(options.tasks_file))
    repo = Git.open(options.repo)
    manifest = None
    if options.manifest is not None:
        manifest = GivenFile(
            str(options.manifest), read_input(options.manifest, "the manifest", MAX_MANIFEST_BYTES)
        )
    spec = RunSpec(
        task_set=task_set_digest(data),
        tasks=len(tasks),
        arms=options.arms,
        attempts=options.attempts,
        agent_timeout_seconds=options.agent_timeout,
        environment=options.pass_env,
        manifest={"name": manifest.name, "digest": digest_bytes(manifest.data)} if manifest else None,
    )
    store = Store.create(options.run_dir.resolve(), spec, data, repo)
    _check_commits(store.git, store.tasks)
    store.clear_partial()
    work_tree, git_dirs = caller_directories(repo)
    hide = (work_tree, *git_dirs, store.root, options.tasks_file.resolve())
    context = _Context(options.environment, Judging(options.environment, tuple(hide), manifest))
    keys = list(store.keys())
    done = {k for k in keys if store.finished(k) is not None}
    progress = Progress(stream, len(keys), len(done))
    statuses: dict[str, int] = {}
    for attempt in store.all_finished():
        statuses[attempt.status] = statuses.get(attempt.status, 0) + 1
    arms = {a.name: a for a in store.arms}
    try:
        for key in keys:
            if key in done:
                continue
            progress.show(key.label)
            for status, count in run_attempt(
                store, key, store.task(key.task), arms[key.arm], context
            ).items():
                statuses[status] = statuses.get(status, 0) + count
            progress.advance(key.label)
    finally:
        progress.close()
    return RunSummary(len(keys), len(done), statuses)

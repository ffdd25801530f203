"""A replay run on disk: what was asked (`run.json`), the task set's bytes, every finished attempt
with its artefacts and their digests, and a git directory holding each attempt's result as a commit.

    RUN/run.json                      the run: task set digest, arms, attempts, limits
    RUN/tasks.jsonl                   the task set, byte for byte
    RUN/git/                          bare repository; its objects borrow the replayed repository's;
                                      refs/replay/ARM/TASK/N names each attempt's commit (kept by gc)
    RUN/attempts/ARM/TASK/N/          one finished attempt: attempt.json and its artefacts

An attempt's directory is written under a temporary name and renamed into place once its record is
on disk, so an attempt is either finished (and never redone) or absent; a run interrupted in the
middle of one starts that one again.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.engine import digest_bytes, digest_of
from bot.local.git import Git
from bot.replay.arms import Arm
from bot.replay.errors import ReplayError
from bot.replay.gitdir import borrow, init, write_atomic
from bot.replay.tasks import Task, read_task_set, task_set_digest

RUN_SCHEMA = "receipt-replay-run/1"
ATTEMPT_SCHEMA = "receipt-replay-attempt/1"
RUN_FILE, TASKS_FILE, ATTEMPT_FILE = "run.json", "tasks.jsonl", "attempt.json"


@dataclass(frozen=True, slots=True)
class RunSpec:
    task_set: str  # the task set's digest
    tasks: int
    arms: tuple[Arm, ...]
    attempts: int
    agent_timeout_seconds: float
    environment: tuple[str, ...]  # names of variables the agents get beside the fixed list
    manifest: Mapping[str, str] | None  # {name, digest} of a --manifest judging every attempt

    def as_json(self) -> dict[str, Any]:
        return {
            "schema": RUN_SCHEMA,
            "task_set": {"digest": self.task_set, "tasks": self.tasks, "file": TASKS_FILE},
            "arms": [a.as_json() for a in self.arms],
            "attempts": self.attempts,
            "agent_timeout_seconds": self.agent_timeout_seconds,
            "environment": list(self.environment),
            "manifest": dict(self.manifest) if self.manifest is not None else None,
        }


@dataclass(frozen=True, slots=True)
class AttemptKey:
    task: str
    arm: str
    attempt: int  # 1-based

    @property
    def label(self) -> str:
        return f"{self.task} / {self.arm} #{self.attempt}"

    def relative(self) -> str:
        return f"attempts/{self.arm}/{self.task}/{self.attempt}"

    @property
    def ref(self) -> str:
        return f"refs/replay/{self.arm}/{self.task}/{self.attempt}"


@dataclass(frozen=True, slots=True)
class Attempt:
    """A finished attempt as stored: its record (digest included) and where its files are."""

    key: AttemptKey
    record: Mapping[str, Any]
    directory: Path

    @property
    def status(self) -> str:
        return str(self.record["status"])

    def artefact(self, name: str) -> bytes | None:
        """An artefact's bytes, verified against the digest its record names (ReplayError if not)."""
        entry = self.record["artefacts"].get(name)
        if entry is None:
            return None
        try:
            data: bytes = (self.directory / str(entry["file"])).read_bytes()
        except OSError as exc:
            raise ReplayError(f"{self.key.label}: cannot read {entry['file']}: {exc.strerror}") from exc
        if digest_bytes(data) != entry["digest"]:
            raise ReplayError(
                f"{self.key.label}: {entry['file']} does not match its digest: the evidence changed"
            )
        return data

    def json_artefact(self, name: str) -> Any:
        data = self.artefact(name)
        return None if data is None else json.loads(data)


def dump(body: Mapping[str, Any]) -> bytes:
    return (json.dumps(body, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _load_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_bytes())
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read {what}: {exc.strerror}") from exc
    except ValueError as exc:
        raise ReplayError(f"{path}: {what} is not JSON: {exc}") from exc


class Store:
    """A run directory. `create` starts or reopens one for a spec; `open` reads one as it is."""

    def __init__(
        self, root: Path, spec: Mapping[str, Any], tasks: tuple[Task, ...], tasks_bytes: bytes
    ) -> None:
        self.root = root
        self.spec = spec
        self.tasks = tasks
        self.tasks_bytes = tasks_bytes
        self.git = Git(root / "git")

    @property
    def arms(self) -> tuple[Arm, ...]:
        return tuple(Arm.from_json(a) for a in self.spec["arms"])

    @property
    def attempts(self) -> int:
        return int(self.spec["attempts"])

    @classmethod
    def create(cls, root: Path, spec: RunSpec, tasks_bytes: bytes, repo: Git) -> Store:
        """Start a run in `root`, or reopen the run there when it was asked for exactly the same."""
        body = spec.as_json()
        if (root / RUN_FILE).exists():
            store = cls.open(root)
            if store.spec != body:
                changed = sorted(k for k in body if body[k] != store.spec.get(k))
                raise ReplayError(
                    f"{root} holds a run with other {', '.join(changed)}: resume it with the same "
                    "tasks, arms and options, or use a new --run-dir"
                )
            store._borrow(repo)
            return store
        try:
            root.mkdir(parents=True, exist_ok=True)
            if any(root.iterdir()):
                raise ReplayError(f"{root}: not empty and not a replay run: use a new --run-dir")
            init(root / "git")
            (root / "attempts").mkdir()
            write_atomic(root / TASKS_FILE, tasks_bytes)
            write_atomic(root / RUN_FILE, dump(body))
        except OSError as exc:
            raise ReplayError(f"{root}: cannot create the run directory: {exc.strerror}") from exc
        store = cls.open(root)
        store._borrow(repo)
        return store

    @classmethod
    def open(cls, root: Path) -> Store:
        spec = _load_json(root / RUN_FILE, "the run")
        if not isinstance(spec, dict) or spec.get("schema") != RUN_SCHEMA:
            raise ReplayError(f"{root / RUN_FILE}: not a replay run (schema {RUN_SCHEMA!r})")
        try:
            data = (root / TASKS_FILE).read_bytes()
        except OSError as exc:
            raise ReplayError(f"{root / TASKS_FILE}: cannot read: {exc.strerror}") from exc
        if task_set_digest(data) != spec["task_set"]["digest"]:
            raise ReplayError(f"{root / TASKS_FILE}: does not match the run's task set digest: it changed")
        return cls(root, spec, read_task_set(data, str(root / TASKS_FILE)), data)

    def _borrow(self, repo: Git) -> None:
        borrow(self.git.root, repo)

    # --- attempts ---------------------------------------------------------------------------------

    def keys(self) -> Iterator[AttemptKey]:
        """Every attempt of the run in the order it runs: attempt by attempt, task by task, the arms
        rotated one place per task and per attempt, so no arm always goes first (interleaved)."""
        arms = [a.name for a in self.arms]
        for attempt in range(1, self.attempts + 1):
            for index, task in enumerate(self.tasks):
                shift = (index + attempt - 1) % len(arms)
                for arm in arms[shift:] + arms[:shift]:
                    yield AttemptKey(task.id, arm, attempt)

    def finished(self, key: AttemptKey) -> Attempt | None:
        directory = self.root / key.relative()
        if not (directory / ATTEMPT_FILE).exists():
            return None
        record = _load_json(directory / ATTEMPT_FILE, "an attempt record")
        if not isinstance(record, dict) or record.get("digest") != digest_of(record):
            raise ReplayError(f"{directory / ATTEMPT_FILE}: the record does not match its digest: it changed")
        if (record.get("task"), record.get("arm"), record.get("attempt")) != (key.task, key.arm, key.attempt):
            raise ReplayError(f"{directory / ATTEMPT_FILE}: the record is of another attempt")
        return Attempt(key, record, directory)

    def write(
        self, key: AttemptKey, body: Mapping[str, Any], artefacts: Mapping[str, tuple[str, bytes]]
    ) -> Attempt:
        """Store a finished attempt: `artefacts` maps a name to (file name, bytes). Its commit, if
        any, gets its ref first: an unreferenced commit is garbage to `git gc`, and the receipt's
        change digest could no longer be checked."""
        if body.get("commit"):
            self.git.run("update-ref", "--no-deref", key.ref, str(body["commit"]), isolated=True)
        final = self.root / key.relative()
        final.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{key.attempt}.partial-"))
        try:
            listed = {}
            for name, (file, data) in sorted(artefacts.items()):
                write_atomic(staging / file, data)
                listed[name] = {"file": file, "digest": digest_bytes(data), "bytes": len(data)}
            record = {
                **body,
                "schema": ATTEMPT_SCHEMA,
                "task": key.task,
                "arm": key.arm,
                "attempt": key.attempt,
                "artefacts": listed,
            }
            record["digest"] = digest_of(record)
            write_atomic(staging / ATTEMPT_FILE, dump(record))
            os.rename(staging, final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return Attempt(key, record, final)

    def clear_partial(self) -> None:
        """Remove what an interrupted run left half-written (never a finished attempt)."""
        for partial in (self.root / "attempts").glob("*/*/.*.partial-*"):
            shutil.rmtree(partial, ignore_errors=True)

    def all_finished(self) -> list[Attempt]:
        return [a for k in self.keys() if (a := self.finished(k)) is not None]

    def task(self, task_id: str) -> Task:
        return next(t for t in self.tasks if t.id == task_id)

"""The fake's state: repositories, pull requests, tokens, check runs, injected faults, a request log."""

from __future__ import annotations

import itertools
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class FakePull:
    repo: str
    number: int
    base_ref: str
    base_sha: str
    head_ref: str
    head_sha: str
    head_repo: str | None
    author: str = "octocat"
    labels: tuple[str, ...] = ()
    state: str = "open"
    title: str = "Change"
    body: str | None = None


@dataclass
class Fault:
    """Answer `times` matching requests with `status` instead of serving them."""

    method: str
    path: str  # a regular expression matched against the whole path
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    times: int = 1


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    accept: str
    body: Any
    status: int


@dataclass
class DiffLimits:
    """GitHub's limits on the diff media type (406 above them) and on the files API's patches."""

    max_files: int = 300
    max_lines: int = 20_000
    max_bytes: int = 1_000_000
    max_patch_bytes: int = 400_000


class FakeGitHub:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.reset()

    def reset(self) -> None:
        with getattr(self, "lock", threading.RLock()):
            self.repos: dict[str, Path] = {}
            self.pulls: dict[tuple[str, int], FakePull] = {}
            self.tokens: dict[str, bool] = {}  # token -> may write
            self.check_runs: dict[int, dict[str, Any]] = {}
            self.annotations: dict[int, list[dict[str, Any]]] = {}
            self.faults: list[Fault] = []
            self.requests: list[Recorded] = []
            self.limits = DiffLimits()
            self.tree_truncated = False
            self.associate_fork_commits = False
            self._ids = itertools.count(4_000_000_001)

    def add_repo(self, full_name: str, path: Path) -> None:
        with self.lock:
            self.repos[full_name] = path

    def add_pull(self, pull: FakePull) -> FakePull:
        with self.lock:
            self.pulls[(pull.repo, pull.number)] = pull
        return pull

    def add_token(self, token: str, *, write: bool = True) -> str:
        with self.lock:
            self.tokens[token] = write
        return token

    def inject(self, fault: Fault) -> None:
        with self.lock:
            self.faults.append(fault)

    def take_fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.times > 0 and fault.method == method and re.fullmatch(fault.path, path):
                    fault.times -= 1
                    return fault
        return None

    def next_id(self) -> int:
        with self.lock:
            return next(self._ids)

    def record(self, entry: Recorded) -> None:
        with self.lock:
            self.requests.append(entry)

    def runs_for(self, head_sha: str, name: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            return [
                r
                for r in self.check_runs.values()
                if r["head_sha"] == head_sha and (name is None or r["name"] == name)
            ]

    def calls(self, method: str, pattern: str) -> list[Recorded]:
        with self.lock:
            return [r for r in self.requests if r.method == method and re.fullmatch(pattern, r.path)]

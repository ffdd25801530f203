"""Tasks: merged changes of a repository, each a base commit, a task text, a gold diff and a test command.

A task set is JSONL, one canonical JSON object a line (sorted keys, no whitespace), so equal tasks
give equal bytes and the set is named by the SHA-256 of its file (`task_set_digest`): results
always name the exact tasks, and editing any task makes a new identity.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.engine import MANIFEST_PATH, ManifestError, ManifestSource, digest_bytes, load_manifest, parse_diff
from bot.engine.globs import matches
from bot.engine.groups import GROUPS
from bot.engine.patterns import PatternStore
from bot.jsonread import JsonInputError, load_json_object
from bot.local.git import Git, GitError
from bot.replay.errors import ReplayError

TASK_SCHEMA = "receipt-replay-task/1"
# Task ids and arm names: directory names of the run and components of its git refs
# (refs/replay/ARM/TASK/N), so nothing git refuses in a ref: no '..', no '.lock' at the end.
NAME = re.compile(r"(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,99}(?<!\.lock)")
NAME_RULE = (
    "letters, digits, '.', '_' or '-' (at most 100, starting with a letter or digit, no '..', "
    "not ending in '.lock')"
)

# Files a merged change adds or changes that the agent does not see: the tests that judge it.
HIDDEN_TESTS = (
    "tests/**", "test/**", "**/tests/**", "**/test/**", "**/__tests__/**", "**/test_*.py",
    "**/*_test.py", "**/*_test.go", "**/*.test.js", "**/*.test.ts", "**/*.spec.js", "**/*.spec.ts",
    "**/src/test/**",
)  # fmt: skip
GENERATED_NAMES = (
    "*.min.js", "*.min.css", "*.map", "*_pb2.py", "*_pb2_grpc.py", "*.pb.go", "*.generated.*",
    "**/generated/**", "**/__generated__/**",
)  # fmt: skip
GENERATED_MARKERS = re.compile(rb"@generated|DO NOT EDIT|Code generated .* DO NOT EDIT|auto-?generated", re.I)
VERSION_FILES = (
    "VERSION", "version.txt", "**/_version.py", "**/__version__.py", "CHANGELOG*", "CHANGES*",
    "HISTORY*", "NEWS*", "RELEASE*",
)  # fmt: skip
# A title that names a version: a keyword and then the version ("Release 1.1.0", "Bump version to
# 0.2.0", "chore(release): v1.2.3"), or a bare x.y.z. A keyword alone is not enough: "Release notes
# ...", "Version negotiation ..." and "Bump the retry limit ..." are real changes.
VERSION_TITLE = re.compile(
    r"(?i)^(?:chore(?:\([\w.-]*\))?!?:\s*)?"
    r"(?:(?:bump|release|prepare\s+release|version)(?:\s+version)?(?:\s+(?:to|for))?\s+v?\d+(?:\.\d+)+"
    r"|v?\d+\.\d+\.\d+)"
)
VERSION_LINE = re.compile(r"(?i)(version|^\s*[\"']?v?\d+\.\d+)")
VERSION_NUMBER = re.compile(r"\d+\.\d+")
_MERGE_PR = re.compile(r"^Merge pull request #(\d+) from (\S+)")
_SQUASH_PR = re.compile(r"^(?P<title>.*\S)\s+\(#(?P<pr>\d+)\)$")
_LOG_FORMAT = "%H%x00%P%x00%B%x1e"

# The rules, in the order they are applied; the first that matches names the skip.
SKIP_RULES = {
    "root": "a root commit: no base to start from",
    "not-text": "its diff is not UTF-8 text",
    "empty": "it changes no file",
    "lockfile-only": "it touches only lockfiles",
    "generated": "it touches only generated files (by name, or a generated marker in the first lines)",
    "version-bump": "a version bump: the title names the version, or only version and changelog files, "
    "or every changed line is a version string",
    "tests-only": "it touches only test files: nothing is left to fix once they are hidden",
    "no-hidden-tests": "it adds or changes no test file: only the base's own tests would judge an "
    "attempt, and they pass without any change (--no-hidden-tests keeps such changes)",
    "no-test-command": "no --test-command and no tests.command in the base commit's manifest",
    "gold-fails": "with --verify: the tests do not pass on the merged change itself",
    "passes-on-base": "with --verify: the tests, hidden tests included, already pass on the base: "
    "an agent that changes nothing would solve it",
}

# The globs replay matches paths against (built-in groups, the options' own), compiled once.
_PATTERNS = PatternStore()


@dataclass(frozen=True, slots=True)
class Task:
    id: str
    base: str
    commit: str
    title: str
    body: str
    gold_patch: str  # the merged change without its hidden tests: the reference for excess
    test_patch: str  # the hidden tests, `git diff --binary`, applied over the agent's result
    hidden_tests: tuple[str, ...]  # every path the test patch touches
    test_command: str
    repo: str | None = None
    pr: int | None = None
    critical: bool = False

    @property
    def text(self) -> str:
        """What the agent is told: the title and the body, as the pull request had them."""
        return self.title + ("\n\n" + self.body if self.body else "") + "\n"

    def as_json(self) -> dict[str, Any]:
        return {
            "schema": TASK_SCHEMA,
            "id": self.id,
            "repo": self.repo,
            "pr": self.pr,
            "base": self.base,
            "commit": self.commit,
            "title": self.title,
            "body": self.body,
            "gold_patch": self.gold_patch,
            "test_patch": self.test_patch,
            "hidden_tests": list(self.hidden_tests),
            "test_command": self.test_command,
            "critical": self.critical,
        }


@dataclass(frozen=True, slots=True)
class Skipped:
    commit: str
    rule: str
    detail: str


@dataclass(frozen=True, slots=True)
class Selection:
    """Which merged changes: the last N first-parent commits of `branch`, PR numbers, or commits."""

    branch: str = "HEAD"
    last: int | None = None
    prs: tuple[int, ...] = ()
    commits: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MineOptions:
    test_command: str | None = None  # `{tests}` becomes the hidden test files, shell-quoted
    hidden_tests: tuple[str, ...] = HIDDEN_TESTS
    critical: tuple[str, ...] = ()  # task ids marked critical
    repo: str | None = None


@dataclass(frozen=True, slots=True)
class _Commit:
    sha: str
    parents: tuple[str, ...]
    message: str


@dataclass(frozen=True, slots=True)
class Candidate:
    """A merged change after the skip rules: a task, or why not."""

    commit: _Commit
    task: Task | None = None
    skipped: Skipped | None = None


def canonical_line(body: dict[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"


def task_set_bytes(tasks: Sequence[Task]) -> bytes:
    return b"".join(canonical_line(t.as_json()) for t in tasks)


def task_set_digest(data: bytes) -> str:
    return digest_bytes(data)


# --- reading --------------------------------------------------------------------------------------


def check_name(value: str, what: str) -> str:
    if not NAME.fullmatch(value):
        raise ReplayError(f"{what} {value!r}: use {NAME_RULE}")
    return value


def _field(row: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = row.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ReplayError(f"{where}: {key!r} must be {names}")
    return value


def parse_task(row: Any, where: str) -> Task:
    if not isinstance(row, dict):
        raise ReplayError(f"{where}: a task is a JSON object")
    if row.get("schema") != TASK_SCHEMA:
        raise ReplayError(f"{where}: schema must be {TASK_SCHEMA!r}, not {row.get('schema')!r}")
    task_id = _field(row, "id", str, where)
    if not NAME.fullmatch(task_id):
        raise ReplayError(f"{where}: id {task_id!r} must be {NAME_RULE}")
    hidden = _field(row, "hidden_tests", list, where)
    if not all(isinstance(p, str) for p in hidden):
        raise ReplayError(f"{where}: 'hidden_tests' must be a list of paths")
    for key in ("base", "commit"):
        if not re.fullmatch(r"[0-9a-f]{40}", _field(row, key, str, where)):
            raise ReplayError(f"{where}: {key!r} must be a full 40-hex commit SHA")
    pr = row.get("pr")
    if pr is not None and (not isinstance(pr, int) or isinstance(pr, bool)):
        raise ReplayError(f"{where}: 'pr' must be a number or null")
    repo = row.get("repo")
    if repo is not None and not isinstance(repo, str):
        raise ReplayError(f"{where}: 'repo' must be a string or null")
    command = _field(row, "test_command", str, where)
    if not command.strip():
        raise ReplayError(f"{where}: 'test_command' is empty")
    known = set(Task.__slots__) | {"schema"}
    unknown = sorted(set(row) - known)
    if unknown:
        raise ReplayError(f"{where}: unknown key {unknown[0]!r}")
    return Task(
        id=task_id,
        base=row["base"],
        commit=row["commit"],
        title=_field(row, "title", str, where),
        body=_field(row, "body", str, where),
        gold_patch=_field(row, "gold_patch", str, where),
        test_patch=_field(row, "test_patch", str, where),
        hidden_tests=tuple(hidden),
        test_command=command,
        repo=repo,
        pr=pr,
        critical=_field(row, "critical", bool, where),
    )


def read_task_set(data: bytes, name: str) -> tuple[Task, ...]:
    """Every task of a JSONL task set; a ReplayError naming the file and line for anything wrong."""
    tasks: list[Task] = []
    seen: set[str] = set()
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        try:
            row = load_json_object(line, where)
        except JsonInputError as exc:
            raise ReplayError(exc.problem) from exc
        task = parse_task(row, where)
        if task.id in seen:
            raise ReplayError(f"{where}: task id {task.id!r} appears twice")
        seen.add(task.id)
        tasks.append(task)
    if not tasks:
        raise ReplayError(f"{name}: no tasks")
    return tuple(tasks)


# --- mining ---------------------------------------------------------------------------------------


def _log(git: Git, *args: str) -> list[_Commit]:
    out = git.run("log", f"--format={_LOG_FORMAT}", *args).decode("utf-8", "replace")
    found = []
    for chunk in out.split("\x1e"):
        record = chunk.lstrip("\n")
        if not record:
            continue
        sha, parents, message = record.split("\x00", 2)
        found.append(_Commit(sha, tuple(parents.split()), message))
    return found


def select_commits(git: Git, selection: Selection) -> list[_Commit]:
    if selection.commits:
        shas = [git.resolve(c) for c in selection.commits]
        return [c for sha in shas for c in _log(git, "--no-walk=unsorted", "--end-of-options", sha)]
    branch = git.resolve(selection.branch)
    if selection.prs:
        wanted = set(selection.prs)
        picked = [c for c in _log(git, "--first-parent", "--end-of-options", branch) if _pr_of(c) in wanted]
        missing = sorted(wanted - {_pr_of(c) for c in picked})
        if missing:
            raise ReplayError(
                f"no merged change for pull request #{missing[0]} on the first-parent history of "
                f"{selection.branch}"
            )
        return picked
    count = selection.last if selection.last is not None else 20
    return _log(git, "--first-parent", f"--max-count={count}", "--end-of-options", branch)


def _pr_of(commit: _Commit) -> int | None:
    return parse_message(commit.message)[2]


def parse_message(message: str) -> tuple[str, str, int | None]:
    """(title, body, pull request number) of a merge or squash commit as GitHub writes them."""
    lines = message.strip().splitlines() or [""]
    first = lines[0].strip()
    merge = _MERGE_PR.match(first)
    if merge:
        rest = "\n".join(lines[1:]).strip().splitlines()
        title = rest[0].strip() if rest else merge[2]
        return title, "\n".join(rest[1:]).strip(), int(merge[1])
    squash = _SQUASH_PR.match(first)
    body = "\n".join(lines[1:]).strip()
    if squash:
        return squash["title"], body, int(squash["pr"])
    return first, body, None


def _changed_lines(diff: bytes) -> list[bytes]:
    return [
        line[1:]
        for line in diff.split(b"\n")
        if line[:1] in (b"+", b"-") and not line.startswith((b"+++ ", b"--- ")) and line[1:].strip()
    ]


def _is_generated(git: Git, commit: str, path: str) -> bool:
    if matches(GENERATED_NAMES, path, _PATTERNS):
        return True
    data = git.read_file(commit, path)
    head = b"\n".join((data or b"").split(b"\n")[:5])
    return GENERATED_MARKERS.search(head) is not None


def _skip_reason(
    git: Git, commit: _Commit, paths: list[str], hidden: list[str], *, diff: bytes, title: str
) -> tuple[str, str] | None:
    if not paths:
        return "empty", ""
    if all(matches(GROUPS["lockfiles"], p, _PATTERNS) for p in paths):
        return "lockfile-only", ", ".join(paths[:3])
    if all(_is_generated(git, commit.sha, p) for p in paths):
        return "generated", ", ".join(paths[:3])
    if is_version_title(title):
        return "version-bump", f"title {title!r}"
    if all(matches(VERSION_FILES, p, _PATTERNS) for p in paths):
        return "version-bump", ", ".join(paths[:3])
    lines = _changed_lines(diff)
    if lines and all(VERSION_LINE.search(t.decode("utf-8", "replace")) and VERSION_NUMBER.search(
        t.decode("utf-8", "replace")
    ) for t in lines):  # fmt: skip
        return "version-bump", "every changed line is a version string"
    if len(hidden) == len(paths):
        return "tests-only", ", ".join(paths[:3])
    return None


def _test_command(git: Git, base: str, given: str | None) -> tuple[str | None, str]:
    if given is not None:
        return given, ""
    try:
        loaded = load_manifest(git.read_file(base, MANIFEST_PATH), MANIFEST_PATH, ManifestSource.BASE)
    except ManifestError as exc:
        return None, f"the base manifest is invalid ({len(exc.issues)} problem(s))"
    return loaded.manifest.tests.command, ""


def is_version_title(title: str) -> bool:
    return VERSION_TITLE.match(title.strip()) is not None


def _task_id(commit: _Commit, pr: int | None, used: set[str]) -> str:
    wanted = f"pr-{pr}" if pr is not None else f"commit-{commit.sha[:12]}"
    return wanted if wanted not in used else f"{wanted}-{commit.sha[:12]}"


def candidate(git: Git, commit: _Commit, options: MineOptions, used: set[str]) -> Candidate:
    """One merged change as a task, or the rule that skips it (all but `gold-fails`)."""
    if not commit.parents:
        return Candidate(commit, skipped=Skipped(commit.sha, "root", ""))
    base = commit.parents[0]
    diff = git.diff(base, commit.sha)
    try:
        text = diff.decode("utf-8")
    except UnicodeDecodeError:
        return Candidate(commit, skipped=Skipped(commit.sha, "not-text", ""))
    files = parse_diff(diff).files
    paths = [p for f in files for p in f.paths]
    hidden_files = [f for f in files if any(matches(options.hidden_tests, p, _PATTERNS) for p in f.paths)]
    hidden = [p for f in hidden_files for p in f.paths]
    title, body, pr = parse_message(commit.message)
    reason = _skip_reason(git, commit, paths, hidden, diff=diff, title=title)
    if reason is not None:
        return Candidate(commit, skipped=Skipped(commit.sha, *reason))
    present = [f.new_path for f in hidden_files if f.new_path is not None]
    if options.hidden_tests and not present:
        detail = f"deletes {', '.join(hidden[:3])}" if hidden else ""
        return Candidate(commit, skipped=Skipped(commit.sha, "no-hidden-tests", detail))
    command, problem = _test_command(git, base, options.test_command)
    if not command:
        return Candidate(commit, skipped=Skipped(commit.sha, "no-test-command", problem))
    command = command.replace("{tests}", " ".join(shlex.quote(p) for p in present))
    gold_paths = [p for f in files if f not in hidden_files for p in f.paths]
    gold = text if not hidden else git.diff(base, commit.sha, paths=gold_paths).decode("utf-8")
    tests = git.diff(base, commit.sha, "--binary", paths=hidden).decode("utf-8") if hidden else ""
    task_id = _task_id(commit, pr, used)
    used.add(task_id)
    task = Task(
        id=task_id,
        base=base,
        commit=commit.sha,
        title=title,
        body=body,
        gold_patch=gold,
        test_patch=tests,
        hidden_tests=tuple(dict.fromkeys(hidden)),
        test_command=command,
        repo=options.repo,
        pr=pr,
        critical=task_id in options.critical,
    )
    return Candidate(commit, task=task)


def mine(git: Git, selection: Selection, options: MineOptions) -> list[Candidate]:
    """The selected merged changes, oldest first, each a task or a skip."""
    commits = select_commits(git, selection)
    if not selection.commits:
        commits.reverse()
    used: set[str] = set()
    try:
        return [candidate(git, c, options, used) for c in commits]
    except GitError as exc:
        raise ReplayError(f"reading the history: {exc.problem}") from exc

"""How an agent worked, from the trace it wrote: a small reader per format, one set of numbers for all.

A reader turns a format's events into `Action`s (read a file, edit a file through a tool, run a
command); the numbers are computed from actions alone, so a new agent needs only a reader.
Supported: Codex `exec --json` (JSONL of `item.*` events) and Claude Code
`--output-format stream-json` (`assistant` tool_use blocks and `user` tool_result blocks).
The format is recognised from the events themselves.

Reads through a shell (`cat`, `sed -n`, `head`, `grep`, `rg` …) count as reads of the files they
name; edits count only when made through the agent's edit tools (Codex `file_change`, Claude
`Edit`/`MultiEdit`/`Write`/`NotebookEdit`), so a file changed by a shell command is outside them.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from bot.jsonread import JsonInputError, json_object

READ_PROGRAMS = {
    "cat",
    "head",
    "tail",
    "nl",
    "less",
    "more",
    "bat",
    "view",
    "sed",
    "grep",
    "rg",
    "egrep",
    "fgrep",
}
_PATTERN_FIRST = {"grep", "rg", "egrep", "fgrep", "sed"}  # their first operand is a pattern or script
TEST_PROGRAMS = re.compile(
    r"(^|[\s/;&|(])(pytest|py\.test|tox|nox|jest|vitest|rspec|phpunit|ctest)(?=[\s;&|)]|$)"
    r"|-m\s+(pytest|unittest)\b|\b(go|cargo|dotnet|swift|mix)\s+test\b|\b(npm|yarn|pnpm)\s+(run\s+)?test\b"
    r"|\bmake\s+(test|check)\b|\b(mvn|gradle|\./gradlew)\b.*\btest\b"
)
INSTALLS = re.compile(r"\b(pip3?|uv|poetry|npm|yarn|pnpm|apt-get|apt|brew|conda)\s+(install|add)\b")
REVERT_COMMANDS = re.compile(r"\bgit\s+(checkout\s+(--\s+)?\S|restore\b|reset\s+--hard\b|stash\b)")


@dataclass(frozen=True, slots=True)
class Action:
    kind: str  # "read", "edit" or "command"
    path: str | None = None
    command: str | None = None
    failed: bool | None = None  # a command's outcome, when the trace tells
    old: str | None = None  # an edit's replaced and replacing text, when the trace tells
    new: str | None = None


class TraceReader(Protocol):
    name: str

    def recognizes(self, event: Mapping[str, Any]) -> bool: ...

    def actions(self, events: Sequence[Mapping[str, Any]]) -> list[Action]: ...


def _unwrap(command: str) -> str:
    """`bash -lc 'X'` → X (Codex wraps every command so)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if (
        len(words) >= 3
        and posixpath.basename(words[0]) in ("bash", "sh", "zsh")
        and words[1] in ("-c", "-lc")
    ):
        return words[2]
    return command


def command_reads(command: str) -> list[str]:
    """The files a shell command reads with the usual viewing tools."""
    try:
        lexer = shlex.shlex(_unwrap(command), posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return []
    found: list[str] = []
    simple: list[list[str]] = [[]]
    for word in words:
        if word and set(word) <= set(";&|()<>"):
            simple.append([])
        else:
            simple[-1].append(word)
    for argv in simple:
        if not argv or posixpath.basename(argv[0]) not in READ_PROGRAMS:
            continue
        program = posixpath.basename(argv[0])
        if program == "sed" and any(a.startswith("-i") or a == "--in-place" for a in argv[1:]):
            continue
        operands = [a for a in argv[1:] if not a.startswith("-")]
        scripted = program in _PATTERN_FIRST and not any(a in ("-e", "-f") for a in argv[1:])
        found.extend(operands[1:] if scripted else operands)
    return found


class CodexReader:
    name = "codex"

    def recognizes(self, event: Mapping[str, Any]) -> bool:
        kind = event.get("type")
        return kind in ("thread.started", "turn.started") or (
            isinstance(kind, str) and kind.startswith("item.") and isinstance(event.get("item"), dict)
        )

    def actions(self, events: Sequence[Mapping[str, Any]]) -> list[Action]:
        found: list[Action] = []
        for event in events:
            item = event.get("item")
            if event.get("type") != "item.completed" or not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind == "command_execution" and isinstance(item.get("command"), str):
                command = item["command"]
                code = item.get("exit_code")
                failed = None if not isinstance(code, int) else code != 0
                found.extend(Action("read", path=p) for p in command_reads(command))
                found.append(Action("command", command=command, failed=failed))
            elif kind == "file_change" and item.get("status") != "failed":
                for change in item.get("changes") or []:
                    if isinstance(change, dict) and isinstance(change.get("path"), str):
                        found.append(Action("edit", path=change["path"]))
            elif kind == "mcp_tool_call" and isinstance(item.get("arguments"), dict):
                path = item["arguments"].get("path")
                if isinstance(path, str) and "read" in str(item.get("tool", "")):
                    found.append(Action("read", path=path))
        return found


class ClaudeReader:
    name = "claude"
    _EDITS: ClassVar[dict[str, str]] = {
        "Edit": "file_path",
        "MultiEdit": "file_path",
        "Write": "file_path",
        "NotebookEdit": "notebook_path",
    }

    def recognizes(self, event: Mapping[str, Any]) -> bool:
        message = event.get("message")
        return (event.get("type") == "system" and event.get("subtype") == "init") or (
            event.get("type") in ("assistant", "user") and isinstance(message, dict) and "content" in message
        )

    def _blocks(self, event: Mapping[str, Any]) -> list[dict[str, Any]]:
        message = event.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []

    def actions(self, events: Sequence[Mapping[str, Any]]) -> list[Action]:
        failed: dict[str, bool] = {}
        for event in events:
            if event.get("type") == "user":
                for block in self._blocks(event):
                    if block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                        failed[block["tool_use_id"]] = bool(block.get("is_error"))
        found: list[Action] = []
        for event in events:
            if event.get("type") != "assistant":
                continue
            for block in self._blocks(event):
                if block.get("type") != "tool_use" or not isinstance(block.get("input"), dict):
                    continue
                name, given, use = block.get("name"), block["input"], block.get("id")
                outcome = failed.get(use) if isinstance(use, str) else None
                if name == "Read" and isinstance(given.get("file_path"), str):
                    found.append(Action("read", path=given["file_path"]))
                elif name in self._EDITS and isinstance(given.get(self._EDITS[str(name)]), str):
                    if outcome:
                        continue  # the tool refused the edit: nothing changed
                    old, new = given.get("old_string"), given.get("new_string")
                    found.append(
                        Action(
                            "edit",
                            path=given[self._EDITS[str(name)]],
                            old=old if isinstance(old, str) else None,
                            new=new if isinstance(new, str) else None,
                        )
                    )
                elif name == "Bash" and isinstance(given.get("command"), str):
                    found.extend(Action("read", path=p) for p in command_reads(given["command"]))
                    found.append(Action("command", command=given["command"], failed=outcome))
        return found


READERS: tuple[TraceReader, ...] = (CodexReader(), ClaudeReader())


@dataclass(frozen=True, slots=True)
class Trace:
    format: str
    actions: tuple[Action, ...]
    skipped_lines: int  # lines that were not JSON objects


def parse_events(data: bytes) -> tuple[list[dict[str, Any]], int]:
    events: list[dict[str, Any]] = []
    skipped = 0
    for line in data.decode("utf-8", "replace").splitlines():
        if not line.strip():
            continue
        try:
            events.append(json_object(line, "a trace line"))
        except JsonInputError:  # not JSON, too deep, or not an object
            skipped += 1
    return events, skipped


def read_trace(data: bytes, root: str) -> Trace | None:
    """The trace's actions with paths relative to the agent's tree `root`; None when no reader knows it."""
    events, skipped = parse_events(data)
    for reader in READERS:
        if any(reader.recognizes(e) for e in events[:20]):
            actions = tuple(_relative(a, root) for a in reader.actions(events))
            return Trace(reader.name, actions, skipped)
    return None


def _relative(action: Action, root: str) -> Action:
    if action.path is None:
        return action
    path = action.path
    if posixpath.isabs(path):
        prefix = root.rstrip("/") + "/"
        path = path[len(prefix) :] if root and path.startswith(prefix) else path
    path = posixpath.normpath(path)
    return Action(action.kind, path, action.command, action.failed, action.old, action.new)


@dataclass(frozen=True, slots=True)
class TraceMetrics:
    format: str
    edits: int
    test_runs: int
    failed_test_runs: int
    read_before_edit: float | None  # share of modified files read before their first edit
    tests_after_last_edit: bool | None  # a test run after the last tool edit (None: no edit)
    edits_per_failed_test_run: float | None  # edits after a failed run, before the next run, on average
    reverted_after_failure: bool | None  # None: no test run failed
    diff_within_tool_edits: bool  # every file of the final diff was edited through the agent's tools
    outside_tool_edits: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "edits": self.edits,
            "test_runs": self.test_runs,
            "failed_test_runs": self.failed_test_runs,
            "read_before_edit": self.read_before_edit,
            "tests_after_last_edit": self.tests_after_last_edit,
            "edits_per_failed_test_run": self.edits_per_failed_test_run,
            "reverted_after_failure": self.reverted_after_failure,
            "diff_within_tool_edits": self.diff_within_tool_edits,
            "outside_tool_edits": list(self.outside_tool_edits),
        }


def is_test_command(command: str, test_command: str) -> bool:
    inner = _unwrap(command)
    return (test_command.strip() != "" and test_command.strip() in inner) or TEST_PROGRAMS.search(
        inner
    ) is not None


def measure(
    trace: Trace, final_paths: Sequence[str], created: Sequence[str], test_command: str
) -> TraceMetrics:
    """The per-attempt numbers: `final_paths` are the files of the attempt's diff, `created` those it adds."""
    actions = trace.actions
    edits = [i for i, a in enumerate(actions) if a.kind == "edit"]
    tests = [
        i
        for i, a in enumerate(actions)
        if a.kind == "command" and is_test_command(a.command or "", test_command)
    ]
    failed = [i for i in tests if actions[i].failed]
    new = set(created)
    first_edit: dict[str, int] = {}
    for i in edits:
        first_edit.setdefault(actions[i].path or "", i)
    modified = {p: i for p, i in first_edit.items() if p not in new}
    read_first = [
        p for p, i in modified.items() if any(a.kind == "read" and a.path == p for a in actions[:i])
    ]
    after_failure: list[int] = []
    for i in failed:
        following = next((t for t in tests if t > i), len(actions))
        after_failure.append(sum(1 for e in edits if i < e < following))
    reverted = None
    if failed:
        reverted = any(_reverts(actions, i) for i in range(failed[0] + 1, len(actions)))
    edited = {actions[i].path for i in edits}
    outside = tuple(sorted(p for p in final_paths if p not in edited))
    return TraceMetrics(
        format=trace.format,
        edits=len(edits),
        test_runs=len(tests),
        failed_test_runs=len(failed),
        read_before_edit=len(read_first) / len(modified) if modified else None,
        tests_after_last_edit=any(t > edits[-1] for t in tests) if edits else None,
        edits_per_failed_test_run=sum(after_failure) / len(after_failure) if after_failure else None,
        reverted_after_failure=reverted,
        diff_within_tool_edits=not outside,
        outside_tool_edits=outside,
    )


def _reverts(actions: Sequence[Action], index: int) -> bool:
    """A revert: a git command that throws work away, or an edit undoing an earlier one exactly."""
    action = actions[index]
    if action.kind == "command":
        return REVERT_COMMANDS.search(_unwrap(action.command or "")) is not None
    if action.kind != "edit" or action.old is None or action.new is None:
        return False
    return any(
        a.kind == "edit" and a.path == action.path and a.old == action.new and a.new == action.old
        for a in actions[:index]
    )

"""The trace readers on each format's own shapes, and the numbers near their edges."""

from __future__ import annotations

import json

from bot.replay.traces import command_reads, is_test_command, measure, read_trace


def _lines(*events: object) -> bytes:
    return "".join(json.dumps(e) + "\n" for e in events).encode()


def test_shell_reads() -> None:
    assert command_reads("bash -lc 'cat a.py && sed -n 1,20p b.py | head'") == ["a.py", "b.py"]
    assert command_reads("rg -n task_func src/x.py") == ["src/x.py"]
    assert command_reads("sed -i s/a/b/ c.py") == []  # an edit, not a read
    assert command_reads("ls src; python -m pytest") == []
    assert command_reads("cat 'unterminated") == []


def test_test_commands() -> None:
    assert is_test_command("bash -lc 'python -m pytest -q'", "")
    assert is_test_command("go test ./...", "") and is_test_command("npm run test", "")
    assert is_test_command("./check.sh", "./check.sh")
    assert not is_test_command("cat tests/test_x.py", "") and not is_test_command(
        "pip install pytest-cov", ""
    )


def test_codex_failed_patches_and_unknown_items_are_not_edits() -> None:
    data = _lines(
        {"type": "thread.started", "thread_id": "t"},
        {
            "type": "item.completed",
            "item": {
                "type": "file_change",
                "changes": [{"path": "/w/tree/a.py", "kind": "update"}],
                "status": "failed",
            },
        },
        {"type": "item.completed", "item": {"type": "reasoning", "text": "hm"}},
        {
            "type": "item.started",
            "item": {"type": "command_execution", "command": "pytest", "exit_code": None},
        },
        {
            "type": "item.completed",
            "item": {"type": "command_execution", "command": "pytest", "exit_code": 2},
        },
    )
    trace = read_trace(data, "/w/tree")
    assert trace is not None and trace.format == "codex"
    metrics = measure(trace, ["a.py"], [], "")
    assert (metrics.edits, metrics.test_runs, metrics.failed_test_runs) == (0, 1, 1)
    assert metrics.tests_after_last_edit is None and metrics.outside_tool_edits == ("a.py",)
    assert metrics.edits_per_failed_test_run == 0.0 and metrics.reverted_after_failure is False


def test_claude_refused_edits_new_files_and_git_reverts() -> None:
    def use(i: int, name: str, **given: object) -> dict[str, object]:
        return {
            "type": "assistant",
            "message": {"content": [{"type": "tool_use", "id": f"u{i}", "name": name, "input": given}]},
        }

    def result(i: int, error: bool) -> dict[str, object]:
        return {
            "type": "user",
            "message": {"content": [{"type": "tool_result", "tool_use_id": f"u{i}", "is_error": error}]},
        }

    data = _lines(
        {"type": "system", "subtype": "init", "cwd": "/w/tree"},
        use(1, "Write", file_path="/w/tree/new.py", content="x = 1\n"),
        result(1, False),
        use(2, "Edit", file_path="/w/tree/old.py", old_string="a", new_string="b"),
        result(2, True),
        use(3, "Bash", command="pytest -q"),
        result(3, True),
        use(4, "Bash", command="git checkout -- old.py"),
        result(4, False),
    )
    trace = read_trace(data, "/w/tree")
    assert trace is not None and trace.format == "claude"
    metrics = measure(trace, ["new.py"], ["new.py"], "pytest -q")
    assert metrics.edits == 1  # the refused edit changed nothing
    assert metrics.read_before_edit is None  # a created file needs no reading first
    assert metrics.reverted_after_failure is True and metrics.diff_within_tool_edits is True


def test_an_unknown_format_is_no_trace() -> None:
    assert read_trace(b'{"event": "something else"}\nplain text\n', "/w") is None

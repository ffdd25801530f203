from __future__ import annotations

import io
from pathlib import Path

from action.runner import (
    annotation_commands,
    append_summary,
    command,
    commands_stopped,
    escape_data,
    escape_property,
    fit_bytes,
    write_outputs,
)
from bot.engine.findings import Severity
from bot.engine.render.annotations import Annotation, Level
from tests.action.scenario import read_outputs


def test_escaping_follows_the_workflow_command_rules() -> None:
    assert escape_data("100%\r\nnext") == "100%25%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert (
        command("error", "bad\nthing", file="x,y:z.py", line=3, col=None)
        == "::error file=x%2Cy%3Az.py,line=3::bad%0Athing"
    )


def _annotation(n: int, level: Level, severity: Severity) -> Annotation:
    return Annotation(f"f{n}.py", n, n, level, "t", "m", severity)


def test_at_most_ten_per_level_most_severe_first() -> None:
    found = [_annotation(n, Level.NOTICE, Severity.NOTICE) for n in range(12)]
    found += [_annotation(n, Level.FAILURE, Severity.FAILURE) for n in range(15)]
    found += [_annotation(99, Level.FAILURE, Severity.CRITICAL)]
    out = annotation_commands(found)
    assert out.lines[0].startswith("::error file=f99.py")
    assert sum(line.startswith("::error ") for line in out.lines) == 10
    assert sum(line.startswith("::notice ") for line in out.lines) == 10
    assert out.left_out == 28 - 20


def test_stop_commands_wraps_untrusted_text() -> None:
    stream = io.StringIO()
    with commands_stopped(stream):
        stream.write("::set-output name=x::y\n")
    first, _, last = stream.getvalue().splitlines()
    token = first.removeprefix("::stop-commands::")
    assert len(token) == 32 and last == f"::{token}::"


def test_outputs_survive_newlines_and_delimiter_lookalikes(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_outputs(target, {"a": "one\ntwo", "b": "ghadelimiter_x", "c": ""})
    assert read_outputs(target) == {"a": "one\ntwo", "b": "ghadelimiter_x", "c": ""}
    write_outputs(None, {"a": "b"})


def test_summary_stays_under_the_limit_without_splitting_characters(tmp_path: Path) -> None:
    target = tmp_path / "summary.md"
    append_summary(target, "é" * 100, limit=150)
    append_summary(target, "more", limit=150)
    assert len(target.read_bytes()) <= 150
    target.read_text(encoding="utf-8")
    assert fit_bytes("short", 100) == "short"
    append_summary(None, "x")

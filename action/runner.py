"""The runner's side channels: workflow commands, step outputs and the job summary.

Escaping follows GitHub's workflow-command rules: in data `%`, CR and LF are percent-encoded;
in property values `:` and `,` are too. Text from a pull request that is printed to the log goes
inside a stop-commands block so that no file name can issue a command.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from bot.engine import Annotation, Level

SUMMARY_LIMIT_BYTES = 1024 * 1024
ANNOTATIONS_PER_LEVEL = 10
_COMMAND_OF = {Level.FAILURE: "error", Level.WARNING: "warning", Level.NOTICE: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str = "", **properties: str | int | None) -> str:
    """One workflow command line: `::name key=value,...::message`."""
    props = ",".join(f"{k}={escape_property(str(v))}" for k, v in properties.items() if v is not None)
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


@dataclass(frozen=True, slots=True)
class AnnotationCommands:
    lines: tuple[str, ...]
    left_out: int


def annotation_commands(
    annotations: Sequence[Annotation], per_level: int = ANNOTATIONS_PER_LEVEL
) -> AnnotationCommands:
    """Workflow-command annotations, most severe first, at most `per_level` of each level.

    GitHub shows at most 10 errors and 10 warnings (and 10 notices) per step and drops the rest.
    """
    shown: dict[Level, int] = {}
    lines: list[str] = []
    for a in sorted(annotations, key=lambda a: -a.severity):
        if shown.get(a.level, 0) >= per_level:
            continue
        shown[a.level] = shown.get(a.level, 0) + 1
        lines.append(
            command(
                _COMMAND_OF[a.level],
                a.message,
                file=a.path,
                line=a.start_line,
                endLine=a.end_line,
                title=a.title,
            )
        )
    return AnnotationCommands(tuple(lines), len(annotations) - len(lines))


@contextmanager
def commands_stopped(stream: TextIO) -> Iterator[None]:
    """Nothing printed inside is read as a workflow command (`::stop-commands::`)."""
    token = secrets.token_hex(16)
    stream.write(f"::stop-commands::{token}\n")
    try:
        yield
    finally:
        stream.write(f"::{token}::\n")


def _delimiter(values: Iterable[str]) -> str:
    while True:
        candidate = f"ghadelimiter_{secrets.token_hex(16)}"
        if not any(candidate in v for v in values):
            return candidate


def write_outputs(path: Path | None, outputs: Mapping[str, str]) -> None:
    """Append step outputs to GITHUB_OUTPUT in the multi-line-safe `name<<DELIMITER` form."""
    if path is None:
        return
    delimiter = _delimiter(outputs.values())
    with path.open("a", encoding="utf-8") as handle:
        for name, value in outputs.items():
            handle.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def fit_bytes(markdown: str, limit: int) -> str:
    """`markdown` cut to at most `limit` UTF-8 bytes (with a note), never inside a character."""
    data = markdown.encode("utf-8")
    if len(data) <= limit:
        return markdown
    note = "\n\n_… cut to fit GitHub's 1 MiB job-summary limit; the receipt JSON has everything._\n"
    room = limit - len(note.encode("utf-8"))
    if room <= 0:
        return data[: max(0, limit)].decode("utf-8", "ignore")
    return data[:room].decode("utf-8", "ignore") + note


def append_summary(path: Path | None, markdown: str, limit: int = SUMMARY_LIMIT_BYTES) -> None:
    """Append to GITHUB_STEP_SUMMARY, keeping the step's summary under GitHub's 1 MiB."""
    if path is None:
        return
    used = path.stat().st_size if path.exists() else 0
    text = fit_bytes(markdown if markdown.endswith("\n") else markdown + "\n", limit - used)
    if not text:
        return
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)

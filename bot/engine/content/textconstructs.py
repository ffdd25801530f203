"""Dangerous constructs in JavaScript/TypeScript and shell, found line by line in added text.

These languages have no parser in the engine, so each pattern is a regex over the hunk's added text
and a match is dropped when the text before it on its line opens a comment or leaves a string open
(`linescan.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from bot.engine.content.added import AddedFile, Fragment
from bot.engine.content.filekinds import Kind
from bot.engine.content.linescan import LineScan
from bot.engine.content.patternset import PatternSet
from bot.engine.regex import compile_re2


@dataclass(frozen=True, slots=True)
class TextConstruct:
    """`regex` captures the construct itself in group 1; `needs` must occur in the file's text."""

    id: str
    kinds: frozenset[Kind]
    regex: str
    message: str
    needs: str | None = None


_JS = frozenset({Kind.JAVASCRIPT})
_SHELLISH = frozenset({Kind.SHELL, Kind.DOCKERFILE, Kind.MAKEFILE, Kind.CI})
_SHELL_NAME = r"(?:/usr)?(?:/bin/)?(?:ba|z|k|da|fi)?sh\b"

TEXT_CONSTRUCTS: tuple[TextConstruct, ...] = (
    TextConstruct(
        "js-eval",
        _JS,
        r"(?m)(?:^|[^\w$.])(eval)\s*\(",
        "eval() runs a string as JavaScript: code injection if any part of it comes from outside. "
        "Parse data with JSON.parse, or call the code directly.",
    ),
    TextConstruct(
        "js-new-function",
        _JS,
        r"\b(new\s+Function)\s*\(",
        "new Function(...) compiles a string into code, as eval() does: code injection if any part "
        "of it comes from outside. Call the code directly.",
    ),
    TextConstruct(
        "js-child-process-exec",
        _JS,
        r"\b((?:child_process|childProcess|cp)\s*\.\s*exec(?:Sync)?)\s*\(\s*\x60[^\x60]*\$\{",
        "child_process exec with a template string runs an interpolated command through the shell: "
        "shell injection. Use execFile or spawn with an array of arguments.",
    ),
    TextConstruct(
        "js-child-process-exec",
        _JS,
        r"(?m)(?:^|[^\w$.])(exec(?:Sync)?)\s*\(\s*\x60[^\x60]*\$\{",
        "exec with a template string runs an interpolated command through the shell: shell "
        "injection. Use execFile or spawn with an array of arguments.",
        needs=r"child_process",
    ),
    TextConstruct(
        "shell-eval",
        frozenset({Kind.SHELL}),
        r"(?m)(?:^|[;&|({\x60]|\$\(|\bthen\b|\bdo\b|\belse\b)[ \t]*(eval)\b",
        "eval runs its arguments as shell code, expanded twice: injection if any part comes from "
        "outside. Call the command directly, with arrays for argument lists.",
    ),
    TextConstruct(
        "shell-pipe-to-shell",
        _SHELLISH,
        r"\b((?:curl|wget)\b[^|\n]*\|[ \t]*(?:sudo[ \t]+(?:-\S+[ \t]+)*)?" + _SHELL_NAME + ")",
        "Piping a download into a shell runs whatever the server sends, unreviewed and unpinned. "
        "Download to a file, verify its checksum or signature, then run it.",
    ),
    TextConstruct(
        "shell-pipe-to-shell",
        _SHELLISH,
        r"\b((?:ba|z|k)?sh[ \t]+(?:-\S+[ \t]+)*(?:<\(|[\"']?\$\()[ \t]*(?:curl|wget)\b)",
        "Running a downloaded script straight from a shell runs whatever the server sends, "
        "unreviewed and unpinned. Download to a file, verify its checksum or signature, then run it.",
    ),
)


@dataclass(frozen=True, slots=True)
class TextFinding:
    construct: TextConstruct
    line: int


@dataclass(frozen=True, slots=True)
class _Compiled:
    construct: TextConstruct
    regex: Any
    needs: Any


@cache
def _compiled() -> tuple[PatternSet, tuple[_Compiled, ...]]:
    compiled = tuple(
        _Compiled(c, compile_re2(c.regex), compile_re2(c.needs) if c.needs else None) for c in TEXT_CONSTRUCTS
    )
    return PatternSet([c.regex for c in TEXT_CONSTRUCTS]), compiled


def _file_text(file: AddedFile) -> bytes:
    if file.head is not None:
        return file.head.encode("utf-8", "surrogatepass")
    return b"\n".join(f.data for f in file.fragments)


def _fragment_findings(compiled: _Compiled, kind: Kind, fragment: Fragment) -> Iterator[TextFinding]:
    lines = LineScan(fragment.data, kind)
    for match in compiled.regex.finditer(fragment.data):
        start, end = match.span(1)
        # Both ends: `curl ... -o f  # | sh` pipes into nothing but a comment.
        if not lines.hidden(start) and not lines.commented(end - 1):
            yield TextFinding(compiled.construct, fragment.line_at(start))


def text_constructs(file: AddedFile) -> list[TextFinding]:
    """Constructs on added lines of a JavaScript, shell, Dockerfile, Makefile or CI file."""
    present, all_compiled = _compiled()
    found: dict[tuple[str, int], TextFinding] = {}
    text: bytes | None = None
    for fragment in file.fragments:
        for index in present.present(fragment.data):
            compiled = all_compiled[index]
            if file.kind not in compiled.construct.kinds:
                continue
            if compiled.needs is not None:
                text = _file_text(file) if text is None else text
                if not compiled.needs.search(text):
                    continue
            for finding in _fragment_findings(compiled, file.kind, fragment):
                found.setdefault((finding.construct.id, finding.line), finding)
    return sorted(found.values(), key=lambda f: (f.line, f.construct.id))

"""Dangerous constructs in JavaScript/TypeScript and shell, found line by line in added text.

These languages have no parser in the engine, so each pattern is a regex over the hunk's added text
(lines as the language reads them: `sourcetext.py`) and a match is dropped when the text before it
on its line opens a comment or leaves a string open (`linescan.py`). What a regex cannot decide (the
name string literals joined by `+` spell, whether an interpreter runs what it reads from standard
input) a construct's `check` decides on the match. In markup only `<script>` blocks are read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from bot.engine.content.added import AddedFile, Fragment
from bot.engine.content.filekinds import Kind
from bot.engine.content.linescan import LineScan
from bot.engine.content.patternset import PatternSet
from bot.engine.lazyre import lazy
from bot.engine.regex import compile_re2


@dataclass(frozen=True, slots=True)
class TextConstruct:
    """`regex` captures the construct itself in group 1; `needs` must occur in the file's text;
    `check`, when set, must accept the matched text (what a regex cannot decide)."""

    id: str
    kinds: frozenset[Kind]
    regex: str
    message: str
    needs: str | None = None
    check: Callable[[bytes], bool] | None = None


_JS = frozenset({Kind.JAVASCRIPT, Kind.MARKUP})
_SHELLISH = frozenset({Kind.SHELL, Kind.DOCKERFILE, Kind.MAKEFILE, Kind.CI})
_SHELLS = r"(?:ba|z|k|da|fi|a|c|tc|mk)?sh"
_INTERPRETERS = (
    rf"(?:{_SHELLS}|python[\d.]*|pypy[\d.]*|node(?:js)?|deno|bun|perl|ruby|php|lua|Rscript|pwsh"
    r"|powershell|tclsh|osascript)"
)
# A program as a command names it: `sudo -E`, `env -S` or a directory may come first.
_RUNNER = r"(?:(?:sudo|env|command|exec|nice|nohup)[ \t]+(?:-\S+[ \t]+)*)*(?:[\w./-]*/)?"
_COMMAND_START = r"(?:^|[;&|({\x60]|\$\(|\bthen\b|\bdo\b|\belse\b)[ \t]*"
# The global object, by any of its names: `globalThis.eval`, `window["ev" + "al"]`.
_GLOBAL = r"(?:globalThis|window|self|global|frames|top|parent)"
_STRINGS = r"\[\s*((?:['\"\x60][\w$]*['\"\x60]\s*\+?\s*)+)\]"
# A first argument that is not one fixed string: interpolated, concatenated, or a value.
_COMPUTED = r"\s*(?:\x60[^\x60]*\$\{|['\"][^'\"\n]*['\"]\s*\+|[\w$.\[\]]+\s*[+,)])"


def _joined_name(*names: bytes) -> Callable[[bytes], bool]:
    """Whether the string literals joined by `+` inside a match's brackets spell one of `names`
    (`window["ev" + "al"]`)."""

    def spells(matched: bytes) -> bool:
        inside = matched[matched.index(b"[") + 1 : matched.rindex(b"]")]
        return bytes(b for b in inside if b not in b"'\"`+ \t") in names

    return spells


_DATA_OPTIONS = {
    b"python": (b"-m", b"-c"), b"pypy": (b"-m", b"-c"), b"node": (b"-e", b"-p", b"--eval", b"--print"),
    b"perl": (b"-e", b"-E", b"-n", b"-p"), b"ruby": (b"-e", b"-n", b"-p"),
}  # fmt: skip
_INTERPRETER = lazy(_INTERPRETERS.encode())
_COMMENT = lazy(rb"(?:^|\s)#")


def _program(word: bytes) -> bytes:
    name = word.rsplit(b"/", 1)[-1].rstrip(b"0123456789.")
    return b"node" if name == b"nodejs" else name


def _reads_stdin_as_code(matched: bytes) -> bool:
    """Whether the interpreter a download is piped into (the command after the match's last `|`)
    runs the script it reads from standard input: it does unless an argument names a script file
    or code (`python3 -m json.tool`, `sh -c '...'`, `perl -ne '...'`); `-`, `--` and a shell's
    `-s` say stdin outright."""
    words = _COMMENT().split(matched.rsplit(b"|", 1)[1], maxsplit=1)[0].split()
    while not _INTERPRETER().fullmatch(words[0].rsplit(b"/", 1)[-1]):
        words.pop(0)  # sudo, env and their options
    program = _program(words[0])
    shell = program not in _DATA_OPTIONS
    for word in words[1:]:
        if word in (b"-", b"--") or (shell and word.startswith(b"-") and b"s" in word[1:]):
            return True
        if not word.startswith(b"-"):
            return False  # a script file: standard input is its data
        if (shell and b"c" in word[1:]) or word.startswith(_DATA_OPTIONS.get(program, (b"-c",))):
            return False
    return True


_CHILD_PROCESS_EXEC = (
    "child_process exec with a command built at run time (interpolated, concatenated or a variable) "
    "runs it through the shell: shell injection. Use execFile or spawn with an array of arguments."
)
TEXT_CONSTRUCTS: tuple[TextConstruct, ...] = (
    TextConstruct(
        "js-eval",
        _JS,
        # As a name (not a property), called or handed on (`(0, eval)(x)` is the global eval).
        r"(?m)(?:^|[^\w$.])(eval)\s*(?:[^\s\w$.:=]|$)",
        "eval() runs a string as JavaScript: code injection if any part of it comes from outside. "
        "Parse data with JSON.parse, or call the code directly.",
    ),
    TextConstruct(
        "js-eval",
        _JS,
        rf"(?m)(?:^|[^\w$.]){_GLOBAL}\s*\.\s*(eval)\b",
        "eval() runs a string as JavaScript, also reached through the global object: code injection "
        "if any part of it comes from outside. Parse data with JSON.parse, or call the code directly.",
    ),
    TextConstruct(
        "js-eval",
        _JS,
        rf"(?m)(?:^|[^\w$.])({_GLOBAL}\s*){_STRINGS}",
        "eval() runs a string as JavaScript, also reached through the global object: code injection "
        "if any part of it comes from outside. Parse data with JSON.parse, or call the code directly.",
        check=_joined_name(b"eval"),
    ),
    TextConstruct(
        "js-new-function",
        _JS,
        r"(?m)(?:^|[^\w$.])((?:new\s+)?Function)\s*\(",
        "Function(...) compiles a string into code, as eval() does: code injection if any part "
        "of it comes from outside. Call the code directly.",
    ),
    TextConstruct(
        "js-new-function",
        _JS,
        rf"(?m)(?:^|[^\w$.])({_GLOBAL}\s*){_STRINGS}\s*\(",
        "Function(...) compiles a string into code, as eval() does: code injection if any part "
        "of it comes from outside. Call the code directly.",
        check=_joined_name(b"Function"),
    ),
    TextConstruct(
        "js-child-process-exec",
        _JS,
        r"\b((?:child_process|childProcess|cp)\s*\.\s*exec(?:Sync)?)\s*\(" + _COMPUTED,
        _CHILD_PROCESS_EXEC,
    ),
    TextConstruct(
        "js-child-process-exec",
        _JS,
        r"\b(require\s*\(\s*['\"](?:node:)?child_process['\"]\s*\)\s*\.\s*exec(?:Sync)?)\s*\(" + _COMPUTED,
        _CHILD_PROCESS_EXEC,
    ),
    TextConstruct(
        "js-child-process-exec",
        _JS,
        r"(?m)(?:^|[^\w$.])(exec(?:Sync)?)\s*\(" + _COMPUTED,
        "exec with a command built at run time (interpolated, concatenated or a variable) runs it "
        "through the shell: shell injection. Use execFile or spawn with an array of arguments.",
        needs=r"child_process",
    ),
    TextConstruct(
        "shell-eval",
        frozenset({Kind.SHELL}),
        rf"(?m){_COMMAND_START}(eval)\b",
        "eval runs its arguments as shell code, expanded twice: injection if any part comes from "
        "outside. Call the command directly, with arrays for argument lists.",
    ),
    TextConstruct(
        "shell-pipe-to-shell",
        _SHELLISH,
        rf"\b((?:curl|wget)\b[^|\n]*\|[ \t]*{_RUNNER}{_INTERPRETERS})\b[^;&|)\n]*",
        "Piping a download into an interpreter runs whatever the server sends, unreviewed and "
        "unpinned. Download to a file, verify its checksum or signature, then run it.",
        check=_reads_stdin_as_code,
    ),
    TextConstruct(
        "shell-pipe-to-shell",
        _SHELLISH,
        rf"\b({_RUNNER}{_INTERPRETERS}[ \t]+(?:-\S+[ \t]+)*(?:<\(|[\"']?\$\()[ \t]*(?:curl|wget)\b)",
        "Running a downloaded script straight from an interpreter runs whatever the server sends, "
        "unreviewed and unpinned. Download to a file, verify its checksum or signature, then run it.",
    ),
    TextConstruct(
        "shell-pipe-to-shell",
        _SHELLISH,
        rf"(?m){_COMMAND_START}((?:source|\.)[ \t]+(?:<\(|/dev/stdin[ \t]*<<<[ \t]*[\"']?\$\()"
        r"[ \t]*(?:curl|wget)\b)",
        "Sourcing a downloaded script runs whatever the server sends in this shell, unreviewed and "
        "unpinned. Download to a file, verify its checksum or signature, then source it.",
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


_SCRIPT_TAG = r"<(/?)script\b[^>]*>?"
_SCRIPT_TAG_BYTES = lazy(_SCRIPT_TAG.encode(), re.IGNORECASE)
_SCRIPT_TAG_TEXT = lazy(_SCRIPT_TAG, re.IGNORECASE)
_NOT_NEWLINE = lazy(rb"[^\n]")


def script_at_line_starts(file: AddedFile) -> dict[int, bool]:
    """For each line of a markup file's new text (by diff line number), whether it starts inside a
    `<script>` block (nothing without the new text)."""
    states: dict[int, bool] = {}
    if file.head is None:
        return states
    inside = False
    for index, line in enumerate(file.head.split("\n"), start=1):
        states.setdefault(file.diff_line(index), inside)
        for tag in _SCRIPT_TAG_TEXT().finditer(line):
            inside = tag.group(1) == ""
    return states


def script_only(fragment: Fragment, states: dict[int, bool]) -> bytes:
    """A markup fragment's bytes with everything outside its `<script>` blocks blanked (line breaks
    kept, so every offset stays where it was). Where each line starts is known from the new text;
    without it, the fragment starts inside a block when its first script tag closes one."""
    data = fragment.data
    out = bytearray(data)
    first = _SCRIPT_TAG_BYTES().search(data)
    inside = first is not None and first.group(1) == b"/"
    start = 0
    for index, number in enumerate(fragment.numbers):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        inside = states.get(number, inside) if index == 0 or number != fragment.numbers[index - 1] else inside
        done = start
        for tag in _SCRIPT_TAG_BYTES().finditer(data, start, end):
            blank_from = tag.start() if inside else done
            out[blank_from : tag.end()] = _NOT_NEWLINE().sub(b" ", data[blank_from : tag.end()])
            inside, done = tag.group(1) == b"", tag.end()
        if not inside:
            out[done:end] = _NOT_NEWLINE().sub(b" ", data[done:end])
        start = end + 1
    return bytes(out)


def _fragment_findings(
    compiled: _Compiled, kind: Kind, fragment: Fragment, data: bytes
) -> Iterator[TextFinding]:
    lines = LineScan(data, kind)
    check = compiled.construct.check
    for match in compiled.regex.finditer(data):
        start, end = match.span(1)
        # Both ends: `curl ... -o f  # | sh` pipes into nothing but a comment.
        if lines.hidden(start) or lines.commented(end - 1):
            continue
        if check is None or check(match.group()):
            yield TextFinding(compiled.construct, fragment.line_at(start))


def text_constructs(file: AddedFile) -> list[TextFinding]:
    """Constructs on added lines of a JavaScript, markup (its script blocks), shell, Dockerfile,
    Makefile or CI file."""
    present, all_compiled = _compiled()
    found: dict[tuple[str, int], TextFinding] = {}
    text: bytes | None = None
    states: dict[int, bool] | None = None
    for fragment in file.fragments:
        data: bytes | None = None
        for index in present.present(fragment.data):
            compiled = all_compiled[index]
            if file.kind not in compiled.construct.kinds:
                continue
            if compiled.needs is not None:
                text = _file_text(file) if text is None else text
                if not compiled.needs.search(text):
                    continue
            if data is None and file.kind is Kind.MARKUP:
                states = script_at_line_starts(file) if states is None else states
                data = script_only(fragment, states)
            data = fragment.data if data is None else data
            for finding in _fragment_findings(compiled, file.kind, fragment, data):
                found.setdefault((finding.construct.id, finding.line), finding)
    return sorted(found.values(), key=lambda f: (f.line, f.construct.id))

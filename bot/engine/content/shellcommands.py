"""What a shell command runs: an interpreter (and whether it reads its script from standard input,
or a file), past the wrappers that run a command of their own (`wrappers.py`).

A command's words are split as the shell splits them (`shlex`); a quote a match cut off leaves its
words as they stand. A wrapper's words are consumed as it consumes them (`sudo -u x sh`, `timeout
9 bash`), a command line it hands on (`su -c '…'`, `env -S '…'`) is read in turn, and after
`xargs` what it reads becomes words of the command. A file is run also from a command line handed on
in a string (`su -c "sh f"`, `sudo sh -c '…'`), read in turn.
"""

from __future__ import annotations

import re
import shlex
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from itertools import pairwise

from bot.engine.content.shellwords import LEADER
from bot.engine.lazyre import lazy
from bot.engine.wrappers import WRAPPERS, Wrapper, unwrapped

SHELLS = r"(?:ba|z|k|da|fi|a|c|tc|mk)?sh"
INTERPRETERS = (
    rf"(?:(?:{SHELLS}|python[\d.]*|pypy[\d.]*|node(?:js)?|deno|bun|perl|ruby|php|lua|Rscript|pwsh"
    r"|powershell|tclsh|osascript)\b|\$SHELL\b|\$\{SHELL(?::?[-=]\w*)?\})"
)
# The options of interpreters that are not shells whose value is code or a module.
_DATA_OPTIONS = {
    "python": ("-m", "-c"), "pypy": ("-m", "-c"), "node": ("-e", "-p", "--eval", "--print"),
    "perl": ("-e", "-E", "-n", "-p"), "ruby": ("-e", "-n", "-p"),
}  # fmt: skip
_INTERPRETER = lazy(INTERPRETERS)
_NOT_A_WRAPPER = Wrapper()
_WORDS = 256
_DEPTH = 4  # `su -c "sudo sh -c '…'"`: deeper than this is not read


# A command substitution outside quotes (one level of parentheses inside): part of one word to the
# shell, whatever blanks it holds (`X=$(id -u) bash`), which `shlex` would split.
_SUBSTITUTION = lazy(r"\$\((?:[^()'\"\n]|\([^()\n]*\))*\)|`[^`'\"\n]*`")


def split(command: str) -> list[str]:
    command = _SUBSTITUTION().sub("$_", command) if "$(" in command or "`" in command else command
    try:
        return shlex.split(command)
    except ValueError:  # a quote the match cut: its words as they stand
        return [word.strip("'\"") for word in command.split()]


def _name(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def interpreter(word: str) -> str | None:
    """The interpreter `word` (a program, perhaps a path) names, without its version (`python`)."""
    name = _name(word)
    if not _INTERPRETER().fullmatch(name):
        return None  # also a program whose name only starts like an interpreter's (`python-tool`)
    name = name.rstrip("0123456789.")
    return "node" if name == "nodejs" else name


def _code_option(program: str, word: str) -> bool:
    """Whether `word` is an option of `program` whose value is code (a shell's `-c`, `-ec`)."""
    if program not in _DATA_OPTIONS:
        return word.startswith("-") and "c" in word[1:]
    return word.startswith(_DATA_OPTIONS[program])


def runs_stdin(command: str, depth: int = 0) -> bool:
    """Whether `command` runs the script it reads from standard input: an interpreter does unless
    an argument names a script file or code (`python3 -m json.tool`, `sh -c '...'`, `perl -ne
    '...'`); `-`, `--` and a shell's `-s` say stdin outright. After `xargs`, what is read is added
    to the command's words: the code option it ends with (`xargs bash -c`) is given it as code, and
    an interpreter given only options (`xargs sh`) its script's name or its code."""
    words = split(command)
    at = unwrapped(words)
    if isinstance(at, str):
        return depth < _DEPTH and runs_stdin(at, depth + 1)
    program = interpreter(words[at]) if at < len(words) else None
    if program is None:
        return False
    arguments = words[at + 1 :]
    if any(WRAPPERS.get(_name(word), _NOT_A_WRAPPER).appends for word in words[:at]):
        return _given_code(program, arguments, _replaced(words[:at]))
    shell = program not in _DATA_OPTIONS
    for word in arguments:
        if word in ("-", "--") or (shell and word.startswith("-") and "s" in word[1:]):
            return True
        if not word.startswith("-"):
            return False  # a script file: standard input is its data
        if _code_option(program, word):
            return False
    return True


def _replaced(words: list[str]) -> str | None:
    """The string xargs replaces with what it reads (`-I {}`, `-I{}`), if it is given one."""
    for at, word in enumerate(words):
        if word == "-I" and at + 1 < len(words):
            return words[at + 1]
        if word.startswith("-I") and len(word) > 2:
            return word[2:]
    return None


def _given_code(program: str, arguments: list[str], replaced: str | None) -> bool:
    """Whether an interpreter xargs runs is given what xargs reads as its code or its script: its
    code option ends its words or is followed by the replaced string alone (what is read is the
    code), the replaced string alone is its script, or it has only options, so what is read is
    added as its script's name or its code option (`xargs sh` given `-c '…'`). A script or code of
    its own leaves what is read arguments."""
    for at, word in enumerate(arguments):
        if _code_option(program, word):
            rest = arguments[at + 1 :]
            return not rest or (replaced is not None and rest == [replaced])
        if not word.startswith("-"):
            return word == replaced
    return replaced is None  # with `-I`, xargs adds nothing the command does not name


_SOURCE = frozenset({"source", "."})
# What ends the command before a word: an operator, a bracket, a keyword after which a command starts.
_COMMAND_BREAK = lazy(r"[;&|\n({\x60]|\$\(|\b(?:then|do|else|if|elif|while|until)\b|!")
_LEADER = lazy(LEADER)
_SHELL = lazy(SHELLS)
_QUOTING = lazy(r"[\\'\"]")
_DOUBLE_QUOTED_ESCAPE = lazy(r'\\([$`"\\])')


def last_command(text: str) -> str:
    """The command `text` ends in: after its last operator or keyword, past a Dockerfile's `RUN` or
    a CI step's `run:` when it is the line's only command."""
    pieces = _COMMAND_BREAK().split(text)
    return _LEADER().sub("", pieces[-1], count=1) if len(pieces) == 1 else pieces[-1]


def _closed_breaks(text: str) -> list[int]:
    """Where the command breaks of `text` (`_COMMAND_BREAK`) start that no quote holds open, in
    order, as `_open_quote` reads quotes."""
    breaks = [found.start() for found in _COMMAND_BREAK().finditer(text)]
    closed: list[int] = []
    taken = 0
    opened: int | None = None
    for at, after in _quotes(text):
        while taken < len(breaks) and breaks[taken] < at:
            if opened is None:
                closed.append(breaks[taken])
            taken += 1
        opened = after
    if opened is None:
        closed.extend(breaks[taken:])
    return closed


class CommandText:
    """A view's text from the command a place is in: from the last command break before it that no
    quote holds open (the break kept, so `last_command` and `_open_quote` read it as they read the
    whole line), each line's breaks found once. Each text is read whole by its caller, so one long
    command holding many places would cost its length each time: past `budget` characters in all,
    None (the caller cannot say, and fails closed)."""

    def __init__(self, view: bytes, budget: int) -> None:
        self._view = view
        self._lines: list[int] | None = None
        self._breaks: dict[int, list[int]] = {}
        self._left = budget

    @property
    def exhausted(self) -> bool:
        return self._left < 0

    def upto(self, start: int, end: int) -> str | None:
        """The text from the break before `start` (or its line's start) to `end`; None past the budget."""
        if self._lines is None:
            self._lines = [found.end() for found in re.finditer(rb"\n", self._view)]
        index = bisect_right(self._lines, start) - 1
        line = self._lines[index] if index >= 0 else 0
        if line not in self._breaks:
            stop = self._view.find(b"\n", line)
            self._breaks[line] = _closed_breaks(
                self._view[line : len(self._view) if stop < 0 else stop].decode("latin-1")
            )
        breaks = self._breaks[line]
        before = bisect_left(breaks, start - line) - 1
        begin = line + (breaks[before] if before >= 0 else 0)
        self._left -= end - begin
        return self._view[begin:end].decode("latin-1") if self._left >= 0 else None


def _quotes(text: str) -> Iterator[tuple[int, int | None]]:
    """Each quoting character of `text` that the shell reads as one (its offset), and where the quote
    open after it starts (None when none is)."""
    opened: int | None = None
    escaped = -1
    for found in _QUOTING().finditer(text):
        at = found.start()
        if at == escaped:
            continue
        char = found.group()
        if char == "\\":
            if opened is None or text[opened] == '"':
                escaped = at + 1  # the next character, but in single quotes
        elif opened is None:
            opened = at
        elif char == text[opened]:
            opened = None
        yield at, opened


def _open_quote(text: str) -> int | None:
    """Where the quote `text` leaves open starts, if it leaves one open."""
    opened: int | None = None
    for _, after in _quotes(text):
        opened = after
    return opened


def hands_on(words: list[str]) -> bool:
    """Whether the word after `words` is a command line their command runs in turn: a wrapper's
    (`su -c`, `env -S`) or a shell's code option (`sudo sh -c`, `bash -ec`)."""
    at = unwrapped([*words, ""])
    if isinstance(at, str):
        return True
    if at >= len(words) - 1 or not _SHELL().fullmatch(_name(words[at])):
        return False
    options = words[at + 1 :]
    values = [word for before, word in pairwise(options) if before in ("-o", "+o")]
    all_options = all(word.startswith(("-", "+")) for word in options if word not in values)
    return all_options and _code_option("sh", options[-1])


def _short(command: str) -> bool:
    """Whether `command` has at most `_WORDS` words, the most a command that runs a file is read
    with (wrappers, assignments, options and the program before it): splitting every use's
    command into words would make a long one's many uses quadratic."""
    return len(command.split(maxsplit=_WORDS)) <= _WORDS


def runs_file_at_end(text: str, path: str, *, quoted: bool, depth: int = 0) -> bool:
    """Whether the command `text` ends in runs the file `path` it ends with (`runs_file`). A quote
    `text` leaves open (`su -c "sh f`) is a command line handed on when the words before it hand
    it on: read in turn. `quoted`: `path` is inside a string, so only such a command line runs it."""
    quote = _open_quote(text)
    if quote is None:
        command = last_command(text)
        return not quoted and _short(command) and runs_file(split(command), path)
    before = last_command(text[:quote])
    if depth >= _DEPTH or not _short(before) or not hands_on(split(before)):
        return False
    inside = text[quote + 1 :]
    if text[quote] == '"':
        inside = _DOUBLE_QUOTED_ESCAPE().sub(r"\1", inside)
    return runs_file_at_end(inside, path, quoted=False, depth=depth + 1)


def runs_file(words: list[str], path: str) -> bool:
    """Whether the command `words` runs the file `path` (its last word, as written) as a script:
    as the command itself (a path with a directory: `./f`, `/tmp/x`, also after wrappers), sourced
    (`source f`, `. f`), or as an interpreter's script (`sh f`, `python3 -u f`)."""
    at = unwrapped(words)
    if isinstance(at, str):
        return False
    if at >= len(words) - 1:  # the path is the command, or a wrapper's operand (`timeout f`)
        return at == len(words) - 1 and "/" in path
    program = words[at]
    if program in _SOURCE:
        return at == len(words) - 2
    name = interpreter(program)
    if name is None:
        return False
    options = words[at + 1 : -1]
    return all(
        word.startswith("-") and word not in ("-", "--") and not _code_option(name, word) for word in options
    )

"""What a shell command runs: an interpreter (and whether it reads its script from standard input,
or a file), past the wrappers that run a command of their own (`wrappers.py`).

A command's words are split as the shell splits them (`shlex`); a quote a match cut off leaves its
words as they stand. A wrapper's words are consumed as it consumes them (`sudo -u x sh`, `timeout
9 bash`), a command line it hands on (`su -c '…'`, `env -S '…'`) is read in turn, and after
`xargs` what it reads becomes words of the command.
"""

from __future__ import annotations

import shlex

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
_DEPTH = 4  # `su -c "sudo sh -c '…'"`: deeper than this is not read


def split(command: str) -> list[str]:
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
    to the command's words, so the code option it ends with (`xargs bash -c`) is given it as code."""
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
    """Whether an interpreter xargs runs is given what xargs reads as its code: its code option
    ends its words (what is read is added after), or is followed by the replaced string alone."""
    for at, word in enumerate(arguments):
        if _code_option(program, word):
            rest = arguments[at + 1 :]
            return not rest or (replaced is not None and rest == [replaced])
        if not word.startswith("-"):
            return False
    return False


_SOURCE = frozenset({"source", "."})


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

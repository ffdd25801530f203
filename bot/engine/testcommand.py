"""The files `tests.command` runs, or has its runner read: the built-in group `test-command`.

A green run is whatever the command makes of it. A pull request that edits the script its tests run
through (`exit 0`), or the Makefile's `test:` target, passes without running a test, as a new
`conftest.py` would; so the files the base manifest's command names are protected (scope.py).

The command is read as a POSIX shell splits it (quotes, and `;` `&&` `||` `|` `&` between simple
commands; `sh -c '…'` and `env -S '…'` read in turn, a few levels deep). In each simple command,
after variable assignments and the wrappers that run the rest (`env`, `sudo`, `timeout`, `nice`,
`uv run`, `poetry run`…), it names:
- the program, when it is a path in the tree (`./run-tests`, `scripts/ci`);
- an interpreter's script and the modules it preloads (`python tools/run.py`, `bash ci/test.sh`,
  `node -r ./setup.js t.js`), never inline code (`-c`); for `python -m NAME`, what at the tree's
  root would be imported as NAME instead of the installed module (`NAME.py`, `NAME/`), since the
  current directory comes first on the module path;
- a runner's own files: make's makefiles (`-C dir`, `-f file`), just's justfile, task's Taskfile,
  the Gradle and Maven wrappers and settings.
Paths are relative to the tree's root, where the command runs, and each pattern is anchored there.
A word the shell would expand (`$X`, a glob, `~`), an absolute path and one leaving the tree name
nothing the tree holds. A test file named as an argument (`pytest tests/test_api.py`) is not a
runner's script: changes add to those; pytest's own files are the `test-harness` group's.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

from bot.engine.wrappers import unwrapped

_OPERATORS = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "(", ")"})
_INTERPRETER = re.compile(
    r"(?:python|pypy)[0-9.]*|sh|bash|zsh|dash|ksh|mksh|ash|fish|node|deno|bun|ruby|perl|php|pwsh"
    r"|Rscript|tclsh|lua|tsx|ts-node"
)
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"})
_RUN = frozenset({"uv", "poetry", "pipenv", "pdm", "hatch", "rye", "pixi", "conda", "mamba", "micromamba"})
# Options of interpreters that take a value (python's -W and -X, a shell's -o and -O), and those whose
# value is a file run before the script (node's, deno's).
_VALUED = frozenset({"-W", "-X", "-r", "--require", "--import", "--loader"})
_SHELL_VALUED = frozenset({"-o", "-O", "+o", "+O"})
_PRELOADS = frozenset({"-r", "--require", "--import", "--loader"})
_INLINE = frozenset({"-c", "-e", "-p", "--eval", "--print", "-m", "-", "--command"})
_SHELL_INLINE = frozenset({"-s", "-"})  # the script from stdin (`-c` is read as a command line)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAKE = frozenset({"make", "gmake", "bmake"})
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_RUNNER_FILES: dict[str, tuple[str, ...]] = {
    "just": ("justfile", "Justfile", ".justfile"),
    "task": ("Taskfile.yml", "Taskfile.yaml", "Taskfile.dist.yml", "Taskfile.dist.yaml"),
    "gradlew": (
        "gradlew", "gradlew.bat", "settings.gradle", "settings.gradle.kts", "gradle.properties", "gradle/**",
    ),
    "gradle": ("settings.gradle", "settings.gradle.kts", "gradle.properties", "gradle/**"),
    "mvnw": ("mvnw", "mvnw.cmd", ".mvn/**"),
    "mvn": (".mvn/**",),
}  # fmt: skip
_DEPTH = 4  # `sh -c "sh -c '…'"`: deeper than this names nothing more
_EXPANDED = re.compile(r"[$`*?\[{~]")  # the shell computes the word
_ESCAPE = re.compile(r"([\\\]]| $)")  # what gitignore syntax reads otherwise (`*?[` never get here)


def command_patterns(command: str | None) -> tuple[str, ...]:
    """Patterns (gitignore syntax, anchored at the tree's root) for the files `command` runs, each once."""
    if not command:
        return ()
    found = dict.fromkeys(_patterns(command, 0))
    return tuple(found)


def _patterns(command: str, depth: int) -> Iterator[str]:
    if depth > _DEPTH:
        return
    for words in _simple_commands(command):
        yield from _named(words, depth)


def _simple_commands(command: str) -> Iterator[list[str]]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    words: list[str] = []
    try:
        for word in lexer:
            if word in _OPERATORS:
                yield words
                words = []
            else:
                words.append(word)
    except ValueError:  # an unbalanced quote: the shell refuses the command, so it runs nothing
        return
    yield words


def _named(words: list[str], depth: int) -> Iterator[str]:
    rest = _unwrapped(words, depth)
    if rest is None:
        return
    if isinstance(rest, str):  # `env -S '…'`: a command line of its own
        yield from _patterns(rest, depth + 1)
        return
    if not rest:
        return
    program, arguments = rest[0], rest[1:]
    name = program.rsplit("/", 1)[-1]
    if "/" in program:
        yield from _anchored(program)
    if _INTERPRETER.fullmatch(name):
        yield from _interpreted(name, arguments, depth)
    elif name == "coverage" and arguments[:1] == ["run"]:  # `coverage run tools/t.py` runs it as python
        yield from _interpreted("python", arguments[1:], depth)
    elif name in _MAKE:
        yield from _makefiles(arguments)
    elif name in _RUNNER_FILES:
        for file in _RUNNER_FILES[name]:
            yield "/" + file


def _unwrapped(words: list[str], depth: int) -> list[str] | str | None:
    """The words from the program that does the work on, past assignments and wrappers (`unwrapped`)
    and a project runner's `run` (`uv run`); a string when `env -S` or `su -c` hands a command line
    on; None where the shell computes the program."""
    while True:
        at = unwrapped(words)
        if isinstance(at, str):  # `env -S '…'`, `su -c '…'`: a command line of its own
            return at
        words = words[at:]
        if not words:
            return []
        if words[0].rsplit("/", 1)[-1] in _RUN and words[1:2] == ["run"]:
            words = words[2:]
            continue
        return None if _EXPANDED.search(words[0]) else words


def _interpreted(name: str, arguments: list[str], depth: int) -> Iterator[str]:
    """An interpreter's preloaded files and script; a shell's `-c` command read in turn."""
    at = 0
    while at < len(arguments):
        word = arguments[at]
        if name in _SHELLS and word.startswith("-") and not word.startswith("--") and "c" in word:
            if at + 1 < len(arguments):
                yield from _patterns(arguments[at + 1], depth + 1)
            return
        if word == "-m" and name.startswith(("python", "pypy")) and at + 1 < len(arguments):
            yield from _module_shadows(arguments[at + 1])
            return
        if word in (_SHELL_INLINE if name in _SHELLS else _INLINE):
            return
        if word in (_SHELL_VALUED if name in _SHELLS else _VALUED):
            if word in _PRELOADS and at + 1 < len(arguments):
                yield from _anchored(arguments[at + 1])
            at += 2
            continue
        if word.startswith("-"):
            at += 1
            continue
        if name in ("deno", "bun") and word in ("run", "test"):
            at += 1
            continue
        yield from _anchored(word)
        return


def _module_shadows(module: str) -> Iterator[str]:
    """`python -m NAME.sub` puts the current directory (the tree's root) first on the module path:
    a top-level NAME module or package there is what runs, not the installed one."""
    top = module.split(".", 1)[0]
    if not _IDENTIFIER.fullmatch(top):
        return
    yield from (f"/{top}.py", f"/{top}.pyc", f"/{top}.so", f"/{top}.*.so", f"/{top}/")


def _makefiles(arguments: list[str]) -> Iterator[str]:
    directory = ""
    named: list[str] = []
    at = 0
    while at < len(arguments):
        word = arguments[at]
        value = arguments[at + 1] if at + 1 < len(arguments) else ""
        if word in ("-C", "--directory"):
            directory, at = value, at + 2
        elif word.startswith("--directory="):
            directory, at = word.split("=", 1)[1], at + 1
        elif word in ("-f", "--file", "--makefile"):
            named.append(value)
            at += 2
        elif word.startswith(("--file=", "--makefile=")):
            named.append(word.split("=", 1)[1])
            at += 1
        else:
            at += 1
    prefix = directory.rstrip("/") + "/" if directory else ""  # make reads `-f` after `-C`
    for file in named or _MAKEFILES:
        yield from _anchored(prefix + file)


def _anchored(path: str) -> Iterator[str]:
    """`path` as a pattern anchored at the tree's root; nothing when it is not a path in the tree."""
    if not path or path.startswith(("/", "-")) or _EXPANDED.search(path):
        return
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return
    yield "/" + "/".join(_ESCAPE.sub(r"\\\1", p) for p in parts)

"""PowerShell the shell starts with an encoded command: `pwsh -enc …`, `sudo powershell.exe -ec …`.

A command of a view that names PowerShell (`pwsh`, `powershell`, in any case, anywhere in it) is
read once, from its first word, which must start a command (`shelldefinitions.command_word`: after
a break or a keyword, past assignments, a Dockerfile's `RUN` or a CI step's `run:`). Its words are
split as the shell splits them (`shellcommands.split`), past what leads it on its line (a
Dockerfile's `RUN`, `CMD` or `ENTRYPOINT`, in any case, whose JSON array is its exec form's words;
a CI file's list item and the keys whose value is a command; a Makefile recipe's `@`, `-`, `+`),
keywords, assignments and wrappers (`wrappers.unwrapped`). Its program and arguments are then
judged as PowerShell judges its own commands (`pwshconstructs.starts_encoded`: PowerShell by any
path, the option by any spelling it accepts, before `-File` or `-Command`). A command holding a
backslash is also read as cmd reads it (blanks alone split it, quotes dropped), since a Windows
runner's `C:\\Windows\\…\\powershell.exe` keeps its backslashes. A command ends at each break in
code, so each byte is read once.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Callable, Iterator

from bot.engine.content.filekinds import Kind
from bot.engine.content.pwshconstructs import starts_encoded
from bot.engine.content.shellcommands import split
from bot.engine.content.shelldefinitions import command_word
from bot.engine.lazyre import lazy
from bot.engine.wrappers import unwrapped

_NAMES = lazy(rb"(?i)pwsh|powershell")
_BREAKS = lazy(rb"[;&|()\n\x60]")
_FIRST = lazy(rb"[^ \t\r\f\v]")
_KEYWORDS = frozenset({"then", "do", "else", "if", "elif", "while", "until", "!", "{"})
# What leads a command at its line's start, by the kind of file (all may be empty).
_LEADERS = {
    Kind.DOCKERFILE: lazy(rb"(?i:(?:RUN|CMD|ENTRYPOINT)(?:[ \t]+--\S+)*[ \t]+)?"),
    Kind.CI: lazy(
        rb"(?:-[ \t]+)?(?:(?:run|script|before_script|after_script|command|bash|sh|pwsh|powershell"
        rb"|inlineScript):[ \t]+)?"
    ),
    Kind.MAKEFILE: lazy(rb"[@+-]*[ \t]*"),
}


def encoded_commands(view: bytes, hidden: Callable[[int], bool], kind: Kind) -> Iterator[tuple[int, int]]:
    """Each command of `view` (its strings where `hidden` says) that starts PowerShell with an
    encoded command, from its first word to its end."""
    names = [found.start() for found in _NAMES().finditer(view)]
    if not names:
        return
    breaks = [found.start() for found in _BREAKS().finditer(view) if not hidden(found.start())]
    patterns = _case_patterns(view, breaks)
    leader = _LEADERS.get(kind)
    read: set[int] = set()
    for name in names:
        after = bisect_right(breaks, name)
        start = breaks[after - 1] + 1 if after else 0
        if start in read:
            continue
        read.add(start)
        end = breaks[after] if after < len(breaks) else len(view)
        first = _FIRST().search(view, start, end)
        assert first is not None  # the name is in it
        if not (start - 1 in patterns or command_word(view, hidden, first.start())):
            continue
        at = first.start()
        if leader is not None and (start == 0 or view[start - 1] == 0x0A):
            led = leader().match(view, at, end)
            assert led is not None  # it may be empty
            at = led.end()
        text = view[at:end].decode("utf-8", "replace")
        exec_form = kind is Kind.DOCKERFILE and text.startswith("[")
        if any(starts_encoded(words) for words in _readings(text, exec_form=exec_form)):
            yield first.start(), end


def _case_patterns(view: bytes, breaks: list[int]) -> set[int]:
    """Where a `)` of `breaks` ends a `case` pattern (`a) pwsh …;;`), after which a command starts:
    one that closes no `(`, or closes one that opens no substitution (`(a) pwsh …;;`), where
    after `$(…)` or `<(…)` the command goes on (`echo $(date) pwsh` runs echo)."""
    ends: set[int] = set()
    opened: list[int] = []
    for at in breaks:
        if view[at] == 0x28:
            opened.append(at)
        elif view[at] == 0x29:
            opener = opened.pop() if opened else 0
            if view[opener - 1 : opener] not in (b"$", b"<", b">"):
                ends.add(at)
    return ends


def _readings(text: str, *, exec_form: bool) -> Iterator[list[str]]:
    """The program and arguments of the command `text`: a Dockerfile's exec form's JSON array, else
    as the shell reads its words and, when it holds a backslash, as cmd does."""
    if exec_form:
        yield _exec_form(text)
        return
    yield _command(split(text))
    if "\\" in text:
        yield _command([word.strip("'\"") for word in text.split()])


def _exec_form(text: str) -> list[str]:
    """The words of a Dockerfile's exec form (`["pwsh", "-enc", "…"]`); none when it is not one
    (Docker then runs the text in a shell, where `[pwsh,` names no program)."""
    try:
        words = json.loads(text)
    except ValueError:
        return []
    return words if isinstance(words, list) and all(isinstance(word, str) for word in words) else []


def _command(words: list[str]) -> list[str]:
    """The program and arguments of the command `words`, past keywords, assignments and wrappers;
    none for a command line a wrapper hands on (`shelllines.py` reads it)."""
    at = 0
    while at < len(words) and words[at] in _KEYWORDS:
        at += 1
    found = unwrapped(words[at:])
    return words[at + found :] if isinstance(found, int) else []

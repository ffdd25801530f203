"""Command lines handed on in a string: `sh -c '…'`, `sudo bash -ec "…"`, `su -c '…'`, `env -S '…'`.

The shell reader hides a string's text, but a string given to a shell's code option or to a
wrapper's command-line option is code the command runs: `sh -c "curl … | sh"` pipes the download
into sh as surely as the same words outside quotes. Each such string (whether the words before it
hand it on is decided by `shellcommands.hands_on`) is given here as the shell hands it on, one
level of quotes removed (in double quotes `\\"`, `\\$`, `` \\` ``, `\\\\` lose their backslash), with
where each of its bytes was in the view, so it can be read as a script of its own and its findings
placed on the lines it was written on. A double-quoted string's `$(…)` is the outer shell's (run
before the line is handed on) and is read with it; a string that does not close is not a line.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from bot.engine.content.jslex import Lexed
from bot.engine.content.shellcommands import CommandText, hands_on, last_command, split
from bot.engine.lazyre import lazy
from bot.engine.regex import compile_re2

# An option that may hand on the command line in the string it is followed by.
_HANDING_ON = r"(?m)(?:^|[ \t])(?:-[A-Za-z]*c|--command|-S|--split-string)[ \t]+(['\"])"
_ESCAPED_IN_DOUBLE_QUOTES = frozenset(b'$`"\\\n')
_BRACKETS = lazy(rb"[()\x60]")
_BUDGET_FACTOR = 4
# Characters of commands read word by word, whatever the view's size: a short script is read whole.
_BUDGET_FLOOR = 1 << 20


@dataclass(frozen=True, slots=True)
class HandedOn:
    """A command line handed on (`text`) and, for each of its bytes, its offset in the view."""

    text: bytes
    origin: tuple[int, ...]


class _Budget:
    """How many more bytes of substitutions the strings of one view may be read through: their
    number times the text would make the reading quadratic (`sh -c "$(` left open on every line)."""

    def __init__(self, size: int) -> None:
        self.left = _BUDGET_FACTOR * size

    def spend(self, amount: int) -> bool:
        self.left -= amount
        return self.left >= 0


def handed_on(view: bytes, lexed: Lexed) -> Iterator[HandedOn]:
    """Each string of `view` (read as `lexed`) that its command runs as a command line (a
    substitution in it is read through while the view's budget lasts; past it, the string is not)."""
    budget = _Budget(len(view))
    commands = CommandText(view, _BUDGET_FACTOR * len(view) + _BUDGET_FLOOR)
    for found in compile_re2(_HANDING_ON).finditer(view):
        quote = found.start(1)
        if lexed.hidden(quote - 1) or not lexed.hidden(quote):
            continue  # the option is in a string, or the quote opens none
        before = commands.upto(quote, quote)
        # past the budget, whether the command hands the string on is not read: it is taken to
        if before is not None and not hands_on(split(last_command(before))):
            continue
        end = _word_end(view, lexed, quote, budget)
        if end is not None:
            yield _unquoted(view, quote, end)


def _word_end(view: bytes, lexed: Lexed, quote: int, budget: _Budget) -> int | None:
    """Where the string opened at `quote` ends (after its closing quote), past the substitutions
    in it; None when it does not close."""
    spans = lexed.strings
    pos: int | None = quote
    while pos is not None:
        end = spans.ends[bisect_right(spans.starts, pos) - 1]  # the string's text from `pos`
        if view[end : end + 2] != b"$(" and view[end : end + 1] != b"`":
            return end if end - 1 > quote and view[end - 1] == view[quote] else None
        pos = _substitution_end(view, lexed, end, budget)
    return None


def _substitution_end(view: bytes, lexed: Lexed, start: int, budget: _Budget) -> int | None:
    """Where the text of a double-quoted string resumes after the substitution at `start`: the
    first string of the view outside the brackets it opens (`$(…)`, backquotes), the strings inside
    them passed over; None when there is none, or the budget is spent."""
    spans = lexed.strings
    depth = 0
    backquoted = False
    at = bisect_left(spans.starts, start)  # the first string after the substitution's start
    pos = start
    while at < len(spans.starts):
        string = spans.starts[at]
        for bracket in _BRACKETS().finditer(view, pos, string):
            byte = bracket.group()
            backquoted ^= byte == b"`"
            depth += (byte == b"(") - (byte == b")")
        if not budget.spend(string - pos + 1):
            return None
        if depth == 0 and not backquoted:
            return string
        pos = spans.ends[at]
        at += 1
    return None


def _unquoted(view: bytes, quote: int, end: int) -> HandedOn:
    """The text between the quotes at `quote` and `end - 1`, as the shell removes one level of them."""
    double = view[quote] == 0x22
    text = bytearray()
    origin: list[int] = []
    at = quote + 1
    stop = end - 1
    while at < stop:
        if double and view[at] == 0x5C and at + 1 < stop and view[at + 1] in _ESCAPED_IN_DOUBLE_QUOTES:
            if view[at + 1] != 0x0A:  # a backslash and a line break are removed together
                text.append(view[at + 1])
                origin.append(at + 1)
            at += 2
            continue
        text.append(view[at])
        origin.append(at)
        at += 1
    return HandedOn(bytes(text), tuple(origin))

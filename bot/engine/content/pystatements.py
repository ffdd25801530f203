r"""The statements of Python source that does not parse, found without the parser, so that a call
split over lines is still read whole (`eval(` then `x)`, `os.system(\` then `cmd)`).

A logical line ends at a line break outside brackets, strings and comments, and not after a
backslash, as the tokenizer reads it. Strings and comments are those pyselect.py finds (an
unterminated one-line string ends with its line; an unterminated triple-quoted one runs on). A
bracket closed more often than opened counts as none, so one stray `)` cannot join the rest of the
file; one left open joins everything after it, which `call_at` then reads a call at a time.
"""

from __future__ import annotations

import re

from bot.engine.content.pyselect import STRING_OR_COMMENT
from bot.engine.lazyre import lazy

_PIECE = lazy(rf"{STRING_OR_COMMENT.pattern}|[(\[{{]|[)\]}}]|\\\r?\n|\n", re.DOTALL)
_OPEN = frozenset("([{")
_CLOSE = frozenset(")]}")
_NAME_BEFORE = lazy(r"(?:[^\W\d]\w*\s*\.\s*)*\Z")
_TO_CALL = lazy(r"(?:\s|\\\r?\n)*\(")


def logical_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each logical line of `text`, without the line break that ends it."""
    spans: list[tuple[int, int]] = []
    depth = 0
    start = 0
    for match in _PIECE().finditer(text):
        first = text[match.start()]
        if first in _OPEN:
            depth += 1
        elif first in _CLOSE:
            depth = max(depth - 1, 0)
        elif first == "\n" and depth == 0:
            spans.append((start, match.start()))
            start = match.end()
    spans.append((start, len(text)))
    return spans


def _closing(text: str, opening: int) -> int | None:
    """The offset just after the bracket that closes the one at `opening`, or None."""
    depth = 0
    for match in _PIECE().finditer(text, opening):
        first = text[match.start()]
        if first in _OPEN:
            depth += 1
        elif first in _CLOSE:
            depth -= 1
            if depth == 0:
                return match.end()
    return None


def call_at(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The extent of the call whose function's name ends with the word at [start, end) of `text`
    (`os.system(cmd)` around `system`), following line breaks and continuations inside it."""
    before = _NAME_BEFORE().search(text, max(0, start - 256), start)
    opening = _TO_CALL().match(text, end)
    if before is None or opening is None:
        return None
    close = _closing(text, opening.end() - 1)
    return None if close is None else (before.start(), close)

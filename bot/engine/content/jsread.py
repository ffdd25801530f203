"""A changed JavaScript or markup file read by the JavaScript lexer (`jslex.py`; in markup, its
JavaScript only: `markupjs.py`), and where each byte of a hunk's added or removed lines lies in that
read: in code, in a comment, or in neither (a string, template text, a regular expression, markup's
text).

A hunk's lines are placed in the read of that side's whole text when it is known and holds them as
they are; else they are read alone, a hunk starting with the lines of a doc comment opened before it
(` * …`) read as starting inside it. The read of a whole text is kept for the next rule that asks
(dangerous, suppression and invisible-unicode read the same files).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from bot.engine.content.added import Fragment
from bot.engine.content.filekinds import Kind
from bot.engine.content.jslex import Lexed, lex
from bot.engine.content.markupjs import markup_script
from bot.engine.lazyre import lazy

_DOC_LINE = lazy(rb"[ \t]*\*")
_NOT_NEWLINE = lazy(rb"[^\n]")


def _blank_outside(view: bytearray, blocks: list[tuple[int, int]]) -> None:
    done = 0
    for start, end in [*blocks, (len(view), len(view))]:
        view[done:start] = _NOT_NEWLINE().sub(b" ", bytes(view[done:start]))
        done = end


def doc_comment_lines(data: bytes) -> int:
    """Where the lines a hunk starts with inside a block comment opened before it end: the lines
    starting with `*` (a doc comment's), up to the `*/` that closes it. Only the new text would say
    for sure; this is what is read without it."""
    pos = 0
    while _DOC_LINE().match(data, pos):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        close = data.find(b"*/", pos, end)
        if close >= 0:
            return close + 2
        pos = end + 1
    return min(pos, len(data))


@lru_cache(maxsize=4)
def read_javascript(data: bytes, kind: Kind, path: str, *, starts_file: bool = True) -> Lexed:
    """`data` (a file's whole text, or a hunk's lines) read as JavaScript; in markup, its JavaScript
    only, each piece a script of its own, the rest blanked in the view. Every offset stays where it
    was."""
    if kind is Kind.MARKUP:
        script = markup_script(data, path, starts_file=starts_file)
        text, blocks = script.text, script.blocks
    else:
        text, blocks = data, [(0 if starts_file else doc_comment_lines(data), len(data))]
    lexed = lex(text, blocks)
    _blank_outside(lexed.view, blocks)
    return lexed


@lru_cache(maxsize=4)
def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    found = data.find(b"\n")
    while found >= 0:
        starts.append(found + 1)
        found = data.find(b"\n", found + 1)
    return starts


def _starts_in(fragment: Fragment, data: bytes, lines: Sequence[int] | None) -> list[int] | None:
    """The offset in `data` (a side's whole text, its lines numbered by `lines` when they are not
    the diff's own) of each line of `fragment`; None when the text does not hold them as they are."""
    starts = _line_starts(data)
    first: dict[int, int] = {}
    if lines is not None:
        for index, number in enumerate(lines):
            first.setdefault(number, index)
    seen: dict[int, int] = {}
    placed: list[int] = []
    line_start = 0
    for index, number in enumerate(fragment.numbers):
        at = first.get(number) if lines is not None else number - 1
        if at is None:
            return None
        at += index - seen.setdefault(number, index)
        line_end = fragment.data.find(b"\n", line_start)
        line_end = len(fragment.data) if line_end < 0 else line_end
        if at >= len(starts):
            return None
        start = starts[at]
        if data[start : start + line_end - line_start] != fragment.data[line_start:line_end]:
            return None
        placed.append(start)
        line_start = line_end + 1
    return placed


class FragmentReading:
    """Where each byte of a fragment lies in a read of JavaScript: the fragment's own, or that of
    the text holding it (`starts`: the offset there of each of its lines)."""

    __slots__ = ("fragment", "lexed", "starts")

    def __init__(self, fragment: Fragment, lexed: Lexed, starts: list[int] | None) -> None:
        self.fragment = fragment
        self.lexed = lexed
        self.starts = starts

    def _offset(self, at: int) -> int:
        if self.starts is None:
            return at
        return self.starts[self.fragment.index_at(at)] + at - self.fragment.line_bounds(at)[0]

    def code(self, at: int) -> bool:
        return self.lexed.code(self._offset(at))

    def comment(self, at: int) -> bool:
        return self.lexed.comment(self._offset(at))


def read_fragment(
    fragment: Fragment, kind: Kind, path: str, source: str | None, lines: Sequence[int] | None
) -> FragmentReading:
    """`fragment` (of a JavaScript or markup file at `path`) placed in the read of `source`, the
    whole text of its side (`lines`: the diff line of each of its lines, when not their own), or
    read alone."""
    if source is not None:
        data = source.encode("utf-8", "surrogatepass")
        starts = _starts_in(fragment, data, lines)
        if starts is not None:
            return FragmentReading(fragment, read_javascript(data, kind, path), starts)
    alone = read_javascript(fragment.data, kind, path, starts_file=fragment.numbers[0] == 1)
    return FragmentReading(fragment, alone, None)

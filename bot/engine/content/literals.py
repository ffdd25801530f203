"""The quoted string literal a secret starts in, so a secret on one line never runs past the literal
that holds it: `f.write("... password bbbb\\n")` holds the password `bbbb`, not `bbbb\\n")`. A
secret of a format that spans lines (a PEM key, written as concatenated literals too) is left whole.

Quotes are read on the secret's own line, left to right with backslash escapes, as the languages
that write credentials in strings read them (Python, JavaScript, shell, JSON, YAML). Inside the
literal, the escapes of whitespace (`\\n`, `\\t`, `\\r`) are the whitespace they stand for.
"""

from __future__ import annotations

import re

_QUOTE = re.compile(rb"['\"\x60]")
_STATE = re.compile(rb"[\\'\"\x60]")
_WHITESPACE_ESCAPE = re.compile(rb"\\[\s\S]")
_AS_WHITESPACE = {b"\\n": b"  ", b"\\t": b"  ", b"\\r": b"  "}


class Literals:
    """The literals of a fragment's lines. Offsets are asked about in increasing order (a
    detector's matches come so), and each line is read once up to the last one."""

    __slots__ = ("_data", "_escaped", "_opened", "_pos", "_quote")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = -1
        self._quote: int | None = None
        self._opened = -1
        self._escaped = False

    def _advance(self, offset: int) -> None:
        data = self._data
        later = 0 <= self._pos <= offset
        newline = data.rfind(b"\n", self._pos if later else 0, offset)
        if not later or newline >= 0:
            self._pos = newline + 1
            self._quote, self._escaped = None, False
        while self._pos < offset:
            if not self._escaped:
                found = _STATE.search(data, self._pos, offset)
                if found is None:
                    break
                self._pos = found.start()
            byte = data[self._pos]
            if self._escaped:
                self._escaped = False
            elif byte == 0x5C:
                self._escaped = True
            elif self._quote is None:
                self._quote, self._opened = byte, self._pos
            elif byte == self._quote:
                self._quote = None
            self._pos += 1
        self._pos = offset

    def bounding(self, start: int, end: int) -> tuple[int, int] | None:
        """(start, end) of the text of the literal that holds byte `start`, when that literal closes
        before `end`; None when `start` is in no literal or the span stays inside its literal."""
        data = self._data
        if _QUOTE.search(data, start, end) is None or data.find(b"\n", start, end) >= 0:
            return None  # no quote to run past; or a format that spans lines (and literals: a PEM key)
        self._advance(start)
        quote = self._quote
        if quote is None:
            return None
        escaped = self._escaped
        for at in range(start, end):
            byte = data[at]
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == quote:
                return self._opened + 1, at
        return None


def literal_text(data: bytes, start: int, end: int) -> bytes:
    """`data[start:end]` as the literal's reader takes its whitespace escapes, offsets kept."""
    return _WHITESPACE_ESCAPE.sub(lambda m: _AS_WHITESPACE.get(m.group(0), m.group(0)), data[start:end])

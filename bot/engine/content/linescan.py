"""Whether a match sits in a comment or a string of its line, for languages the engine has no reader
for: a test skip marker in Python, Go, Rust, Java, Kotlin or Ruby (suppression), and the identifiers
invisible-unicode judges in languages that comment with `#` or, as the C family does (Go, Rust, Java,
C, …), with `//` (`slash_comments`, or `Kind.JAVASCRIPT`). JavaScript itself is read by its lexer
(`jsread.py`)."""

from __future__ import annotations

import re

from bot.engine.content.filekinds import Kind

_IN_CODE = re.compile(rb"[\\'\"\x60#/]")
_IN_QUOTE = re.compile(rb"[\\'\"\x60]")


class LineScan:
    """Whether a position on a line is inside a comment or a string, read left to right once, so
    many matches on one long line cost one pass over it."""

    def __init__(self, data: bytes, kind: Kind, *, slash_comments: bool = False) -> None:
        """`slash_comments`: the file's language comments as JavaScript does (`//`, `/* */`: Go,
        Rust, Java, Kotlin), whatever its kind."""
        self.data = data
        self.javascript = slash_comments or kind is Kind.JAVASCRIPT
        self.marker = b"//" if self.javascript else b"#"
        self.line_start = -1
        self.seen = 0
        self.pos = 0
        self.quote: int | None = None
        self.escaped = False
        self.comment = False

    def _new_line(self, line_start: int) -> None:
        self.line_start = self.pos = line_start
        self.quote, self.escaped, self.comment = None, False, False
        if self.javascript:
            first = self.data[line_start : line_start + 256].lstrip(b" \t")
            self.comment = first.startswith((b"*", b"/*"))

    def hidden(self, start: int) -> bool:
        """Whether `start` lies in a comment or an open quote of its line."""
        self._advance(start)
        return self.comment or self.quote is not None

    def _advance(self, start: int) -> None:
        """Read the line up to `start`. Calls come in increasing order of `start`; each byte is looked
        at once over all of them."""
        newline = self.data.rfind(b"\n", self.seen, start)
        if newline >= 0 or self.line_start < 0:
            self._new_line(newline + 1)
        self.seen = start
        line_start = self.line_start
        data = self.data
        while self.pos < start and not self.comment:
            if not self.escaped:  # skip, in C, to the next byte that can change the state
                found = (_IN_QUOTE if self.quote is not None else _IN_CODE).search(data, self.pos, start)
                if found is None:
                    self.pos = start
                    break
                self.pos = found.start()
            byte = data[self.pos]
            if self.escaped:
                self.escaped = False
            elif byte == 0x5C:  # backslash
                self.escaped = True
            elif self.quote is not None:
                self.quote = None if byte == self.quote else self.quote
            elif byte in b"'\"\x60":
                self.quote = byte
            elif data.startswith(self.marker, self.pos) and (
                self.javascript or self.pos == line_start or data[self.pos - 1] in b" \t"
            ):
                self.comment = True
            self.pos += 1

"""JavaScript read as its lexer reads it, across lines: which bytes are code.

A line-by-line guess is defeated by anything that carries the lexer's state over a line break or
misreads one token: a template literal spanning lines, a block comment ending mid-line, a string
continued by a backslash, a regular expression holding a quote (`/"/; eval(x)`). So the text is
read once, left to right, as JavaScript's lexer does: strings, template literals (their `${…}`
substitutions are code again, to any depth), regular expressions (told from division by the token
before the slash, as the grammar does), comments, and identifiers spelled with escapes
(`\\u0065val` is `eval`).

The result is a `view` of the same length, every offset where it was: comments and regular
expressions' bodies are blanked (line breaks kept), escaped identifiers and string literals that
spell a name through escapes (`"\\x65val"`) are written out (padded with spaces); `hidden` says
which offsets lie inside a string or a template literal's text, `comment` which in a comment, and
`code` which in neither nor a regular expression (what a marker or an identifier is judged by).
The whole read is linear: each byte is passed once, looking back only over the blanks and the one
word before a slash or a brace.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from bot.engine.lazyre import lazy

# What can change the lexer's state in code: quotes, slashes, escapes, brackets.
_CODE_STOP = lazy(rb"[\"'`/\\(){}]")
_TEMPLATE_STOP = lazy(rb"[`\\]|\$\{")
_STRING_STOP = {
    0x22: lazy(rb"[\\\n\"]"),
    0x27: lazy(rb"[\\\n']"),
}
_REGEX_STOP = lazy(rb"[\\/\[\]\n]")
_IDENTIFIER = lazy(rb"(?:[\w$]|\\u[0-9a-fA-F]{4}|\\u\{[0-9a-fA-F]{1,6}\})+")
_ESCAPE = lazy(
    rb"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|u\{([0-9a-fA-F]{1,6})\}|([0-7]{1,3})|(\r\n|[\s\S]))"
)
_NAME = lazy(rb"[\w$]+")
_NOT_LINE_BREAK = lazy(rb"[^\n\r]")
# JavaScript's line separators end no string since ES2019; sourcetext.py put a line feed after each.
_SEPARATORS = (b"\xe2\x80\xa8", b"\xe2\x80\xa9")
# After these words a slash starts a regular expression, and a brace an object literal.
_BEFORE_EXPRESSION = frozenset(
    b"return typeof instanceof in of new delete void throw case do else yield await".split()
)
_CONDITION_HEADS = frozenset(b"if while for with".split())
_BLANK = b" \t\n\r\f\v"
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_OPERATORS_BEFORE_OBJECT = frozenset(b"(,=:[?!&|+-*%<>~^")
# Bracket kinds on the stack: a parenthesis (after if/while/for/with or not), a brace opening a
# block, an object literal, or a template literal's substitution.
_CONDITION, _PARENTHESIS, _BLOCK, _OBJECT, _SUBSTITUTION = range(5)


class _Spans:
    """Spans of a text added left to right, and whether an offset lies in one."""

    __slots__ = ("ends", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def add(self, start: int, end: int) -> None:
        self.starts.append(start)
        self.ends.append(end)

    def __contains__(self, offset: int) -> bool:
        at = bisect_right(self.starts, offset) - 1
        return at >= 0 and offset < self.ends[at]


@dataclass
class Lexed:
    """A text read as JavaScript: its `view`, and the spans of its string and template text, its
    comments, its regular expressions' bodies and (when not the whole text) what was read."""

    view: bytearray
    strings: _Spans = field(default_factory=_Spans)
    comments: _Spans = field(default_factory=_Spans)
    regexes: _Spans = field(default_factory=_Spans)
    blocks: _Spans | None = None

    def hidden(self, offset: int) -> bool:
        """Whether `offset` lies inside a string literal or a template literal's text."""
        return offset in self.strings

    def comment(self, offset: int) -> bool:
        """Whether `offset` lies inside a comment (its `//` or `/*` included)."""
        return offset in self.comments

    def code(self, offset: int) -> bool:
        """Whether `offset` lies in code: in what was read as JavaScript, and in no comment,
        string, template text or regular expression."""
        if self.blocks is not None and offset not in self.blocks:
            return False
        return offset not in self.strings and offset not in self.comments and offset not in self.regexes

    def _hide(self, start: int, end: int) -> None:
        self.strings.add(start, end)

    def _blank(self, start: int, end: int, spans: _Spans | None = None) -> None:
        if spans is not None:
            spans.add(start, end)
        self.view[start:end] = _NOT_LINE_BREAK().sub(b" ", bytes(self.view[start:end]))


def _unescaped(match: re.Match[bytes]) -> bytes:
    hexa = match.group(1) or match.group(2) or match.group(3)
    if hexa is not None:
        return chr(min(int(hexa, 16), 0x10FFFF)).encode("utf-8", "surrogatepass")
    octal = match.group(4)
    if octal is not None:
        return bytes([int(octal, 8) & 0xFF]) if int(octal, 8) < 0x80 else b"\x80"
    other: bytes = match.group(5)
    return b"" if other in (b"\n", b"\r\n", b"\r") else other


class _Reader:
    """One pass over `data[start:end]`, writing into `lexed`."""

    def __init__(self, data: bytes, lexed: Lexed) -> None:
        self.data = data
        self.lexed = lexed
        self.stack: list[int] = []
        self.closes_condition: set[int] = set()
        self.closes_object: set[int] = set()
        # Up to where slashes are read as divisions: after a regular expression that does not end
        # on its line (a syntax error, so none of the file runs), the rest of the line is code,
        # and no slash on it is read to the line's end again.
        self.divisions_until = -1

    def read(self, start: int, end: int) -> None:
        data = self.data
        code_stop = _CODE_STOP()
        pos = start
        while pos < end:
            found = code_stop.search(data, pos, end)
            if found is None:
                return
            at = found.start()
            byte = data[at]
            if byte in b"'\"":
                pos = self._string(at, end)
            elif byte == 0x60:
                pos = self._template_text(at, end)
            elif byte == 0x2F:
                pos = self._slash(at, end)
            elif byte == 0x5C:
                pos = self._escaped_identifier(at, end)
            else:
                pos = self._bracket(at, byte, end)

    def _previous(self, at: int) -> int:
        """The offset of the last byte before `at` that is not blank in the view (-1 if none)."""
        view = self.lexed.view
        at -= 1
        while at >= 0 and view[at] in _BLANK:
            at -= 1
        return at

    def _word_before(self, end: int) -> bytes:
        """The word of the view ending at `end` (inclusive)."""
        view = self.lexed.view
        start = end
        while start > 0 and view[start - 1] in _WORD_BYTES:
            start -= 1
        return bytes(view[start : end + 1])

    def _expression_expected(self, at: int) -> bool:
        """Whether the token before `at` leaves the grammar expecting an expression: a slash there
        starts a regular expression, a brace an object literal."""
        before = self._previous(at)
        if before < 0:
            return True
        byte = self.lexed.view[before]
        if byte in _WORD_BYTES or byte >= 0x80:
            return self._word_before(before) in _BEFORE_EXPRESSION
        if byte == 0x29:  # `)`
            return before in self.closes_condition
        if byte == 0x7D:  # `}`
            return before not in self.closes_object
        if byte in b"+-" and before > 0 and self.lexed.view[before - 1] == byte:
            return False  # a postfix `++`/`--`
        return byte not in b"]\"'`"

    def _bracket(self, at: int, byte: int, end: int) -> int:
        stack = self.stack
        if byte == 0x28:  # `(`
            before = self._previous(at)
            head = before >= 0 and self._word_before(before) in _CONDITION_HEADS
            stack.append(_CONDITION if head else _PARENTHESIS)
        elif byte == 0x29:  # `)`
            if stack and stack[-1] in (_CONDITION, _PARENTHESIS) and stack.pop() == _CONDITION:
                self.closes_condition.add(at)
        elif byte == 0x7B:  # `{`
            stack.append(_OBJECT if self._object_opens(at) else _BLOCK)
        else:  # `}`
            while stack and stack[-1] in (_CONDITION, _PARENTHESIS):
                stack.pop()
            kind = stack.pop() if stack else _BLOCK
            if kind == _SUBSTITUTION:
                return self._template_text(at, end)
            if kind == _OBJECT:
                self.closes_object.add(at)
        return at + 1

    def _object_opens(self, at: int) -> bool:
        before = self._previous(at)
        if before < 0:
            return False
        view = self.lexed.view
        byte = view[before]
        if byte in _WORD_BYTES:
            return self._word_before(before) in _BEFORE_EXPRESSION
        if byte == 0x3E and before > 0 and view[before - 1] == 0x3D:
            return False  # an arrow function's body
        return byte in _OPERATORS_BEFORE_OBJECT

    def _string(self, at: int, end: int) -> int:
        data = self.data
        stop = _STRING_STOP[data[at]]()
        pos = at + 1
        while True:
            found = stop.search(data, pos, end)
            if found is None:
                close = end
                break
            pos = found.start()
            byte = data[pos]
            if byte == 0x5C:
                pos += 3 if data.startswith(b"\r\n", pos + 1) else 2
            elif byte == 0x0A and data.endswith(_SEPARATORS, 0, pos):
                pos += 1
            else:
                close = pos + 1 if byte != 0x0A else pos  # a line break ends an unterminated string
                break
        self.lexed._hide(at, close)
        self._spelt_name(at, min(close, end))
        return close

    def _spelt_name(self, at: int, close: int) -> None:
        """Write out a string literal that spells a name through escapes (`"\\x65val"`)."""
        data = self.data
        inner = data[at + 1 : close - 1]
        if b"\\" not in inner or close - at < 2 or data[close - 1] != data[at]:
            return
        spelt = _ESCAPE().sub(_unescaped, inner)
        if _NAME().fullmatch(spelt):
            view = self.lexed.view
            written = bytes([data[at]]) + spelt + bytes([data[at]])
            view[at:close] = written + b" " * (close - at - len(written))

    def _template_text(self, at: int, end: int) -> int:
        """Template text from `at` (its backtick or the `}` closing a substitution) to the next
        backtick or `${`, hidden; the offset after it."""
        data = self.data
        stop = _TEMPLATE_STOP()
        pos = at + 1
        while True:
            found = stop.search(data, pos, end)
            if found is None:
                self.lexed._hide(at, end)
                return end
            pos = found.start()
            if data[pos] == 0x5C:
                pos += 2
                continue
            if data[pos] == 0x60:
                self.lexed._hide(at, pos + 1)
                return pos + 1
            self.stack.append(_SUBSTITUTION)
            self.lexed._hide(at, pos + 2)
            return pos + 2

    def _slash(self, at: int, end: int) -> int:
        data = self.data
        following = data[at + 1 : at + 2]
        if following == b"/":
            close = data.find(b"\n", at, end)
            close = end if close < 0 else close
            self.lexed._blank(at, close, self.lexed.comments)
            return close
        if following == b"*":
            close = data.find(b"*/", at + 2, end)
            close = end if close < 0 else close + 2
            self.lexed._blank(at, close, self.lexed.comments)
            return close
        if at < self.divisions_until or not self._expression_expected(at):
            return at + 1
        regex_end = self._regex_end(at, end)
        if regex_end is None:
            line_end = data.find(b"\n", at, end)
            self.divisions_until = end if line_end < 0 else line_end
            return at + 1
        self.lexed._blank(at + 1, regex_end - 1, self.lexed.regexes)
        return regex_end

    def _regex_end(self, at: int, end: int) -> int | None:
        """The offset after a regular expression literal starting at `at`, or None when none ends on
        its line (then the slash was a division)."""
        data = self.data
        stop = _REGEX_STOP()
        pos = at + 1
        in_class = False
        while True:
            found = stop.search(data, pos, end)
            if found is None:
                return None
            pos = found.start()
            byte = data[pos]
            if byte == 0x0A or (byte == 0x5C and data[pos + 1 : pos + 2] in (b"\n", b"")):
                return None
            if byte == 0x5C:
                pos += 2
                continue
            if byte == 0x2F and not in_class:
                return pos + 1
            in_class = (byte == 0x5B) or (in_class and byte != 0x5D)
            pos += 1

    def _escaped_identifier(self, at: int, end: int) -> int:
        """An identifier spelt with escapes (`ev\\u0061l`), written out in the view."""
        data = self.data
        start = at
        while start > 0 and data[start - 1] in _WORD_BYTES:
            start -= 1
        found = _IDENTIFIER().match(data, start, end)
        if found is None or found.end() <= at + 1:
            return at + 1
        spelt = _ESCAPE().sub(_unescaped, found.group())
        view = self.lexed.view
        view[start : found.end()] = spelt + b" " * (found.end() - start - len(spelt))
        return found.end()


def lex(data: bytes, blocks: list[tuple[int, int]] | None = None) -> Lexed:
    """`data` read as JavaScript; with `blocks`, only those spans, each a script of its own (the
    rest of the view is left as it is)."""
    lexed = Lexed(bytearray(data))
    if blocks is not None:
        lexed.blocks = _Spans()
    for start, end in [(0, len(data))] if blocks is None else blocks:
        if lexed.blocks is not None:
            lexed.blocks.add(start, end)
        _Reader(data, lexed).read(start, end)
    return lexed

"""PowerShell read as its tokenizer reads it, across lines: which bytes are code, and its tokens.

A line-by-line guess reads a string's text as code, or misses a command its writer disguised: its
names are case-insensitive (`InVoKe-ExPrEsSiOn`), a backquote before an ordinary character inside a
word is dropped (`i\x60e\x60x` is `iex`), one ending a line continues it, and quotes inside a bare
word join it (`i'e'x`). So the text is read once, left to right: comments (`# …`, `<# … #>`),
single-quoted strings (`''` a quote, no escapes), double-quoted ones (backquote escapes; their
`$(…)` is code again, to any depth), here-strings (`@'…'@`, `@"…"@`, ending at a line that starts
with the closing pair), and the typographic quotes and dashes PowerShell also takes for `'`, `"`
and `-`.

The `view` has the same length: comments and continuations are blanked, and a word spelled with
backquotes, quotes or a typographic dash is written out (padded with spaces), as is a member named
by a fixed string (`$x."Invoke"()`); `hidden` says which offsets lie in a string's text. The
`tokens` are what the constructs read commands from (`pwshconstructs.py`): a word's `text` is what
PowerShell makes of it, a string's `text` its value with `\\0` where an expansion (`$x`, `$(…)`)
makes it computed. Linear: each byte is passed once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum, auto

from bot.engine.content.jslex import Lexed
from bot.engine.lazyre import lazy


class T(Enum):
    """A token's kind."""

    WORD = auto()  # a bare word: a command's name, an argument, a parameter, an operator (`-join`)
    STRING = auto()
    VARIABLE = auto()  # `$x`, `${x}`, `$env:X`, `@splat`
    MEMBER = auto()  # `.Name` or `::Name` right after a value
    OPEN = auto()  # `(`, `$(`, `@(`, `{`, `@{`, `[`
    CLOSE = auto()
    END = auto()  # what ends a statement: a line break, `;`, `&&`, `||`
    PIPE = auto()
    CALL = auto()  # the call operator `&` (or a trailing `&`: a background job)
    DOT = auto()  # `.` then a blank: dot-sourcing
    ASSIGN = auto()  # `=`, `+=`
    COMMA = auto()


# The bytes a computed part of a string's value is written as.
COMPUTED = "\0"


@dataclass(slots=True)
class Token:
    kind: T
    start: int
    end: int
    text: str = ""
    # The index of the token after this one and all inside it (a bracket's contents, a string's `$(…)`).
    after: int = 0


@dataclass
class PwshLexed:
    lexed: Lexed
    tokens: list[Token] = field(default_factory=list)


_SINGLE = ("'", "\u2018", "\u2019", "\u201a", "\u201b")
_DOUBLE = ('"', "\u201c", "\u201d", "\u201e")
DASHES = ("\u2013", "\u2014", "\u2015")
_SINGLE_BYTES = tuple(q.encode() for q in _SINGLE)
_DOUBLE_BYTES = tuple(q.encode() for q in _DOUBLE)
_DASH_BYTES = tuple(d.encode() for d in DASHES)
_QUOTE_ALTERNATIVES = b"|".join(q for q in (*_SINGLE_BYTES, *_DOUBLE_BYTES) if len(q) > 1)
_SINGLE_STOP = lazy(b"'|" + b"|".join(q for q in _SINGLE_BYTES if len(q) > 1))
_DOUBLE_STOP = lazy(rb"[`$]|" + b"|".join(_DOUBLE_BYTES))
_HERE_DOUBLE_STOP = lazy(rb"[`$]|\n[ \t]*(?:" + b"|".join(_DOUBLE_BYTES) + b")@")
_HERE_SINGLE_END = lazy(rb"\n[ \t]*(?:" + b"|".join(_SINGLE_BYTES) + b")@")
_HERE_OPEN = lazy(rb"@(" + b"|".join((*_SINGLE_BYTES, *_DOUBLE_BYTES)) + rb")[ \t]*\r?\n")
# What PowerShell also reads as a blank (U+00A0 and the other spaces of Unicode), and as a line's
# end (a carriage return alone, U+0085, U+2028, U+2029).
_SPACES = rb"\xc2\xa0|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xaf]|\xe2\x81\x9f|\xe3\x80\x80"
_LINE_END_ALTERNATIVES = rb"\r|\n|\xc2\x85|\xe2\x80[\xa8\xa9]"
_LINE_ENDS = frozenset({b"\r", b"\n", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9"})
_OTHER_BLANK = lazy(_SPACES + b"|" + _LINE_END_ALTERNATIVES)
_LINE_END = lazy(_LINE_END_ALTERNATIVES)
# Where a bare word may end, or change what it is: blanks, brackets, separators, quotes, escapes.
_WORD_STOP = lazy(
    rb"[\s;|&(){}\[\],`$'\"]|" + _QUOTE_ALTERNATIVES + b"|" + _SPACES + b"|" + _LINE_END_ALTERNATIVES
)
# A word of ASCII that ends at a blank or a bracket, with nothing in it to read (no escape, quote,
# variable or character PowerShell reads otherwise).
_PLAIN_WORD = lazy(rb"[^\s;|&(){}\[\],`$'\"\x80-\xff]+(?=[ \t\n;|(){}\[\],]|\Z)")
_VARIABLE_NAME = lazy(rb"(?:[\w]+:)?[\w?]+|[$?^_]")
_MEMBER_NAME = lazy(rb"[\w]+")
_BLANK = b" \t\r\f\v\xa0"
_DEPTH = 64
_VALUE_ENDS = frozenset({T.VARIABLE, T.CLOSE, T.MEMBER, T.STRING})


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.lexed = Lexed(bytearray(data))
        self.tokens: list[Token] = []
        self.opened: list[int] = []  # indices of the open brackets
        self.depth = 0  # strings' `$(…)` inside one another

    def add(self, kind: T, start: int, end: int, text: str = "") -> Token:
        token = Token(kind, start, end, text, len(self.tokens) + 1)
        self.tokens.append(token)
        return token

    def write(self, start: int, end: int, text: str) -> None:
        """Show the span as `text` (no longer than it), padded with spaces."""
        written = text.encode("utf-8", "replace")[: end - start]
        self.lexed.view[start:end] = written + b" " * (end - start - len(written))

    def read(self) -> PwshLexed:
        data = self.data
        pos, end = 0, len(data)
        while pos < end:
            pos = self.step(pos)
        for index in self.opened:  # brackets left open hold the rest
            self.tokens[index].after = len(self.tokens)
        return PwshLexed(self.lexed, self.tokens)

    def step(self, pos: int) -> int:
        data = self.data
        char = data[pos : pos + 1]
        if char in (b" ", b"\t", b"\f", b"\v"):
            return pos + 1
        other = _OTHER_BLANK().match(data, pos)
        if other is not None:
            if other.group() in _LINE_ENDS:
                self.add(T.END, pos, other.end())
            return other.end()
        if char == b"#":
            return self.comment(pos)
        if data.startswith(b"<#", pos):
            return self.block_comment(pos)
        if char == b"`":
            return self.escape_at_start(pos)
        if data.startswith(_SINGLE_BYTES, pos) or data.startswith(_DOUBLE_BYTES, pos):
            return self.string(pos)
        if char == b"@":
            return self.at(pos)
        if char == b"$":
            return self.dollar(pos)
        if char in (b"(", b"{", b"["):
            self.open(pos, pos + 1, char.decode())
            return pos + 1
        if char in (b")", b"}", b"]"):
            return self.close(pos)
        if char == b";":
            self.add(T.END, pos, pos + 1)
            return pos + 1
        if char == b"|":
            double = data.startswith(b"||", pos)
            self.add(T.END if double else T.PIPE, pos, pos + 1 + double)
            return pos + 1 + double
        if char == b"&":
            double = data.startswith(b"&&", pos)
            self.add(T.END if double else T.CALL, pos, pos + 1 + double)
            return pos + 1 + double
        if char == b",":
            self.add(T.COMMA, pos, pos + 1)
            return pos + 1
        if char == b"=":
            self.add(T.ASSIGN, pos, pos + 1)
            return pos + 1
        if char == b"+":  # what joins strings (`'ie'+'x'`), or the `+` of `+=`
            self.add(T.WORD, pos, pos + 1, "+")
            return pos + 1
        if char in (b".", b":") and self.follows_value(pos):
            return self.member(pos)
        if char == b"." and data[pos + 1 : pos + 2] in (b" ", b"\t", b"(", b"$", b"{", b"'", b'"', b"&"):
            self.add(T.DOT, pos, pos + 1)
            return pos + 1
        return self.word(pos)

    def follows_value(self, pos: int) -> bool:
        """Whether a `.` or `::` at `pos` reads a member of the value just before it."""
        if not self.tokens or self.tokens[-1].end != pos:
            return False
        last = self.tokens[-1]
        return last.kind in _VALUE_ENDS and (
            self.data[pos : pos + 1] == b"." or self.data.startswith(b"::", pos)
        )

    def comment(self, pos: int) -> int:
        found = _LINE_END().search(self.data, pos)
        end = len(self.data) if found is None else found.start()
        self.lexed._blank(pos, end, self.lexed.comments)
        return end

    def block_comment(self, pos: int) -> int:
        found = self.data.find(b"#>", pos + 2)
        end = len(self.data) if found < 0 else found + 2
        self.lexed._blank(pos, end, self.lexed.comments)
        return end

    def escape_at_start(self, pos: int) -> int:
        """A backquote where a token would start: a continuation before a line break, else the start
        of a word (`\x60iex`)."""
        if self.data[pos + 1 : pos + 2] == b"\n" or self.data.startswith(b"\r\n", pos + 1):
            end = pos + (3 if self.data[pos + 1] == 0x0D else 2)
            self.lexed.view[pos:end] = b" " * (end - pos)  # the command goes on: one line in the view
            return end
        return self.word(pos)

    def open(self, start: int, end: int, text: str) -> None:
        self.opened.append(len(self.tokens))
        self.add(T.OPEN, start, end, text)

    def close(self, pos: int) -> int:
        if self.opened:
            self.tokens[self.opened.pop()].after = len(self.tokens) + 1
        self.add(T.CLOSE, pos, pos + 1)
        return pos + 1

    def at(self, pos: int) -> int:
        data = self.data
        here = _HERE_OPEN().match(data, pos)
        if here is not None:
            return self.here_string(pos, here.end(), here.group(1) in _SINGLE_BYTES)
        following = data[pos + 1 : pos + 2]
        if following in (b"(", b"{"):
            self.open(pos, pos + 2, "@" + following.decode())
            return pos + 2
        name = _VARIABLE_NAME().match(data, pos + 1)
        if name is not None:  # a splat: `@args`
            self.add(T.VARIABLE, pos, name.end(), _text(name.group()).lower())
            return name.end()
        return self.word(pos)

    def dollar(self, pos: int) -> int:
        data = self.data
        if data.startswith(b"$(", pos):
            self.open(pos, pos + 2, "$(")
            return pos + 2
        if data.startswith(b"${", pos):
            found = data.find(b"}", pos + 2)
            end = len(data) if found < 0 else found + 1
            self.add(T.VARIABLE, pos, end, _text(data[pos + 2 : end - 1]).lower())
            return end
        name = _VARIABLE_NAME().match(data, pos + 1)
        if name is None:
            return self.word(pos)
        self.add(T.VARIABLE, pos, name.end(), _text(name.group()).lower())
        return name.end()

    def member(self, pos: int) -> int:
        data = self.data
        start = pos + (2 if data.startswith(b"::", pos) else 1)
        token = self.add(T.MEMBER, pos, pos)
        if data.startswith(_SINGLE_BYTES, start) or data.startswith(_DOUBLE_BYTES, start):
            end, text = self.quoted(start, hide=False)
            if COMPUTED not in text:  # `."InvokeScript"(…)` is `.InvokeScript(…)`
                self.write(pos, end, data[pos:start].decode() + text)
        else:
            name = _MEMBER_NAME().match(data, start)
            end = start if name is None else name.end()
            text = _text(data[start:end])
        self.finish(token, end, text.lower())
        return end

    def finish(self, token: Token, end: int, text: str) -> None:
        token.end, token.text, token.after = end, text, len(self.tokens)

    def word(self, pos: int) -> int:
        """A bare word to where it ends, its text as PowerShell makes it: backquotes dropped, quoted
        parts joined, a typographic dash first read as `-`."""
        data = self.data
        plain = _PLAIN_WORD().match(data, pos)
        if plain is not None:  # most words: ASCII, nothing inside to read
            self.add(T.WORD, pos, plain.end(), plain.group().decode())
            return plain.end()
        token = self.add(T.WORD, pos, pos)
        parts: list[str] = []
        start = pos
        spelled = False
        for dash in _DASH_BYTES:
            if data.startswith(dash, pos):
                parts.append("-")
                pos += len(dash)
                spelled = True
        stop = _WORD_STOP()
        while pos < len(data):
            found = stop.search(data, pos)
            at = len(data) if found is None else found.start()
            parts.append(_text(data[pos:at]))
            pos = at
            if found is None:
                break
            char = found.group()
            if char == b"`":
                escaped = data[at + 1 : at + 2]
                if escaped in (b"\n", b"\r", b""):
                    break
                parts.append(_text(escaped))
                pos = at + 2
                spelled = True
            elif char == b"$":
                pos = self.expansion(at, parts)
            elif data.startswith(_SINGLE_BYTES, at) or data.startswith(_DOUBLE_BYTES, at):
                pos, text = self.quoted(at, hide=False)
                parts.append(text)
                spelled = True
            elif char == b"&" and data[at - 1 : at] == b">":  # `2>&1`
                parts.append("&")
                pos = at + 1
            else:
                break
        if pos == start:  # a byte no token starts with
            self.tokens.pop()
            return pos + 1
        text = "".join(parts)
        self.finish(token, pos, text)
        if spelled:
            self.write(start, pos, text.replace(COMPUTED, "$"))
        return pos

    def string(self, pos: int) -> int:
        token = self.add(T.STRING, pos, pos)
        end, text = self.quoted(pos, hide=True)
        self.finish(token, end, text)
        return end

    def quoted(self, pos: int, *, hide: bool) -> tuple[int, str]:
        """A quoted string's end and value; `hide`: its text is a string's (not a word's part)."""
        data = self.data
        if data.startswith(_SINGLE_BYTES, pos):
            quote = next(q for q in _SINGLE_BYTES if data.startswith(q, pos))
            end, text = self.single_body(pos + len(quote))
            if hide:
                self.lexed._hide(pos, end)
            return end, text
        quote = next(q for q in _DOUBLE_BYTES if data.startswith(q, pos))
        return self.double_body(pos, pos + len(quote), _DOUBLE_STOP(), hide=hide)

    def single_body(self, pos: int) -> tuple[int, str]:
        """A single-quoted string's end and value: any single quote ends it, two make one."""
        data = self.data
        parts: list[str] = []
        stop = _SINGLE_STOP()
        while True:
            found = stop.search(data, pos)
            if found is None:
                parts.append(_text(data[pos:]))
                return len(data), "".join(parts)
            parts.append(_text(data[pos : found.start()]))
            after = found.end()
            if not data.startswith(_SINGLE_BYTES, after):
                return after, "".join(parts)
            parts.append("'")
            pos = after + len(next(q for q in _SINGLE_BYTES if data.startswith(q, after)))

    def double_body(self, opened: int, pos: int, stop: re.Pattern[bytes], *, hide: bool) -> tuple[int, str]:
        """A double-quoted string's (or here-string's, opened at `opened`) end and value: backquote
        escapes, and `$x` and `$(…)` computed (the latter read as code, not hidden)."""
        data = self.data
        parts: list[str] = []
        here = stop is _HERE_DOUBLE_STOP()
        text_from = opened  # where the string's text not yet hidden starts
        while True:
            found = stop.search(data, pos)
            if found is None:
                parts.append(_text(data[pos:]))
                end = len(data)
                break
            at = found.start()
            parts.append(_text(data[pos:at]))
            token = found.group()
            if token == b"`":
                escaped = data[at + 1 : at + 2]
                parts.append(_text(escaped))
                pos = at + 1 + len(escaped)
            elif token == b"$":
                if data.startswith(b"$(", at) and hide:
                    self.lexed._hide(text_from, at)
                pos = self.expansion(at, parts)
                text_from = max(text_from, pos) if data.startswith(b"$(", at) else text_from
            elif not here and data.startswith(_DOUBLE_BYTES, found.end()):  # `""` is a quote
                parts.append('"')
                pos = found.end() + len(next(q for q in _DOUBLE_BYTES if data.startswith(q, found.end())))
            else:
                end = found.end()
                break
        if hide:
            self.lexed._hide(text_from, end)
        return end, "".join(parts)

    def expansion(self, at: int, parts: list[str]) -> int:
        """A `$` in a double-quoted string or a word: a variable, or a `$(…)` read as code to its
        `)` (past `_DEPTH` strings inside one another, the rest is read as code)."""
        data = self.data
        parts.append(COMPUTED)
        if data.startswith(b"$(", at) and self.depth < _DEPTH:
            self.depth += 1
            depth = len(self.opened)
            self.open(at, at + 2, "$(")
            pos = at + 2
            while pos < len(data) and len(self.opened) > depth:
                pos = self.step(pos)
            self.depth -= 1
            return pos
        if data.startswith(b"$(", at):
            return len(data)
        if data.startswith(b"${", at):
            found = data.find(b"}", at)
            return len(data) if found < 0 else found + 1
        name = _VARIABLE_NAME().match(data, at + 1)
        if name is None:
            parts[-1] = "$"
            return at + 1
        return name.end()

    def here_string(self, pos: int, body: int, single: bool) -> int:
        token = self.add(T.STRING, pos, pos)
        if single:
            found = _HERE_SINGLE_END().search(self.data, body - 1)
            end = len(self.data) if found is None else found.end()
            text = _text(self.data[body : end if found is None else found.start()])
            self.lexed._hide(pos, end)
        else:
            end, text = self.double_body(pos, body - 1, _HERE_DOUBLE_STOP(), hide=True)
            text = text[1:]  # the line break the body was read from
        self.finish(token, end, text)
        return end


def lex(data: bytes) -> PwshLexed:
    """`data` read as PowerShell: its view, strings and comments, and its tokens."""
    return _Reader(data).read()

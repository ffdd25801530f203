"""Shell read as the shell reads it, across lines: which bytes are code, and one command per line.

A line-by-line guess misses a command spread over lines (`curl … \\` then `| sh`, a pipeline whose
`|` ends a line, a quoted string spanning lines before it) and reads a string's text as code. So
the text is read once, left to right: comments, single-quoted and `$'…'` strings, double-quoted
strings whose `$(…)` and backquotes are code again (to any depth), backslash escapes, and here-
documents (their body read with quotes ending at each line, as the old line-by-line reading did:
text such as `Don't` in a body opens no quote, and a body given to a shell is still read). The
`view` has the same length: comments and line continuations are blanked, and a line break inside a
pipeline or a list (after `|`, `|&`, `&&`, `||`, or before a line that starts with one, which no
shell accepts alone) is a space, so one command reads as one line.

In a script quotes span lines; in a Dockerfile, a Makefile and a CI file each line (with its
continuations) is a command of its own, and a quote left open ends with it (`Don't` in a YAML
`name:` opens nothing beyond its line). A CI file's YAML quoting of a whole value (`run: "curl … |
sh"`) is not the shell's, and a Makefile's `$$` is the shell's `$`.
"""

from __future__ import annotations

import re

from bot.engine.content.jslex import Lexed
from bot.engine.lazyre import lazy

_CODE_STOP = lazy(rb"[#'\"\\`()]|\$[('\"]|<<")
_CODE_STOP_AT_LINES = lazy(rb"[#'\"\\`()\n]|\$[('\"]|<<")  # while here-documents wait for their body
_DOUBLE_STOP = lazy(rb"[\"\\`]|\$\(")
_HEREDOC = lazy(rb"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([\w.@%+-]+))")
_JOINED = lazy(rb"(?:\|&?|&&)[ \t]*\n|\n(?=[ \t]*(?:\||&&))")
# A YAML value quoted whole, on one line: the quotes are YAML's.
_YAML_QUOTED = lazy(
    rb"(?m)^([ \t]*(?:-[ \t]+)?(?:[\w.-]+:[ \t]+)?)(\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\n]|'')*')[ \t]*$"
)
_WORD_END = b" \t\n;&|()<>"
_LINE_BREAKS = b"\n\r"
# Bracket kinds on the stack: a parenthesis, a `$(` substitution, a backquoted one, and the double
# quotes a substitution returns to.
_PARENTHESIS, _SUBSTITUTION, _BACKQUOTE, _DOUBLE = range(4)


class _Reader:
    def __init__(self, data: bytes, lexed: Lexed, *, spanning: bool) -> None:
        self.data = data
        self.lexed = lexed
        self.spanning = spanning
        self.stack: list[int] = []
        self.heredocs: list[tuple[bool, bytes]] = []

    def read(self, start: int, end: int) -> None:
        data = self.data
        pos = start
        while pos < end:
            found = (_CODE_STOP_AT_LINES() if self.heredocs else _CODE_STOP()).search(data, pos, end)
            if found is None:
                return
            at = found.start()
            token = found.group()
            if token == b"#":
                pos = self._comment(at, end)
            elif token == b"'":
                pos = self._single(at, end, escapes=False)
            elif token == b"$'":
                pos = self._single(at + 1, end, escapes=True)
            elif token in (b'"', b'$"'):
                pos = self._double(at + len(token) - 1, at + len(token), end)
            elif token == b"\\":
                pos = self._escape(at)
            elif token == b"\n":
                pos = self._heredoc_bodies(at + 1, end) if self.heredocs else at + 1
            elif token == b"<<":
                pos = self._heredoc(at, end)
            else:
                pos = self._bracket(at, token, end)

    def _comment(self, at: int, end: int) -> int:
        if at > 0 and self.data[at - 1] not in _WORD_END:
            return at + 1  # `a#b` is a word
        close = self.data.find(b"\n", at, end)
        close = end if close < 0 else close
        self.lexed._blank(at, close)
        return close

    def _escape(self, at: int) -> int:
        if self.data[at + 1 : at + 2] == b"\n":
            self.lexed._blank(at, at + 1)  # a line continuation: the line break is joined below
            self.lexed.view[at + 1] = 0x20
        return at + 2

    def _quote_end(self, at: int, end: int) -> int:
        """Where a quote opened at `at` must end at the latest: the end, or its line's."""
        if self.spanning:
            return end
        close = self.data.find(b"\n", at, end)
        return end if close < 0 else close

    def _single(self, at: int, end: int, *, escapes: bool) -> int:
        data = self.data
        limit = self._quote_end(at, end)
        pos = at + 1
        while True:
            close = data.find(b"'", pos, limit)
            if close < 0:
                self.lexed._hide(at, limit)
                return limit
            if escapes and _escaped(data, close):
                pos = close + 1
                continue
            self.lexed._hide(at, close + 1)
            return close + 1

    def _double(self, at: int, text: int, end: int) -> int:
        """Double-quoted text from `text` (its quote at `at`, or the end of a substitution in it),
        hidden up to its closing quote or a substitution, where code starts again."""
        data = self.data
        limit = self._quote_end(text, end)
        stop = _DOUBLE_STOP()
        pos = text
        while True:
            found = stop.search(data, pos, limit)
            if found is None:
                self.lexed._hide(at, limit)
                return limit
            pos = found.start()
            token = found.group()
            if token == b"\\":
                pos += 2
            elif token == b'"':
                self.lexed._hide(at, pos + 1)
                return pos + 1
            else:
                self.lexed._hide(at, pos)
                self.stack += [_DOUBLE, _BACKQUOTE if token == b"`" else _SUBSTITUTION]
                return pos + len(token)

    def _bracket(self, at: int, token: bytes, end: int) -> int:
        stack = self.stack
        top = stack[-1] if stack else None
        if token == b"$(":
            stack.append(_SUBSTITUTION)
        elif token == b"(":
            stack.append(_PARENTHESIS)
        elif token == b"`" and top != _BACKQUOTE:
            stack.append(_BACKQUOTE)
        elif token == b"`" or top in (_PARENTHESIS, _SUBSTITUTION):
            stack.pop()
            if stack and stack[-1] == _DOUBLE:  # back in the double quotes the substitution was in
                stack.pop()
                return self._double(at + 1, at + 1, end)
        # else a `)` closing nothing it opened (a `case` pattern): passed over
        return at + len(token)

    def _heredoc(self, at: int, end: int) -> int:
        if self.data[at + 2 : at + 3] == b"<":
            return at + 3  # `<<<` is a here-string
        found = _HEREDOC().match(self.data, at, end)
        if found is None:
            return at + 2
        delimiter = found.group(2) or found.group(3) or found.group(4) or b""
        self.heredocs.append((found.group(1) == b"-", delimiter))
        return found.end()

    def _heredoc_bodies(self, start: int, end: int) -> int:
        """The bodies of the here-documents the line before `start` opened, each read with quotes
        ending at its lines; the offset after the last one's delimiter line."""
        data = self.data
        pos = start
        for tabs, delimiter in self.heredocs:
            ending = re.compile(rb"(?m)^" + (rb"\t*" if tabs else b"") + re.escape(delimiter) + rb"$")
            found = ending.search(data, pos, end)
            body_end = end if found is None else found.start()
            _Reader(data, self.lexed, spanning=False).read(pos, body_end)
            pos = end if found is None else min(found.end() + 1, end)
        self.heredocs = []
        return pos


def _escaped(data: bytes, at: int) -> bool:
    """Whether the byte at `at` follows an odd number of backslashes."""
    count = 0
    while at - count - 1 >= 0 and data[at - count - 1] == 0x5C:
        count += 1
    return count % 2 == 1


def _unquoted_yaml(data: bytes) -> bytes:
    def blank_quotes(found: re.Match[bytes]) -> bytes:
        value = found.group(2)
        return found.group(1) + b" " + value[1:-1] + b" " + found.group()[found.end(2) - found.start() :]

    return _YAML_QUOTED().sub(blank_quotes, data)


def lex(data: bytes, *, spanning: bool, yaml: bool = False, make: bool = False) -> Lexed:
    """`data` read as shell (`spanning`: quotes may span lines); a CI file's YAML quotes (`yaml`)
    or a Makefile's `$$` (`make`) read away first, every offset kept."""
    if yaml:
        data = _unquoted_yaml(data)
    if make:
        data = data.replace(b"$$", b" $")
    lexed = Lexed(bytearray(data))
    _Reader(data, lexed, spanning=spanning).read(0, len(data))
    view = lexed.view
    for found in _JOINED().finditer(view):
        at = found.end() - 1 if found.group().endswith(b"\n") else found.start()
        view[at] = 0x20
    return lexed

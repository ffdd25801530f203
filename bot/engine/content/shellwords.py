"""Words of shell code as the shell runs them: quotes removed, a variable replaced by its value.

Before the shell runs a word it removes its quotes and backslashes: `b\\ash`, `ba''sh`, `"ba"sh`
and `e"val"` are `bash` and `eval`. And a parameter expansion that makes a whole word (`$e`,
`${e}`, `"$e"`) is the value the file last assigned that name before it, when that value is a
fixed word (`e=eval`, `run="/bin/sh"`): `e=eval; $e "$x"` runs eval. Only words of fixed text are
rewritten (letters, digits, `_./+@%:,-`); a quoted space or operator stays as it is, since it joins
no command. Control flow is not followed: the assignment nearest before, in the text, counts.

The result is a view of the code (`shellscan.py`'s, its comments blanked) where each such word is
written as the shell reads it, with what is hidden (quoted text) and where each offset came from in
the text read, so a finding is still judged where it was written (`rewritten`, which
`shelldefinitions.py` uses to write an alias's or a function's use as the command it runs).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from bot.engine.content.jslex import Lexed
from bot.engine.lazyre import lazy

# Where a command starts, after which a word is its command word: `eval` after `;`, `then`, `$(`,
# `if`, `while`.
COMMAND_START = r"(?:^|[;&|({\x60]|\$\(|\b(?:then|do|else|if|elif|while|until)\b)[ \t]*"
_FIXED = rb"[\w./+@%:,-]"
_PIECE = rb"(?:%s|\\%s|'%s*'|\"%s*\")" % (_FIXED, _FIXED, _FIXED, _FIXED)
_BEFORE = rb"(?<![^\s;&|()<>\x60])"
_AFTER = rb"(?![^\s;&|()<>\x60])"
# A word of fixed text that the shell's quote removal changes.
# What quote removal changes in a word of fixed text: a quoted piece or an escaped character.
_QUOTING = lazy(rb"\\%s|'%s*'|\"%s*\"" % (_FIXED, _FIXED, _FIXED))
_WORD = lazy(_PIECE + rb"+" + _AFTER)
_FIXED_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+@%:,-")
_SEPARATORS = frozenset(b" \t\n\r\f\v;&|()<>\x60")
_FIXED_VALUE = lazy(_PIECE + rb"*")
# What leads a command in a Dockerfile (`RUN`, its flags) or a CI file's step (`- run:`), not the shell's.
LEADER = r"[ \t]*(?:RUN(?:[ \t]+--\S+)*|-?[ \t]*run:)[ \t]+"
# Where an assignment may start: where a command starts, past a builtin that declares names, then
# after each assignment (`NAME=` and a value of no whitespace, blanks after it).
_COMMAND_STARTS = lazy(COMMAND_START.encode(), re.MULTILINE)
_LEADERS = lazy(("^" + LEADER).encode(), re.MULTILINE)
_DECLARING = lazy(rb"(?:local|export|readonly|declare|typeset)(?:[ \t]+-\w+)*[ \t]+")
_ASSIGNING = lazy(rb"[A-Za-z_]\w*=")
_WHITESPACE = lazy(rb"\s")
_BLANKS = lazy(rb"[ \t]+")
# A parameter expansion that may make a whole word (what is around it is checked).
_EXPANDED = lazy(rb"\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\})")
_UNQUOTED = lazy(rb"\\(.)|['\"]")


@dataclass(frozen=True, slots=True)
class Words:
    """A view with its words as the shell runs them: `lexed` (its hidden spans moved with the
    text), `data` (the text read, rewritten alike: where its lines break), and for each offset of
    them the offset in the text read it came from (`original`)."""

    lexed: Lexed
    data: bytes
    _new_starts: tuple[int, ...]
    _old_starts: tuple[int, ...]
    _fixed: tuple[bool, ...]

    def original(self, offset: int) -> int:
        """Where `offset` of the rewritten view was in the text read (a rewritten word's start)."""
        at = bisect_right(self._new_starts, offset) - 1  # the first segment starts at 0
        shift = offset - self._new_starts[at]
        return self._old_starts[at] + (shift if self._fixed[at] else 0)


def _unquoted(word: bytes) -> bytes:
    return _UNQUOTED().sub(lambda found: found.group(1) or b"", word)


class _Assignments:
    """Where an assignment may start in a view: where a command starts (`COMMAND_START`, or a
    Dockerfile's or a CI step's leader), past a builtin that declares names (`export -n`), and
    after each assignment that follows one. Read a line at a time, when an assignment on it is
    asked about; assignments read from different starts may end at one blank (`a=;b=;c= x=1`, each
    `;` a start), so each position is read on from once and a value's end found among the line's
    whitespace: a line costs its length."""

    def __init__(self, view: bytes) -> None:
        self.view = view
        self.newlines = [found.start() for found in re.finditer(rb"\n", view)]
        self.lines: set[int] = set()  # the lines read, by their start
        self.starts: set[int] = set()

    def __contains__(self, start: int) -> bool:
        below = bisect_left(self.newlines, start)
        line = self.newlines[below - 1] + 1 if below > 0 else 0
        if line not in self.lines:
            self.lines.add(line)
            self._read(line, self.newlines[below] if below < len(self.newlines) else len(self.view))
        return start in self.starts

    def _read(self, line: int, end: int) -> None:
        view = self.view
        starts: list[int] = []
        for pattern in (_COMMAND_STARTS(), _LEADERS()):
            for found in pattern.finditer(view, line, end):
                declaring = _DECLARING().match(view, found.end(), end)
                starts += [found.end()] if declaring is None else [found.end(), declaring.end()]
        spaces = [found.start() for found in _WHITESPACE().finditer(view, line, end)]
        blanks_end: dict[int, int] = {}  # by where a value ends: where the blanks after it end
        for start in starts:
            at = start
            while at not in self.starts:
                self.starts.add(at)
                name = _ASSIGNING().match(view, at, end)
                index = len(spaces) if name is None else bisect_left(spaces, name.end())
                if index == len(spaces) or view[spaces[index]] not in b" \t":
                    break  # no assignment, or its value ends the line (or at a carriage return)
                space = spaces[index]
                if space not in blanks_end:
                    blanks = _BLANKS().match(view, space, end)
                    assert blanks is not None  # it starts with one
                    blanks_end[space] = blanks.end()
                at = blanks_end[space]


def _values(
    view: bytes, lexed: Lexed, names: set[bytes]
) -> tuple[list[int], list[tuple[bytes, bytes | None]]]:
    """Each assignment of the view to one of `names`, in order: where it is, and its name and value
    (None when the value is not a fixed word)."""
    offsets: list[int] = []
    assigned: list[tuple[bytes, bytes | None]] = []
    alternatives = b"|".join(re.escape(name) for name in sorted(names))
    assignments = _Assignments(view)
    for found in re.finditer(rb"(%s)=([^\s;&|()<>\x60]*)" % alternatives, view):
        start = found.start()
        if (start and view[start - 1] not in _SEPARATORS) or lexed.hidden(start) or start not in assignments:
            continue
        value = found.group(2)
        fixed = _FIXED_VALUE().fullmatch(value) is not None
        offsets.append(start)
        assigned.append((found.group(1), _unquoted(value) if fixed else None))
    return offsets, assigned


def _expansions(view: bytes) -> list[tuple[int, int, bytes]]:
    """The parameter expansions that make a whole word (`$e`, `${e}`, `"$e"`, `"${e}"`): where
    each is, and the name it expands."""
    found = []
    for use in _EXPANDED().finditer(view):
        start, end = use.span()
        if start > 0 and end < len(view) and view[start - 1] == view[end] == 0x22:
            start, end = start - 1, end + 1
        if (start == 0 or view[start - 1] in _SEPARATORS) and (end == len(view) or view[end] in _SEPARATORS):
            found.append((start, end, use.group(1) or use.group(2)))
    return found


def _code_word(lexed: Lexed, start: int) -> bool:
    """Whether a word starting at `start` starts in code, not inside a string."""
    return start == 0 or not lexed.hidden(start - 1)


def _quoted_words(view: bytes) -> Iterator[re.Match[bytes]]:
    """The words of fixed text that quote removal changes: found from their first quoted piece or
    escape (a search that skips to a quote), then read from where the word starts."""
    quoting, word = _QUOTING(), _WORD()
    pos = 0
    while (piece := quoting.search(view, pos)) is not None:
        start = piece.start()
        while start > 0 and view[start - 1] in _FIXED_BYTES:
            start -= 1
        whole = word.match(view, start) if start == 0 or view[start - 1] in _SEPARATORS else None
        if whole is None:
            pos = piece.start() + 1
            continue
        yield whole
        pos = whole.end()


def _replacements(view: bytes, lexed: Lexed) -> list[tuple[int, int, bytes]]:
    found: list[tuple[int, int, bytes]] = []
    for word in _quoted_words(view):
        if _code_word(lexed, word.start()):
            found.append((word.start(), word.end(), _unquoted(word.group())))
    uses = _expansions(view) if b"$" in view and b"=" in view else []
    offsets, assigned = _values(view, lexed, {name for _, _, name in uses}) if uses else ([], [])
    value: dict[bytes, bytes | None] = {}  # each name's value where the text has got to
    done = 0
    for start, end, name in uses if offsets else ():
        while done < len(offsets) and offsets[done] < start:
            assigned_name, value[assigned_name] = assigned[done]
            done += 1
        replaced = value.get(name)
        if replaced is not None and _code_word(lexed, start):
            found.append((start, end, replaced))
    return sorted(found)


def shell_words(lexed: Lexed, data: bytes) -> Words | None:
    """The view of `lexed` (read from `data`) with its words as the shell runs them; None when
    no word changes."""
    replaced = _replacements(bytes(lexed.view), lexed)
    return rewritten(lexed, data, replaced) if replaced else None


def rewritten(
    lexed: Lexed,
    data: bytes,
    replaced: list[tuple[int, int, bytes]],
    strings: Callable[[bytes], Iterable[tuple[int, int]]] | None = None,
) -> Words:
    """The view of `lexed` (read from `data`) with each span of `replaced` (sorted, apart) written
    as its text: code, but where `strings` says a text's own quoted text is."""
    view = bytes(lexed.view)
    new_view = bytearray()
    new_data = bytearray()
    new_starts: list[int] = []
    old_starts: list[int] = []
    fixed: list[bool] = []
    inserted: list[tuple[int, int]] = []
    done = 0
    for start, end, text in replaced:
        new_starts += [len(new_view), len(new_view) + start - done]
        old_starts += [done, start]
        fixed += [True, False]
        new_view += view[done:start]
        new_data += data[done:start]
        if strings is not None:
            inserted += [(len(new_view) + at, len(new_view) + until) for at, until in strings(text)]
        new_view += text
        new_data += text
        done = end
    new_starts.append(len(new_view))
    old_starts.append(done)
    fixed.append(True)
    new_view += view[done:]
    new_data += data[done:]
    words = Words(Lexed(new_view), bytes(new_data), tuple(new_starts), tuple(old_starts), tuple(fixed))
    moved = _Moved(replaced)
    for start, end in zip(lexed.strings.starts, lexed.strings.ends, strict=True):
        new_start, new_end = moved.offset(start), moved.offset(end, closing=True)
        if new_start < new_end:
            inserted.append((new_start, new_end))
    for start, end in sorted(inserted):  # the spans are added left to right
        words.lexed._hide(start, end)
    return words


class _Moved:
    """Where an offset of the text read is after the replacements (inside a replaced word: that
    word's start, so a span inside one is dropped)."""

    def __init__(self, replaced: list[tuple[int, int, bytes]]) -> None:
        self.starts = [start for start, _, _ in replaced]
        self.replaced = replaced
        shifts = [0]
        for start, end, text in replaced:
            shifts.append(shifts[-1] + len(text) - (end - start))
        self.shifts = shifts

    def offset(self, offset: int, *, closing: bool = False) -> int:
        """`closing`: the offset ends a span, so one ending where a replaced word does is inside it."""
        at = bisect_right(self.starts, offset - closing) - 1
        if at < 0:
            return offset
        start, end, _ = self.replaced[at]
        shift = self.shifts[at]
        if offset < end + closing:
            return start + shift
        return offset + self.shifts[at + 1]

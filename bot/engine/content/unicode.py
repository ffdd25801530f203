"""Invisible Unicode in added text, always on: bidirectional controls (the Trojan Source attack,
CVE-2021-42574), zero-width characters and tag characters (text hidden from a reviewer but read by
compilers and language models).

A zero-width joiner or non-joiner between two non-ASCII characters is writing (Persian, Indic
scripts, emoji sequences) and is left alone; next to ASCII it can only hide something. A byte order
mark at the very start of a file is a byte order mark.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from bot.engine.change import Change
from bot.engine.content.added import AddedFile, Fragment
from bot.engine.content.exclude import read_files
from bot.engine.content.limits import capped
from bot.engine.findings import RuleId, Violation
from bot.engine.manifest import Manifest
from bot.engine.regex import compile_re2

_BIDI = frozenset(map(chr, [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]))
_JOINERS = frozenset({"\u200c", "\u200d"})
_BOM = "\ufeff"
_INVISIBLE = compile_re2(
    r"[\x{202A}-\x{202E}\x{2066}-\x{2069}\x{200B}-\x{200D}\x{2060}\x{FEFF}\x{180E}\x{E0000}-\x{E007F}]+"
)
_LISTED = 3
_ADVICE = {
    "bidi-control": "invisible bidirectional control: code can read differently from how it runs "
    "(Trojan Source)",
    "unicode-tag": "invisible tag character: text a reviewer cannot see but a tool or a language model reads",
    "zero-width": "zero-width character: identifiers and strings that look identical but differ",
}


def _kind(char: str) -> str:
    if char in _BIDI:
        return "bidi-control"
    if ord(char) >= 0xE0000:
        return "unicode-tag"
    return "zero-width"


def _describe(char: str) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, 'TAG CHARACTER')}"


@dataclass(frozen=True, slots=True)
class _Hit:
    kind: str
    chars: tuple[str, ...]
    column: int


def _line_hits(line: str, at_file_start: bool) -> Iterator[_Hit]:
    by_kind: dict[str, list[tuple[int, str]]] = {}
    for match in _INVISIBLE.finditer(line):
        start, end = match.span()
        before = line[start - 1] if start else ""
        after = line[end] if end < len(line) else ""
        writing = before > "\x7f" and after > "\x7f"
        for offset, char in enumerate(match.group(0)):
            column = start + offset
            if (char in _JOINERS and writing) or (char == _BOM and at_file_start and column == 0):
                continue
            by_kind.setdefault(_kind(char), []).append((column, char))
    for kind, found in by_kind.items():
        yield _Hit(kind, tuple(c for _, c in found), found[0][0] + 1)


def _message(hit: _Hit) -> str:
    distinct = list(dict.fromkeys(hit.chars))
    names = ", ".join(_describe(c) for c in distinct[:_LISTED])
    more = f" and {len(distinct) - _LISTED} more" if len(distinct) > _LISTED else ""
    count = f"{len(hit.chars)} characters: " if len(hit.chars) > 1 else ""
    return (
        f"{count}{names}{more} at column {hit.column}: {_ADVICE[hit.kind]}. Remove it, or write it as an "
        "escape (such as \\u202e) where it is meant. This rule is always on; a maintainer can still "
        "merge with admin approval."
    )


def _fragment_violations(path: str, fragment: Fragment) -> Iterator[Violation]:
    seen: set[int] = set()
    for match in _INVISIBLE.finditer(fragment.data):
        index = fragment.index_at(match.start())
        if index in seen:
            continue
        seen.add(index)
        start, end = fragment.line_bounds(match.start())
        line = fragment.data[start:end].decode("utf-8", "replace")
        number = fragment.numbers[index]
        for hit in _line_hits(line, at_file_start=number == 1):
            yield Violation(RuleId.INVISIBLE_UNICODE, path, number, _message(hit), hit.kind)


def _file_violations(file: AddedFile) -> Iterator[Violation]:
    listed = [v for f in file.fragments if not f.data.isascii() for v in _fragment_violations(file.path, f)]
    what = "invisible-character finding(s)"
    return capped(listed, rule=RuleId.INVISIBLE_UNICODE, path=file.path, what=what, more_id="more")


@dataclass(frozen=True, slots=True)
class InvisibleUnicodeRule:
    """Invisible Unicode in added lines; not switchable in the manifest."""

    def scan(self, change: Change, manifest: Manifest) -> Iterator[Violation]:
        for file in read_files(change, manifest, "invisible_unicode"):
            yield from _file_violations(file)

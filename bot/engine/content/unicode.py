"""Invisible and confusable Unicode in added text, always on: every character Unicode says renders as
nothing (Default_Ignorable_Code_Point: bidirectional controls and marks, the Trojan Source attack of
CVE-2021-42574; zero-width characters, soft hyphens, invisible operators, variation selectors; Hangul
fillers, which Python and JavaScript accept as letters of an identifier; tag characters, text a
reviewer cannot see but compilers and language models read), and, in code (Python, JavaScript,
shell, the C family, languages that comment with `#`), identifiers that carry a combining mark on
an ASCII letter, that mix look-alike scripts (a Cyrillic `а` inside a Latin name), that pass for a
Latin name in another script's letters (a Cyrillic `а` alone), or, in Python, that normalize to an
ASCII name they do not look like (fullwidth `ｅｖａｌ`): `scripts.py`.

Where writing uses an invisible character it is left alone: a zero-width joiner or non-joiner
between two non-ASCII characters (Persian, Indic scripts, emoji sequences), a directional mark
beside a right-to-left letter, a variation selector after an emoji, a keycap digit or an ideograph,
a Mongolian variation selector after a Mongolian letter, a grapheme joiner after a combining mark, a
Hangul filler that makes half of a visible syllable, the tag characters of a subdivision flag, and
a byte order mark at the very start of a file. Next to ASCII these can only hide something.
"""

from __future__ import annotations

import io
import tokenize
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import ClassVar

from bot.engine.change import Change
from bot.engine.content.added import AddedFile, Fragment
from bot.engine.content.exclude import read_files
from bot.engine.content.filekinds import Kind
from bot.engine.content.jsread import read_fragment
from bot.engine.content.limits import capped
from bot.engine.content.linescan import LineScan
from bot.engine.content.scripts import ascii_alias, marked_ascii, mixed_scripts, passes_for_latin, script_of
from bot.engine.findings import RuleId, Violation
from bot.engine.ignorable import re2_class
from bot.engine.lazyre import lazy
from bot.engine.lexing import lexicon_for
from bot.engine.manifest import Manifest
from bot.engine.regex import compile_re2

_BIDI = frozenset(map(chr, [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]))
_MARKS = frozenset("\u061c\u200e\u200f")
_STRONG = frozenset({"L", "R", "AL"})
_RTL = frozenset({"R", "AL"})
_NEAR = 32  # how far a mark's neighbours are looked for: a mark orders the text beside it
_JOINERS = frozenset("\u200c\u200d\u180e")
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")
_SELECTORS = frozenset(map(chr, [*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)]))
_MONGOLIAN_SELECTORS = frozenset("\u180b\u180c\u180d\u180f")
_GRAPHEME_JOINER = "\u034f"
_BOM = "\ufeff"
_KEYCAP = "\u20e3"
_FLAG = "\U0001f3f4"
_CANCEL_TAG = "\U000e007f"
_FLAG_TAGS = frozenset(map(chr, [*range(0xE0030, 0xE003A), *range(0xE0061, 0xE007B)]))
# Default_Ignorable_Code_Point (`ignorable.py`). Both patterns are compiled on first use: only a
# fragment that is not ASCII asks, and the property classes cost RE2 5 ms of every start.
_invisible = cache(partial(compile_re2, re2_class() + "+"))
# A word holding a letter that is not ASCII, a letter-like number (`Ⅰ`), a connector that is not
# `_` (`＿`, which Python reads as one) or a combining mark: the identifiers worth judging.
_non_ascii_word = cache(
    partial(
        compile_re2,
        r"[\pL\pN\pM\p{Pc}]*(?:[^\x00-\x7F\PL]|\p{Nl}|[^\x00-\x7F\P{Pc}]|\pM)[\pL\pN\pM\p{Pc}]*",
    )
)
# How the lines of code of other languages whose identifiers are judged hide comments and strings
# (`linescan.py`; JavaScript and markup files are read by the JavaScript lexer instead): a language
# of the C family (Go, Rust, Java, C, …) as JavaScript does, one that comments with `#`
# (Ruby, Perl, R, …) as shell does. Configuration and documents are data and prose, not names.
_SCANNED_AS = {
    "python": Kind.PYTHON,
    "javascript": Kind.JAVASCRIPT,
    "c-like": Kind.JAVASCRIPT,
    "hash": Kind.SHELL,
}
_LISTED = 3
_ADVICE = {
    "bidi-control": "invisible bidirectional control: code can read differently from how it runs "
    "(Trojan Source)",
    "unicode-tag": "invisible tag character: text a reviewer cannot see but a tool or a language model reads",
    "zero-width": "character that renders as nothing: identifiers and strings that look identical but differ",
    "filler": "Hangul filler: renders as nothing, yet Python and JavaScript take it for a letter, so a "
    "name can be invisible, or two names look identical",
}
_OVERRIDE = "This rule is always on; a maintainer can still merge with admin approval."


def _kind(char: str) -> str:
    if char in _BIDI:
        return "bidi-control"
    if char in _FILLERS:
        return "filler"
    if "\U000e0000" <= char <= "\U000e007f":
        return "unicode-tag"
    return "zero-width"


def _describe(char: str) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, 'unassigned')}"


def _selects_a_variant(before: str, after: str) -> bool:
    """Whether a variation selector after `before` (and before `after`) selects a glyph: of an
    emoji or symbol, an ideograph, or the digit of a keycap."""
    if before.isascii():
        return before != "" and before in "0123456789#*" and after == _KEYCAP
    category = unicodedata.category(before)
    return not category.startswith("L") or unicodedata.name(before, "").startswith("CJK")


def _strong_direction(chars: Iterable[str]) -> str:
    """The direction (`L`, `R`, `AL`) of the first character of `chars` that has a strong one, past
    spaces, punctuation, digits and the directional marks themselves; "" when none does."""
    for char in chars:
        direction = unicodedata.bidirectional(char)
        if direction in _STRONG and char not in _MARKS:
            return direction
    return ""


def _in_right_to_left_text(line: str, column: int) -> bool:
    """Whether the directional mark at `column` orders right-to-left text: the nearest letter with
    a strong direction on either side of it (within a few characters) is a right-to-left one."""
    before = line[max(0, column - _NEAR) : column]
    after = line[column + 1 : column + 1 + _NEAR]
    return _strong_direction(reversed(before)) in _RTL or _strong_direction(after) in _RTL


def _is_writing(char: str, before: str, after: str) -> bool:
    """Whether the invisible `char`, between `before` and `after` (one character each, or empty),
    is part of writing."""
    if char in _JOINERS:  # Latin, Greek and Cyrillic writing joins no letters
        return before > "\x7f" and after > "\x7f" and script_of(before) is None and script_of(after) is None
    if char in _SELECTORS:
        return _selects_a_variant(before, after)
    if char in _MONGOLIAN_SELECTORS:
        return unicodedata.name(before or "a", "").startswith("MONGOLIAN LETTER")
    if char == _GRAPHEME_JOINER:
        return unicodedata.category(before or "a").startswith("M")
    if char == "\u115f":  # a syllable with no initial: the vowel after it shows
        return "\u1161" <= after <= "\u11a7" or "\ud7b0" <= after <= "\ud7c6"
    if char == "\u1160":  # a syllable with no vowel: the initial before it shows
        return "\u1100" <= before <= "\u115e" or "\ua960" <= before <= "\ua97c"
    return False


def _flag_tags(run: str, before: str) -> int:
    """How many characters at the start of `run` spell the tags of a subdivision flag (🏴 then two
    to seven lowercase tag letters or digits, then CANCEL TAG): 0 when they do not."""
    if before != _FLAG:
        return 0
    end = run.find(_CANCEL_TAG)
    if not 2 <= end <= 7 or not _FLAG_TAGS.issuperset(run[:end]):
        return 0
    return end + 1


@dataclass(frozen=True, slots=True)
class _Hit:
    kind: str
    chars: tuple[str, ...]
    column: int


def _line_hits(line: str, at_file_start: bool) -> Iterator[_Hit]:
    by_kind: dict[str, list[tuple[int, str]]] = {}
    for match in _invisible().finditer(line):
        start = match.start()
        run = match.group(0)
        skip = _flag_tags(run, line[start - 1] if start else "")
        for offset in range(skip, len(run)):
            char = run[offset]
            column = start + offset
            before = line[column - 1] if column else ""
            after = line[column + 1] if column + 1 < len(line) else ""
            if char in _MARKS:
                writing = _in_right_to_left_text(line, column)
            else:
                writing = _is_writing(char, before, after)
            if writing or (char == _BOM and at_file_start and column == 0):
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
        f"escape (such as \\u202e) where it is meant. {_OVERRIDE}"
    )


def _invisible_violations(path: str, fragment: Fragment) -> Iterator[Violation]:
    seen: set[int] = set()
    for match in _invisible().finditer(fragment.data):
        index = fragment.index_at(match.start())
        if index in seen:
            continue
        seen.add(index)
        start, end = fragment.line_bounds(match.start())
        line = fragment.data[start:end].decode("utf-8", "replace")
        number = fragment.numbers[index]
        for hit in _line_hits(line, at_file_start=number == 1):
            yield Violation(RuleId.INVISIBLE_UNICODE, path, number, _message(hit), hit.kind)


@dataclass(frozen=True, slots=True)
class _Name:
    """An identifier on an added line: its head line number, 1-based column and text; `named`: it
    stands where a name does (false for a shell command's argument, which is text)."""

    line: int
    column: int
    text: str
    named: bool = True


# Where a shell word is a name: a variable's (`$x`, `${x`, `x=`, `x+=`), a function's (`x()`,
# `function x`), or a command's (first on its line, or after `;`, `|`, `&`, `(`, `{`, a backquote, or
# a keyword that a command follows). An argument (`echo сахар`) is text, in any language.
_SHELL_VARIABLE_BEFORE = lazy(rb"(?:\$\{?|\bfunction[ \t]+)\Z")
_SHELL_NAME_AFTER = lazy(rb"\+?=|[ \t]*\([ \t]*\)")
_SHELL_COMMAND_BEFORE = lazy(
    rb"(?:^|[;|&({`!]|\b(?:then|do|else|elif|if|while|until|time|exec|command|builtin|sudo))[ \t]*\Z"
)


def _shell_name(data: bytes, line_start: int, start: int, end: int) -> bool:
    """Whether the shell word at `data[start:end]` stands where a name does (see above)."""
    before = data[line_start:start]
    return (
        _SHELL_VARIABLE_BEFORE().search(before) is not None
        or _SHELL_NAME_AFTER().match(data, end) is not None
        or _SHELL_COMMAND_BEFORE().search(before) is not None
    )


def _names_on_lines(
    fragment: Fragment, in_code: Callable[[int], bool], *, shell: bool = False
) -> Iterator[_Name]:
    """Words of the fragment holding a non-ASCII letter that start where `in_code` says is code;
    `shell`: the file is a shell script, whose arguments are text rather than names."""
    for match in _non_ascii_word().finditer(fragment.data):
        start = match.start()
        if not in_code(start):
            continue
        line_start = fragment.line_bounds(start)[0]
        column = len(fragment.data[line_start:start].decode("utf-8", "replace")) + 1
        named = not shell or _shell_name(fragment.data, line_start, start, match.end())
        yield _Name(fragment.line_at(start), column, match.group(0).decode("utf-8", "replace"), named)


def _identifier_tokens(head: str) -> Iterator[tokenize.TokenInfo]:
    """Python's identifiers in `head`, from its tokenizer. The `tokenize` module reads a name as
    `\\w+`, so a character Python's own tokenizer takes in one (a combining mark, a fullwidth `＿`)
    comes out as an error token beside it: a run of such tokens that touch is one identifier."""
    run: tokenize.TokenInfo | None = None
    for token in tokenize.generate_tokens(io.StringIO(head).readline):
        if token.type in (tokenize.NAME, tokenize.ERRORTOKEN) and f"a{token.string}".isidentifier():
            if run is not None and run.end == token.start:
                run = run._replace(string=run.string + token.string, end=token.end)
                continue
            if run is not None:
                yield run
            run = token
        elif run is not None:  # the stream ends with ENDMARKER: no run is left at its end
            yield run
            run = None


def _python_names(file: AddedFile) -> list[_Name] | None:
    """The identifiers holding a character that is not ASCII that Python's tokenizer reads on the
    added lines of the file's new text (so strings, comments and docstrings hold none, however their
    quotes fall on a line), each on its diff line; None when the text is unknown or does not
    tokenize."""
    if file.head is None:
        return None
    added = file.added_numbers()
    names: list[_Name] = []
    try:
        for token in _identifier_tokens(file.head):
            line = file.diff_line(token.start[0])
            if not token.string.isascii() and line in added:
                names.append(_Name(line, token.start[1] + 1, token.string))
    except (tokenize.TokenError, SyntaxError):
        return None
    return names


def _mixed_message(name: _Name, scripts: tuple[str, ...], letters: tuple[str, ...]) -> str:
    written = ", ".join(s.title() for s in scripts[:-1]) + f" and {scripts[-1].title()}"
    return (
        f"{name.text!r} at column {name.column}: an identifier that mixes {written} letters "
        f"({', '.join(_describe(c) for c in letters)}) looks like a name it is not. Spell it in one "
        f"script. {_OVERRIDE}"
    )


def _confusable(name: _Name, kind: Kind) -> tuple[str, str] | None:
    """What is wrong with an identifier (the finding's id and message), if anything: a combining
    mark sits on an ASCII character of it, it mixes scripts, passes for a Latin name in another
    script's letters, or (Python) is an ASCII name written in letters that normalize to it
    (scripts.py)."""
    # Invisible marks (variation selectors, the grapheme joiner) are reported as such.
    visible = (
        _invisible().sub(b"", name.text.encode("utf-8", "surrogatepass")).decode("utf-8", "surrogatepass")
    )
    marked = marked_ascii(visible)
    if marked is not None:
        base, mark = marked
        return "combining-mark", (
            f"{name.text!r} at column {name.column}: {_describe(mark)} sits on the ASCII {base!r}, so "
            f"this identifier looks like a plain name it is not, or hides the mark. Spell it without "
            f"the mark. {_OVERRIDE}"
        )
    mixed = mixed_scripts(name.text)
    if mixed is not None:
        return "mixed-script", _mixed_message(name, mixed.scripts, mixed.letters)
    at = f"{name.text!r} at column {name.column}"
    latin = passes_for_latin(name.text) if name.named else None
    if latin is not None:
        letter = _describe(next(c for c in name.text if not c.isascii()))
        return "lookalike-script", (
            f"{at}: every letter of this identifier passes for a Latin one ({letter}), so it reads as "
            f"{latin!r} and is another name. Spell it in Latin letters. {_OVERRIDE}"
        )
    alias = ascii_alias(name.text) if kind is Kind.PYTHON else None
    if alias is not None:
        return "nfkc-identifier", (
            f"{at}: Python reads this identifier as {alias!r} (it normalizes names, NFKC), so it is "
            f"that name written to look like another. Write {alias!r}. {_OVERRIDE}"
        )
    return None


def _read_as(file: AddedFile) -> Kind | None:
    """How a code file's lines are scanned for identifiers; None for a file that is not code."""
    if file.kind in (Kind.PYTHON, Kind.JAVASCRIPT, Kind.SHELL, Kind.MARKUP):
        return file.kind
    if file.kind is Kind.POWERSHELL:
        return Kind.SHELL  # its comments are `#`, its quotes shell's (`<# … #>` read line by line)
    return _SCANNED_AS.get(lexicon_for(file.path).name) if file.kind is Kind.OTHER else None


def _names(file: AddedFile) -> Iterator[_Name]:
    """The identifiers of the added lines worth judging: Python's as its tokenizer reads them from
    the new text, else words in code (`_code_of`; in markup, in its JavaScript only)."""
    names = _python_names(file) if file.kind is Kind.PYTHON else None
    if names is not None:
        return iter(names)
    kind = _read_as(file) or file.kind
    shell = file.kind is Kind.SHELL
    return (
        name
        for f in file.fragments
        if not f.data.isascii()
        for name in _names_on_lines(f, _code_of(file, kind, f), shell=shell)
    )


def _code_of(file: AddedFile, kind: Kind, fragment: Fragment) -> Callable[[int], bool]:
    """Whether an offset of the fragment is code: JavaScript and markup as the JavaScript lexer
    reads the file's new text (`jsread.py`, read on first use: most fragments hold no name worth
    judging), other languages outside the comments and strings of their line (`linescan.py`)."""
    if file.kind in (Kind.JAVASCRIPT, Kind.MARKUP):
        reading = cache(lambda: read_fragment(fragment, file.kind, file.path, file.head, file.head_lines))
        return lambda at: reading().code(at)
    scan = LineScan(fragment.data, kind)
    return lambda at: not scan.hidden(at)


def _any_confusable_word(file: AddedFile) -> bool:
    """Whether any word of the added text, identifier or not, would be a finding as one: only then
    is a Python file's new text tokenized (`tokenize` reads about 2 MB/s)."""
    return any(
        _confusable(_Name(0, 0, match.group(0).decode("utf-8", "replace")), file.kind) is not None
        for fragment in file.fragments
        if not fragment.data.isascii()
        for match in _non_ascii_word().finditer(fragment.data)
    )


def _mixed_violations(file: AddedFile) -> Iterator[Violation]:
    if all(fragment.data.isascii() for fragment in file.fragments):
        return
    if file.kind is Kind.PYTHON and not _any_confusable_word(file):
        return
    for name in _names(file):
        judged = _confusable(name, file.kind)
        if judged is not None:
            yield Violation(RuleId.INVISIBLE_UNICODE, file.path, name.line, judged[1], judged[0])


def _file_violations(file: AddedFile) -> Iterator[Violation]:
    listed = [v for f in file.fragments if not f.data.isascii() for v in _invisible_violations(file.path, f)]
    if _read_as(file) is not None:
        listed.extend(_mixed_violations(file))
    what = "invisible-character finding(s)"
    return capped(listed, rule=RuleId.INVISIBLE_UNICODE, path=file.path, what=what, more_id="more")


@dataclass(frozen=True, slots=True)
class InvisibleUnicodeRule:
    """Invisible Unicode in added lines, and mixed-script identifiers in added code; not switchable
    in the manifest."""

    one_pass: ClassVar[bool] = False

    def scan(
        self,
        change: Change,
        manifest: Manifest,
        files: Sequence[AddedFile] | None = None,
        added: Sequence[AddedFile] | None = None,
    ) -> Iterator[Violation]:
        for file in read_files(change, manifest, "invisible_unicode", files):
            yield from _file_violations(file)

"""A file's text as its language reads it: its line terminators, and a Python file's declared
source encoding (PEP 263).

A diff's lines end at LF only, but Python also ends a line at a lone CR (its tokenizer translates
CR and CRLF to LF), and JavaScript at CR, U+2028 and U+2029. A scanner that reads the diff's lines
would see `# note<CR>eval(x)` as one comment line; the interpreter runs `eval(x)`. So every reader
of added text (the content rules, the logical-line count) goes through `language_lines`, which puts
a line feed after each such terminator (the terminator itself stays, so no character is lost and a
CR before the new LF reads as CRLF) and gives each resulting line the number of the diff line that
holds it. A CR that ends a diff line is the CR of a CRLF line ending, not a line of its own.

A Python file may declare its encoding in a comment on its first or second line (the second only
when the first is blank or a comment, as CPython reads it); Python then decodes the file with that
codec, so `+AGUAdgBhAGw-(x)` under `coding: utf-7` is `eval(x)`. `declared_encoding` finds the
declaration as CPython's tokenizer does (its name normalized as CPython does: `utf-8-unix` is
UTF-8), and `read_lines`/`read_text` give the text Python runs.

That codec must see the file's own bytes. The diff and the files' texts are decoded with
surrogateescape (diff.py, gather): a byte that is not part of valid UTF-8 is kept as the lone
surrogate U+DC80 + byte, so encoding the text again gives every byte back. Shift_JIS writes `表`
as 0x95 0x5C: a reading that lost the 0x95 would see a backslash escape the quote that closes the
string (and the code after it as string, or a string as code). Without such a codec the readers
see each of those bytes as U+FFFD, as the text is shown (Python refuses such a file anyway).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence
from dataclasses import dataclass

# On text whose lines are joined by LF: a CR followed by LF, or at the very end, ends no line of its own.
_PYTHON_BREAK = re.compile(r"\r(?!\n|\Z)")
_JAVASCRIPT_BREAK = re.compile(r"\r(?!\n|\Z)|[\u2028\u2029]")
_BREAKS = {"python": _PYTHON_BREAK, "javascript": _JAVASCRIPT_BREAK, "markup": _JAVASCRIPT_BREAK}
# The characters each pattern starts with: looking for them first (in C) is several times faster
# than the pattern, and most texts hold none.
_STARTS = {"python": ("\r",), "javascript": ("\r", "\u2028", "\u2029"), "markup": ("\r", "\u2028", "\u2029")}
# Every language's: a text holding none of them is one line in every language.
BREAK_STARTS = tuple(sorted({start for starts in _STARTS.values() for start in starts}))


def has_breaks(text: str, language: str) -> bool:
    """Whether `text` (lines joined by LF) holds a line terminator of `language` other than LF."""
    pattern = _BREAKS.get(language)
    if pattern is None or not any(start in text for start in _STARTS[language]):
        return False
    return pattern.search(text) is not None


def split_line(text: str, language: str) -> list[str]:
    """One diff line (without its LF) as the lines `language` reads, each keeping its terminator."""
    if not has_breaks(text, language):
        return [text]
    return _BREAKS[language].sub("\\g<0>\n", text).split("\n")


def language_lines(lines: Sequence[str], numbers: Sequence[int], language: str) -> tuple[str, Sequence[int]]:
    """`lines` (diff lines, numbered `numbers`) joined by LF, with an LF after each other line
    terminator of `language`, and the diff line number of every resulting line. Without such a
    terminator, the joined text and `numbers` themselves."""
    text = "\n".join(lines)
    if not has_breaks(text, language):
        return text, numbers
    pattern = _BREAKS[language]
    expanded = [
        n for line, n in zip(lines, numbers, strict=True) for _ in range(1 + len(pattern.findall(line)))
    ]
    return pattern.sub("\\g<0>\n", text), expanded


# CPython's tokenizer: a comment line holding `coding[:=]`; the second line is read only when the
# first is blank or a comment.
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)
_BLANK = re.compile(r"[ \t\f]*(?:#|$)")
_LINE_END = re.compile(r"(\r\n|\r|\n)")
_UTF8 = frozenset({"utf-8", "ascii"})
# surrogateescape's stand-ins for the bytes 0x80-0xFF that are not part of valid UTF-8.
_ESCAPED_BYTES = re.compile("[\udc80-\udcff]")


@dataclass(frozen=True, slots=True)
class Declared:
    """A PEP 263 declaration: on diff line `line` (1 or 2), the encoding `name` as written, the
    Python codec it stands for (None when Python knows no such text encoding), and whether that is
    UTF-8 (or ASCII)."""

    line: int
    name: str
    codec: str | None

    @property
    def utf8(self) -> bool:
        return self.codec in _UTF8


def _normal_name(name: str) -> str:
    """CPython's `get_normal_name`: `utf-8-*` is UTF-8 and `latin-1-*` Latin-1, whatever follows."""
    head = name[:12].lower().replace("_", "-")
    if head == "utf-8" or head.startswith("utf-8-"):
        return "utf-8"
    if head in ("latin-1", "iso-8859-1", "iso-latin-1") or head.startswith(
        ("latin-1-", "iso-8859-1-", "iso-latin-1-")
    ):
        return "iso-8859-1"
    return name


def _codec(name: str) -> str | None:
    try:
        info = codecs.lookup(_normal_name(name))
    except LookupError:
        return None
    return info.name if getattr(info, "_is_text_encoding", True) else None


def _cookie(line: str) -> str | None:
    cookie = _COOKIE.match(line)
    return None if cookie is None else cookie.group(1)


def declared_encoding(text: str) -> Declared | None:
    """The encoding the start of a Python file (`text`, at least its first two lines) declares."""
    lines = _LINE_END.split(text[:4096], maxsplit=2)  # [first, its end, second, ...]
    name, line = _cookie(lines[0]), 1
    if name is None and len(lines) > 2 and _BLANK.match(lines[0]):
        name, line = _cookie(lines[2]), 1 if lines[1] == "\r" else 2
    return None if name is None else Declared(line, name, _codec(name))


def _codec_of(declared: Declared | None) -> str | None:
    """The codec Python decodes the file with, when it is not UTF-8 (and known)."""
    return None if declared is None or declared.utf8 else declared.codec


def shown(text: str) -> str:
    """`text` with each byte kept that is not UTF-8 (a surrogate escape) as U+FFFD."""
    if text.isascii() or _ESCAPED_BYTES.search(text) is None:
        return text
    return _ESCAPED_BYTES.sub("\ufffd", text)


def _file_bytes(text: str) -> bytes:
    """The bytes `text` was decoded from (surrogateescape). Text given as text rather than decoded
    from bytes may hold another lone surrogate, which no byte stands for: kept as its own code."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def read_lines(
    lines: Sequence[str], numbers: Sequence[int], language: str, declared: Declared | None = None
) -> tuple[str, Sequence[int]]:
    """Diff lines (numbered `numbers`) as `language` reads them (`language_lines`), decoded first
    under `declared`; a line decoding holds a line feed (`+AAo-` in UTF-7) is more than one line."""
    codec = _codec_of(declared)
    if codec is None:
        return language_lines([shown(line) for line in lines], numbers, language)
    decoded: list[str] = []
    decoded_numbers: list[int] = []
    for line, number in zip(lines, numbers, strict=True):
        pieces = _file_bytes(line).decode(codec, "replace").split("\n")
        decoded.extend(pieces)
        decoded_numbers.extend([number] * len(pieces))
    return language_lines(decoded, decoded_numbers, language)


def read_joined(
    text: str, numbers: Sequence[int], language: str, declared: Declared | None = None
) -> tuple[str, Sequence[int]]:
    """`read_lines` of diff lines given joined by line feeds (`text`): most often the text itself."""
    if _codec_of(declared) is None and not has_breaks(text, language):
        return shown(text), numbers
    return read_lines(text.split("\n"), numbers, language, declared)


def read_text(text: str, language: str, declared: Declared | None = None) -> tuple[str, Sequence[int] | None]:
    """A whole file's text as `language` reads it, and the diff line number of each of its lines
    (None when they are the diff's own)."""
    if _codec_of(declared) is None and not has_breaks(text, language):
        return shown(text), None
    lines = text.split("\n")
    read, numbers = read_lines(lines, range(1, len(lines) + 1), language, declared)
    return read, numbers

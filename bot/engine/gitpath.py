r"""Paths as git prints them: C-quoted names and the `diff --git` header line; and how a receipt
shows a path.

A path is text decoded from the name's bytes with surrogateescape: a byte that is not part of valid
UTF-8 becomes the lone surrogate U+DC80 + byte, so the bytes come back exactly and no two names
collide. A receipt (JSON and its digest, Markdown, terminal, annotations) shows a path as it is when
it is printable and does not start with a double quote, and otherwise in git's C-quoted form:
in double quotes, `\"`, `\\` and `\a \b \t \n \v \f \r` escaped, every byte that is not
valid UTF-8 or belongs to a character that does not print (controls, bidi and zero-width marks,
and every character that renders as nothing: `ignorable.py`) as a three-digit octal escape,
printable characters kept. `unquote` reads that form back.
"""

from __future__ import annotations

from bot.engine.ignorable import renders_as_nothing

_ESCAPES = {
    "a": 0x07, "b": 0x08, "t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D,
    '"': 0x22, "\\": 0x5C,
}  # fmt: skip
_QUOTED_AS = {chr(byte): "\\" + letter for letter, byte in _ESCAPES.items()}
_ESCAPED_BYTES = range(0xDC80, 0xDD00)  # surrogateescape's stand-ins for bytes 0x80-0xFF


class QuotedPathError(ValueError):
    """A C-quoted path that git could not have written."""

    def __init__(self, text: str, problem: str) -> None:
        super().__init__(f"{problem} in quoted path {text!r}")
        self.text = text
        self.problem = problem


def decode_bytes(raw: bytes) -> str:
    """Path bytes as text, losslessly (surrogateescape: see the module's docstring)."""
    return raw.decode("utf-8", errors="surrogateescape")


def matchable(path: str) -> str:
    """`path` as text RE2 can read: each lone surrogate (a byte that is not UTF-8) as U+FFFD, one
    character for one byte, so `*`, `?` and the name's structure match as they would on the bytes."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in path)
    return path


def c_quote(path: str, *, ascii_only: bool = False) -> str:
    """`path` in double quotes with git's escapes; `ascii_only` escapes every non-ASCII byte too
    (git's core.quotePath), else only characters that do not print."""
    out = ['"']
    for char in path:
        if char in _QUOTED_AS:
            out.append(_QUOTED_AS[char])
        elif ord(char) in _ESCAPED_BYTES:
            out.append(f"\\{ord(char) - 0xDC00:03o}")
        elif _shows(char) and (char.isascii() or not ascii_only):
            out.append(char)
        else:  # a lone surrogate no name can hold is written as its UTF-8-like bytes
            out.extend(f"\\{byte:03o}" for byte in char.encode("utf-8", "surrogatepass"))
    out.append('"')
    return "".join(out)


def _shows(char: str) -> bool:
    return char.isprintable() and not renders_as_nothing(char)


def display_path(path: str) -> str:
    """How a receipt shows `path` (the module's docstring): itself, or C-quoted."""
    if path.isprintable() and not path.startswith('"') and (path.isascii() or all(map(_shows, path))):
        return path
    return c_quote(path)


def path_label(path: str) -> str:
    """`path` inside a sentence: 'src/a.py', or the C-quoted form, which brings its own quotes."""
    shown = display_path(path)
    return shown if shown.startswith('"') else f"'{shown}'"


def read_quoted(text: str, start: int = 0) -> tuple[str, int]:
    """Decode the C-quoted string opening at `text[start]`; return it and the index after it."""
    if text[start : start + 1] != '"':
        raise QuotedPathError(text, "missing opening quote")
    out = bytearray()
    i = start + 1
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            return decode_bytes(bytes(out)), i + 1
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        nxt = text[i + 1 : i + 2]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif len(text[i + 1 : i + 4]) == 3 and all(c in "01234567" for c in text[i + 1 : i + 4]):
            value = int(text[i + 1 : i + 4], 8)
            if value > 0xFF:
                raise QuotedPathError(text, f"octal escape \\{text[i + 1 : i + 4]} out of range")
            out.append(value)
            i += 4
        else:
            raise QuotedPathError(text, f"unknown escape \\{nxt}")
    raise QuotedPathError(text, "missing closing quote")


def unquote(text: str) -> str:
    """A path as printed by git: C-quoted when it starts with a double quote, else literal."""
    if not text.startswith('"'):
        return text
    value, end = read_quoted(text)
    if end != len(text):
        raise QuotedPathError(text, "text after closing quote")
    return value


def strip_prefix(path: str, prefix: str) -> str:
    return path[len(prefix) :] if path.startswith(prefix) else path


def split_git_header(rest: str) -> tuple[str, str] | None:
    """Split the `a/OLD b/NEW` tail of a `diff --git` line.

    Unquoted names may contain spaces, so an unquoted pair is only split when both sides are the
    same path (the case where git prints no other header naming the file). Returns the paths
    without their a/ and b/ prefixes, or None when the split is ambiguous.
    """
    if rest.startswith('"'):
        old, end = read_quoted(rest)
        tail = rest[end:]
        if not tail.startswith(" "):
            return None
        tail = tail[1:]
        new = unquote(tail) if tail.startswith('"') else tail
        return strip_prefix(old, "a/"), strip_prefix(new, "b/")
    if rest.endswith('"'):
        idx = rest.find(' "')
        if idx < 0:
            return None
        return strip_prefix(rest[:idx], "a/"), strip_prefix(unquote(rest[idx + 1 :]), "b/")
    if (len(rest) - 5) % 2 == 0 and len(rest) >= 7:
        size = (len(rest) - 5) // 2
        old, sep, new = rest[2 : 2 + size], rest[2 + size : 5 + size], rest[5 + size :]
        if rest.startswith("a/") and sep == " b/" and old == new:
            return old, new
    return None

"""Paths as git prints them: C-quoted names and the `diff --git` header line."""

from __future__ import annotations

_ESCAPES = {
    "a": 0x07, "b": 0x08, "t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D,
    '"': 0x22, "\\": 0x5C,
}  # fmt: skip


class QuotedPathError(ValueError):
    """A C-quoted path that git could not have written."""

    def __init__(self, text: str, problem: str) -> None:
        super().__init__(f"{problem} in quoted path {text!r}")
        self.text = text
        self.problem = problem


def decode_bytes(raw: bytes) -> str:
    """Path bytes as text; undecodable bytes stay visible as \\xNN instead of colliding."""
    return raw.decode("utf-8", errors="backslashreplace")


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

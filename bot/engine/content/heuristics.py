"""Telling a credential from code that merely sits where one could: entropy, names, placeholders."""

from __future__ import annotations

import math
import re
from collections import Counter

_PART = re.compile(r"[A-Za-z]+\d*[A-Za-z]*")
_SEPARATOR = re.compile(r"[._]")
_PLACEHOLDER_WORDS = (
    "example", "placeholder", "changeme", "change_me", "change-me", "your_", "your-", "yourpass",
    "dummy", "sample", "redacted", "xxxx", "****", "....",
)  # fmt: skip
_PLACEHOLDER_EXACT = frozenset({"password", "passwd", "pass", "pwd", "secret", "token", "test", "user"})
_TEMPLATE = re.compile(r"[$%]\{|\{\{|<[^>]*>|%\(\w+\)s|%s|^\$\w+$|^\*+$")


def shannon_entropy(text: str) -> float:
    """Bits per character, as gitleaks computes it."""
    if not text:
        return 0.0
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in Counter(text).values())


def has_digit(text: str) -> bool:
    return any(c.isdigit() for c in text)


def _word(part: str) -> bool:
    """A word of a name: `key`, `CTX`, `RIPEMD160`, `win32api`, `RegEnumKey` — one run of letters
    with at most one run of digits, cased as words are (each capital before two lower-case)."""
    if not _PART.fullmatch(part):
        return False
    letters = "".join(c for c in part if c.isalpha())
    if letters.islower() or letters.isupper():
        return True
    return all(not c.isupper() or _lower_pair(letters[i + 1 : i + 3]) for i, c in enumerate(letters))


def _lower_pair(text: str) -> bool:
    return len(text) == 2 and text.islower()


def looks_like_name(value: str) -> bool:
    """A dotted or underscored name made of words (`win32api.RegEnumKey`, `RIPEMD160_CTX`): code
    referring to something, not a credential."""
    parts = _SEPARATOR.split(value)
    return len(parts) >= 2 and all(_word(p) for p in parts if p)


def is_placeholder(value: str) -> bool:
    """A stand-in for a credential: `password`, `<token>`, `${PASSWORD}`, `xxxx`, `changeme`."""
    lowered = value.lower()
    if lowered in _PLACEHOLDER_EXACT:
        return True
    if any(word in lowered for word in _PLACEHOLDER_WORDS):
        return True
    return _TEMPLATE.search(value) is not None

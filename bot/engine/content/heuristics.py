"""Telling a credential from code that merely sits where one could: entropy, names, placeholders."""

from __future__ import annotations

import binascii
import math
import re
import unicodedata
from collections import Counter
from itertools import pairwise

_PART = re.compile(r"[A-Za-z]+\d*[A-Za-z]*")
_SEPARATOR = re.compile(r"[._]")
_PLACEHOLDER_WORDS = (
    "example", "placeholder", "changeme", "change_me", "change-me", "your_", "your-", "yourpass",
    "dummy", "sample", "redacted", "xxxx", "****", "....",
)  # fmt: skip
_PLACEHOLDER_EXACT = frozenset({"password", "passwd", "pass", "pwd", "secret", "token", "test", "user"})
# Words that stand for a value in examples and tests: the names of what is stood for, and the
# metasyntactic variables.
_STAND_IN_WORDS = _PLACEHOLDER_EXACT | {"foo", "bar", "baz", "qux", "quux", "foobar", "word", "username"}
_LETTER_RUNS = re.compile(r"[a-z]+")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
# Characters written for the letters they look like (`p@ssw0rd`), and the separators between parts.
_LOOK_ALIKES = str.maketrans(
    {"@": "a", "4": "a", "3": "e", "1": "i", "!": "i", "0": "o", "$": "s", "5": "s", "7": "t"}
)
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


def _unaccented(text: str) -> str:
    """`pässword` → `password`: letters without their accents."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _spells_stand_in(lowered: str) -> bool:
    """Lower-case words, one of them a stand-in, however joined (`pass_word`, `other-password`,
    `foo(b]c`); or a stand-in spelled with look-alikes, accents or split (`p@ssw0rd`, `pässword`,
    `pa ssword`)."""
    if lowered.isascii() and not has_digit(lowered):
        parts = _LETTER_RUNS.findall(lowered)
        if any(part in _STAND_IN_WORDS for part in parts):
            return True
    spelled = _unaccented(lowered).translate(_LOOK_ALIKES)
    return "".join(c for c in spelled if c.isalpha()) in _STAND_IN_WORDS


def _in_sequence(alnum: str) -> bool:
    """Letters and digits running in order in runs of three or more: `123456`, `abc123`."""
    runs = [1]
    for before, after in pairwise(alnum):
        if ord(after) == ord(before) + 1:
            runs[-1] += 1
        else:
            runs.append(1)
    return min(runs) >= 3


def base64_text(value: str) -> str | None:
    """What `value` holds when it is base64 (either alphabet) of printable text, else None: a
    credential's base64 holds random bytes, a sample's holds words (`dGhlIHNhbXBsZSBub25jZQ==` is
    "the sample nonce")."""
    if len(value) % 4 or not _BASE64.fullmatch(value):
        return None
    try:
        text = binascii.a2b_base64(value.replace("-", "+").replace("_", "/"), strict_mode=True).decode(
            "utf-8"
        )
    except (binascii.Error, UnicodeDecodeError):
        return None
    return text if text.isprintable() else None


def is_placeholder(value: str) -> bool:
    """A stand-in for a credential: `password`, `<token>`, `${PASSWORD}`, `xxxx`, `changeme`, words
    that say what they stand for (`pass_word`, `p@ssw0rd`, `foobar`), `abc123`, one character
    repeated, or no letter or digit at all."""
    lowered = value.lower()
    if lowered in _PLACEHOLDER_EXACT or len(set(lowered)) == 1:
        return True
    if any(word in lowered for word in _PLACEHOLDER_WORDS):
        return True
    alnum = "".join(c for c in lowered if c.isalnum())
    if not alnum or _in_sequence(alnum) or _spells_stand_in(lowered):
        return True
    return _TEMPLATE.search(value) is not None

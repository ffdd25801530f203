"""The characters Unicode says render as nothing (Default_Ignorable_Code_Point, from its
DerivedCoreProperties.txt; unchanged since 6.0 but for U+180F, which was one already as a reserved
code point). Python's `str.isprintable` leaves out only the format ones (Cf); Hangul fillers (letters)
and the grapheme joiner, variation selectors and Khmer inherent vowels (marks) it calls printable, so
a name holding one would show as another. The invisible-unicode rule and the display of paths share
this list."""

from __future__ import annotations

from bisect import bisect_right

# (first, last) code points, ascending
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
_FIRSTS = [first for first, _ in DEFAULT_IGNORABLE]


def renders_as_nothing(char: str) -> bool:
    """Whether `char` is a default-ignorable code point."""
    code = ord(char)
    at = bisect_right(_FIRSTS, code) - 1
    return at >= 0 and code <= DEFAULT_IGNORABLE[at][1]


def re2_class() -> str:
    """The list as an RE2 character class."""
    ranges = (f"\\x{{{a:04X}}}" if a == b else f"\\x{{{a:04X}}}-\\x{{{b:04X}}}" for a, b in DEFAULT_IGNORABLE)
    return "[" + "".join(ranges) + "]"

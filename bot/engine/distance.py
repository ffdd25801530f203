"""Normalized token distance: `nd(X, Y) = Lev_tokens(X, Y) / max(|X|, |Y|)`, and its micro-average.

Sums are kept as integers and divided once, so two computations over equal token lists give the
same float bit for bit, and a difference of two such averages is rounded once (through Fraction):
when a candidate equals the reference, `excess` is exactly 0.0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from rapidfuzz.distance import Levenshtein


def levenshtein(left: Sequence[str], right: Sequence[str]) -> int:
    """Unit-cost edit distance between two token lists.

    Tokens are numbered first: rapidfuzz compares list items by hash, and numbering makes equality
    of tokens exact instead of probable.
    """
    ids: dict[str, int] = {}
    a = [ids.setdefault(t, len(ids)) for t in left]
    b = [ids.setdefault(t, len(ids)) for t in right]
    return int(Levenshtein.distance(a, b))


@dataclass(frozen=True, slots=True)
class EditCount:
    """One file: token edits between two versions, and the longer version's token count."""

    edits: int
    length: int

    @property
    def nd(self) -> float:
        """`nd` of one file; two empty token lists are identical, so their distance is 0."""
        return self.edits / self.length if self.length else 0.0


def edit_count(left: Sequence[str], right: Sequence[str]) -> EditCount:
    return EditCount(levenshtein(left, right), max(len(left), len(right)))


@dataclass(frozen=True, slots=True)
class Total:
    """Micro-average over files: `Σ edits / Σ length`, None when no file was measured."""

    edits: int = 0
    length: int = 0
    files: int = 0

    def plus(self, count: EditCount) -> Total:
        return Total(self.edits + count.edits, self.length + count.length, self.files + 1)

    def fraction(self) -> Fraction | None:
        if not self.files:
            return None
        return Fraction(self.edits, self.length) if self.length else Fraction(0)

    @property
    def value(self) -> float | None:
        if not self.files:
            return None
        return self.edits / self.length if self.length else 0.0


def total(counts: Sequence[EditCount]) -> Total:
    out = Total()
    for count in counts:
        out = out.plus(count)
    return out


def difference(left: Total, right: Total) -> float | None:
    """`left − right`, rounded once; None unless both were measured."""
    a, b = left.fraction(), right.fraction()
    if a is None or b is None:
        return None
    return float(a - b)

"""Normalized token distance: `nd(X, Y) = Lev_tokens(X, Y) / max(|X|, |Y|)`, and its micro-average.

Sums are kept as integers and divided once, so two computations over equal token lists give the
same float bit for bit, and a difference of two such averages is rounded once (through Fraction):
when a candidate equals the reference, `excess` is exactly 0.0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import ne
from typing import TYPE_CHECKING

from rapidfuzz.distance import Levenshtein

if TYPE_CHECKING:
    from fractions import Fraction  # only `excess` over a reference subtracts: imported there


def _numbered(left: Sequence[str], right: Sequence[str]) -> tuple[list[int], list[int]]:
    """Tokens as numbers: rapidfuzz compares list items by hash, and numbering makes equality of
    tokens exact instead of probable."""
    ids: dict[str, int] = {}
    return [ids.setdefault(t, len(ids)) for t in left], [ids.setdefault(t, len(ids)) for t in right]


def _affixes(left: Sequence[str], right: Sequence[str]) -> tuple[int, int]:
    """The lengths of the longest common prefix and, of the rest, suffix. Two versions of a file
    share most tokens (the same objects, where a statement both share was read once), and slices
    compare in C, so they are compared a run at a time without numbering every token."""
    prefix = _prefix(left, right, min(len(left), len(right)))
    suffix = _prefix(left[prefix:][::-1], right[prefix:][::-1], min(len(left), len(right)) - prefix)
    return prefix, suffix


def _prefix(left: Sequence[str], right: Sequence[str], limit: int) -> int:
    """The longest common prefix, at most `limit` long: runs that double while they agree, then the
    run that does not is halved. What is compared and copied is about twice the prefix, not the
    whole list once per step of a binary search."""
    done, run = 0, 1
    while done < limit:
        run = min(run, limit - done)
        if left[done : done + run] != right[done : done + run]:
            break
        done += run
        run *= 2
    else:
        return done
    while run > 1:  # the first difference lies in [done, done + run)
        half = run // 2
        if left[done : done + half] == right[done : done + half]:
            done += half
            run -= half
        else:
            run = half
    return done


def levenshtein(left: Sequence[str], right: Sequence[str]) -> int:
    """Unit-cost edit distance between two token lists (what they share at either end costs none)."""
    prefix, suffix = _affixes(left, right)
    return int(
        Levenshtein.distance(
            *_numbered(left[prefix : len(left) - suffix], right[prefix : len(right) - suffix])
        )
    )


@dataclass(frozen=True, slots=True)
class LayoutCount:
    """Two texts as written: token edits, and the gaps whose whitespace changed between two tokens
    that both texts keep side by side (a gap next to an edited token belongs to that edit)."""

    token_edits: int
    gap_edits: int


def layout_count(
    left: Sequence[str], left_gaps: Sequence[str], right: Sequence[str], right_gaps: Sequence[str]
) -> LayoutCount:
    """Align the tokens (a least-edits alignment), then compare the whitespace before each kept token
    whose predecessor is kept next to it too; `*_gaps[i]` is the whitespace before token i."""
    edits = gaps = 0
    prefix, suffix = _affixes(left, right)
    middle = _numbered(left[prefix : len(left) - suffix], right[prefix : len(right) - suffix])
    kept = [(0, 0, prefix)]  # runs of kept tokens: (left start, right start, length)
    for op in Levenshtein.opcodes(*middle):
        i, j, n = op.src_start + prefix, op.dest_start + prefix, op.src_end - op.src_start
        if op.tag == "equal":
            kept.append((i, j, n))
        else:
            edits += max(n, op.dest_end - op.dest_start)
    kept.append((len(left) - suffix, len(right) - suffix, suffix))
    for i, j, n in kept:
        first = 0 if i == j == 0 else 1  # the start of both texts lines up like a kept token
        gaps += sum(map(ne, left_gaps[i + first : i + n], right_gaps[j + first : j + n]))
    return LayoutCount(edits, gaps)


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
        from fractions import Fraction  # with decimal and numbers: only a reference needs it

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

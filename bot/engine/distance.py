"""Normalized token distance: `nd(X, Y) = Lev_tokens(X, Y) / max(|X|, |Y|)`, and its micro-average.

Sums are kept as integers and divided once, so two computations over equal token lists give the
same float bit for bit, and a difference of two such averages is rounded once (through Fraction):
when a candidate equals the reference, `excess` is exactly 0.0.

Levenshtein's table is quadratic: one file's comparison gets MAX_EDIT_CELLS of it (bounds.py).
Within them the distance is exact — the whole table, or a band around its diagonal as wide as the
edits need — and past them the two versions are compared in blocks (`_in_blocks`): the runs of
tokens both hold once pin them together, and only what lies between is compared. That is a valid
alignment, so the count is an upper bound, exact wherever the edits do not cross a pinned run; the
count says it is an estimate, and the receipt names the file.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from operator import ne
from typing import TYPE_CHECKING

from rapidfuzz.distance import Levenshtein

from bot.engine.bounds import MAX_EDIT_CELLS

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


def _middle(left: Sequence[str], right: Sequence[str]) -> tuple[int, list[int], list[int]]:
    """What lies between the ends two token lists share, numbered, and where it starts."""
    prefix, suffix = _affixes(left, right)
    return prefix, *_numbered(left[prefix : len(left) - suffix], right[prefix : len(right) - suffix])


def _banded(a: list[int], b: list[int], budget: int) -> tuple[int | None, int]:
    """Levenshtein(a, b) within `budget` cells, and the cells it cost: the whole table when it fits,
    else bands around the diagonal, each twice as wide as the last, from the length difference (a
    band k wide holds every alignment of at most k edits: rapidfuzz answers k + 1 when there is
    none). None when the band the edits need would cost more than what is left."""
    if len(a) * len(b) <= budget:
        return int(Levenshtein.distance(a, b)), len(a) * len(b)
    longer, spent = max(len(a), len(b)), 0
    band = max(abs(len(a) - len(b)), 64)
    while spent + (2 * band + 1) * longer <= budget:
        spent += (2 * band + 1) * longer
        found = int(Levenshtein.distance(a, b, score_cutoff=band))
        if found <= band:
            return found, spent
        band *= 2
    return None, spent


# Tokens in a run that, held once by each version, pins the two together: long enough that a run of
# common tokens (`) :` and the like) is rarely unique, short enough that most lines hold one.
_ANCHOR = 8


def _once(tokens: list[int]) -> dict[int, int]:
    """The hash of each _ANCHOR-token run of `tokens`, with where it starts (-1: more than once)."""
    found: dict[int, int] = {}
    for i in range(len(tokens) - _ANCHOR + 1):
        key = hash(tuple(tokens[i : i + _ANCHOR]))
        found[key] = -1 if key in found else i
    return found


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest chain of `pairs` (sorted, each first distinct) increasing in the second too."""
    ends: list[int] = []  # ends[k]: the pair ending the best chain of k + 1 pairs found so far
    seconds: list[int] = []  # their second items, increasing
    before = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(seconds, j)
        before[n] = ends[k - 1] if k else -1
        if k == len(ends):
            ends.append(n)
            seconds.append(j)
        else:
            ends[k], seconds[k] = n, j
    chain: list[tuple[int, int]] = []
    n = ends[-1] if ends else -1
    while n >= 0:
        chain.append(pairs[n])
        n = before[n]
    return chain[::-1]


def _anchors(a: list[int], b: list[int]) -> list[tuple[int, int, int]]:
    """Runs both lists hold in the same order (a start, b start, length): the _ANCHOR-token runs each
    holds exactly once, the longest chain of them in order on both sides (patience diff's rule),
    those on one diagonal joined, and one that overlaps the run before on another left out."""
    ours, theirs = _once(a), _once(b)
    pairs = sorted(
        (i, j)
        for key, i in ours.items()
        if i >= 0 and (j := theirs.get(key, -1)) >= 0 and a[i : i + _ANCHOR] == b[j : j + _ANCHOR]
    )
    runs: list[tuple[int, int, int]] = []
    for i, j in _increasing(pairs):
        if runs:
            start_a, start_b, length = runs[-1]
            if i - start_a == j - start_b and i <= start_a + length:
                runs[-1] = (start_a, start_b, i + _ANCHOR - start_a)
                continue
            if i < start_a + length or j < start_b + length:
                continue
        runs.append((i, j, _ANCHOR))
    return runs


def _kept(a: list[int], b: list[int], edits: int) -> list[tuple[int, int, int]]:
    """The runs a least-edits alignment keeps (a start, b start, length), `edits` being its cost (a
    hint that keeps rapidfuzz to the band that holds it)."""
    return [
        (op.src_start, op.dest_start, op.src_end - op.src_start)
        for op in Levenshtein.opcodes(a, b, score_hint=edits)
        if op.tag == "equal"
    ]


@dataclass(frozen=True, slots=True)
class _Compared:
    """Two numbered token lists compared: the edits, the runs kept in place when asked for, and
    whether the count is exact (else an upper bound: `_in_blocks`)."""

    edits: int
    kept: list[tuple[int, int, int]]
    exact: bool


def _in_blocks(a: list[int], b: list[int], budget: int, runs: bool) -> _Compared:
    """The edits of the alignment that keeps the anchors (`_anchors`) and aligns each stretch between
    two of them with the least edits the rest of the budget affords, or replaces it whole: linear in
    the tokens but for that budget. Never more than replacing everything, which is an alignment too."""
    edits, done_a, done_b = 0, 0, 0
    kept: list[tuple[int, int, int]] = []
    for i, j, length in [*_anchors(a, b), (len(a), len(b), 0)]:
        gap_a, gap_b = a[done_a:i], b[done_b:j]
        found, spent = _banded(gap_a, gap_b, budget)
        budget -= spent
        if found is None:
            edits += max(len(gap_a), len(gap_b))
        else:
            edits += found
            if runs:
                kept.extend((done_a + x, done_b + y, n) for x, y, n in _kept(gap_a, gap_b, found))
        kept.append((i, j, length))
        done_a, done_b = i + length, j + length
    if edits > max(len(a), len(b)):
        return _Compared(max(len(a), len(b)), [], exact=False)
    return _Compared(edits, kept, exact=False)


def _compared(a: list[int], b: list[int], runs: bool, budget: int | None) -> _Compared:
    """`a` and `b` compared within `budget` cells (MAX_EDIT_CELLS); the kept runs only when `runs`."""
    if budget is None:
        budget = MAX_EDIT_CELLS
    if len(a) * len(b) <= budget:  # as it always was: the whole table
        if not runs:
            return _Compared(int(Levenshtein.distance(a, b)), [], exact=True)
        edits, kept = 0, []
        for op in Levenshtein.opcodes(a, b):
            if op.tag == "equal":
                kept.append((op.src_start, op.dest_start, op.src_end - op.src_start))
            else:
                edits += max(op.src_end - op.src_start, op.dest_end - op.dest_start)
        return _Compared(edits, kept, exact=True)
    found, spent = _banded(a, b, budget)
    if found is None:
        return _in_blocks(a, b, budget - spent, runs)
    return _Compared(found, _kept(a, b, found) if runs else [], exact=True)


def levenshtein(left: Sequence[str], right: Sequence[str]) -> int:
    """Unit-cost edit distance between two token lists (what they share at either end costs none);
    an upper bound past MAX_EDIT_CELLS (`edit_count` says when)."""
    return edit_count(left, right).edits


@dataclass(frozen=True, slots=True)
class LayoutCount:
    """Two texts as written: token edits, and the gaps whose whitespace changed between two tokens
    that both texts keep side by side (a gap next to an edited token belongs to that edit);
    `estimated` when they were compared in blocks (both counts are then upper bounds)."""

    token_edits: int
    gap_edits: int
    estimated: bool = False


def layout_count(
    left: Sequence[str],
    left_gaps: Sequence[str],
    right: Sequence[str],
    right_gaps: Sequence[str],
    *,
    budget: int | None = None,
) -> LayoutCount:
    """Align the tokens (a least-edits alignment within `budget` cells, MAX_EDIT_CELLS by default),
    then compare the whitespace before each kept token whose predecessor is kept next to it too;
    `*_gaps[i]` is the whitespace before token i."""
    gaps = 0
    prefix, a, b = _middle(left, right)
    compared = _compared(a, b, True, budget)
    suffix = len(left) - prefix - len(a)
    kept = [(0, 0, prefix)]  # runs of kept tokens: (left start, right start, length)
    kept.extend((i + prefix, j + prefix, n) for i, j, n in compared.kept)
    kept.append((len(left) - suffix, len(right) - suffix, suffix))
    for i, j, n in kept:
        first = 0 if i == j == 0 else 1  # the start of both texts lines up like a kept token
        gaps += sum(map(ne, left_gaps[i + first : i + n], right_gaps[j + first : j + n]))
    return LayoutCount(compared.edits, gaps, not compared.exact)


@dataclass(frozen=True, slots=True)
class EditCount:
    """One file: token edits between two versions, and the longer version's token count;
    `estimated` when they were compared in blocks (the edits are then an upper bound)."""

    edits: int
    length: int
    estimated: bool = False

    @property
    def nd(self) -> float:
        """`nd` of one file; two empty token lists are identical, so their distance is 0."""
        return self.edits / self.length if self.length else 0.0


def edit_count(left: Sequence[str], right: Sequence[str], *, budget: int | None = None) -> EditCount:
    """Token edits between two versions within `budget` cells (MAX_EDIT_CELLS; the module's docstring)."""
    _, a, b = _middle(left, right)
    compared = _compared(a, b, False, budget)
    return EditCount(compared.edits, max(len(left), len(right)), not compared.exact)


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

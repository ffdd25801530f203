from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from bot.engine.distance import (
    EditCount,
    Total,
    _affixes,
    difference,
    edit_count,
    layout_count,
    levenshtein,
    total,
)

_TOKENS = st.lists(st.sampled_from(["a", "b", "c", "(", ")", "", "\n"]), max_size=12)


def test_levenshtein_counts_token_edits() -> None:
    assert levenshtein(["a", "b", "c"], ["a", "c"]) == 1
    assert levenshtein(["x"], ["y"]) == 1
    assert levenshtein([], ["a", "b"]) == 2
    assert levenshtein(["ab"], ["a", "b"]) == 2  # tokens are compared whole, never by character


@given(_TOKENS, _TOKENS)
def test_levenshtein_matches_the_textbook_recurrence(a: list[str], b: list[str]) -> None:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    assert levenshtein(a, b) == row[-1]


def test_nd_of_one_file() -> None:
    count = edit_count(["a", "b", "c", "d"], ["a", "x", "c"])
    assert count == EditCount(edits=2, length=4)
    assert count.nd == 0.5
    assert EditCount(0, 0).nd == 0.0  # two empty token lists are identical


def test_micro_average_divides_the_sums() -> None:
    big = EditCount(1, 100)
    small = EditCount(1, 2)
    assert total([big, small]).value == 2 / 102  # not the mean of 0.01 and 0.5
    assert total([big, small]) == Total(edits=2, length=102, files=2)


def test_no_file_is_not_a_number_and_empty_files_are_zero() -> None:
    assert total([]).value is None
    assert total([EditCount(0, 0)]).value == 0.0
    assert difference(total([]), total([EditCount(1, 2)])) is None
    assert difference(total([EditCount(1, 2)]), total([])) is None
    assert difference(total([EditCount(0, 0)]), total([EditCount(0, 0)])) == 0.0


def test_difference_is_exactly_zero_for_equal_sums_and_rounded_once() -> None:
    same = total([EditCount(7, 113), EditCount(3, 29)])
    assert difference(same, total([EditCount(7, 113), EditCount(3, 29)])) == 0.0
    # 1/3 − 1/7 = 4/21, rounded once (the float subtraction would round three times)
    assert difference(total([EditCount(1, 3)]), total([EditCount(1, 7)])) == 4 / 21
    assert difference(total([EditCount(1, 7)]), total([EditCount(1, 3)])) == -4 / 21


def _layout_by_whole_alignment(
    left: list[str], left_gaps: list[str], right: list[str], right_gaps: list[str]
) -> tuple[int, int]:
    """layout_count as it was before the shared ends were set aside: one alignment of everything."""
    edits = gaps = 0
    ids: dict[str, int] = {}
    a, b = [ids.setdefault(t, len(ids)) for t in left], [ids.setdefault(t, len(ids)) for t in right]
    for op in Levenshtein.opcodes(a, b):
        i, j, n = op.src_start, op.dest_start, op.src_end - op.src_start
        if op.tag != "equal":
            edits += max(n, op.dest_end - j)
            continue
        first = 0 if i == j == 0 else 1
        gaps += sum(
            x != y for x, y in zip(left_gaps[i + first : i + n], right_gaps[j + first : j + n], strict=True)
        )
    return edits, gaps


_TOKENS = st.lists(st.sampled_from(["a", "b", "c", "\n"]), max_size=12)


@given(_TOKENS, _TOKENS, _TOKENS, _TOKENS, st.lists(st.sampled_from([" ", "  "]), min_size=60, max_size=60))
def test_shared_ends_cost_nothing_and_align_as_before(
    head: list[str], a: list[str], b: list[str], tail: list[str], blanks: list[str]
) -> None:
    left, right = head + a + tail, head + b + tail
    left_gaps, right_gaps = blanks[: len(left)], blanks[::-1][: len(right)]
    assert levenshtein(left, right) == levenshtein(a, b) == Levenshtein.distance(a, b)
    found = layout_count(left, left_gaps, right, right_gaps)
    assert (found.token_edits, found.gap_edits) == _layout_by_whole_alignment(
        left, left_gaps, right, right_gaps
    )


def test_shared_ends_do_not_overlap() -> None:
    assert _affixes(("a", "a"), ("a",)) == (1, 0)
    assert _affixes(("a", "b", "a"), ("a", "a")) == (1, 1)
    assert _affixes((), ("a",)) == (0, 0)
    assert levenshtein(["a", "b", "a"], ["a", "a"]) == 1


def _naive_affixes(left: list[str], right: list[str]) -> tuple[int, int]:
    prefix = 0
    while prefix < min(len(left), len(right)) and left[prefix] == right[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(left), len(right)) - prefix and left[-1 - suffix] == right[-1 - suffix]:
        suffix += 1
    return prefix, suffix


_LONG = st.lists(st.sampled_from(["a", "b"]), max_size=200)


@given(_LONG, _LONG, _LONG, _LONG)
def test_shared_ends_are_the_longest(head: list[str], a: list[str], b: list[str], tail: list[str]) -> None:
    left, right = head + a + tail, head + b + tail
    assert _affixes(left, right) == _naive_affixes(left, right)
    assert _affixes(tuple(left), tuple(right)) == _naive_affixes(left, right)

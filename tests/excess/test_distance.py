from __future__ import annotations

import pytest
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


# Past the budget of exact comparison (MAX_EDIT_CELLS, made small here): a rewrite of a file of
# hundreds of thousands of tokens was quadratic (15 s for 300,000 tokens; four rewritten 2 MiB files
# took 529 s end to end).


def _code(lines: int, seed: int = 0) -> list[str]:
    """Lines of code: each its own words (so most runs of 8 tokens occur once) and shared punctuation."""
    return [t for i in range(lines) for t in (f"v{seed}_{i}", "=", "f", "(", f"a{i}", ",", "1", ")", "\n")]


def _exact(left: list[str], right: list[str]) -> int:
    return int(Levenshtein.distance(left, right))


def test_within_the_budget_a_band_finds_the_exact_distance() -> None:
    left = _code(200)  # 1,800 tokens: the whole table is 3.2 million cells
    right = list(left)
    right[5], right[900], right[1700] = "x", "y", "z"
    del right[1000:1010]
    assert edit_count(left, right, budget=500_000) == EditCount(_exact(left, right), 1800)  # one band
    many = list(left)
    for i in range(0, 1700, 18):
        many[i] = "w"  # 95 edits: the second band, twice as wide
    assert edit_count(left, many, budget=2_000_000) == EditCount(_exact(left, many), 1800)


def test_past_the_budget_the_versions_are_compared_in_blocks() -> None:
    left = _code(200)
    right = list(left)
    for i in range(0, 1700, 18):
        right[i] = "w"
    right[300:300] = ["new", "(", ")", "\n"] * 5
    count = edit_count(left, right, budget=1000)
    assert count == EditCount(_exact(left, right), len(right), estimated=True)  # the blocks hold it
    layout = layout_count(left, [" "] * len(left), right, [" "] * len(right), budget=1000)
    assert (layout.token_edits, layout.estimated) == (count.edits, True)


def test_a_rewrite_past_the_budget_counts_every_token() -> None:
    left, right = _code(300, seed=1), _code(300, seed=2)
    assert edit_count(left, right, budget=1000) == EditCount(_exact(left, right), 2700, estimated=True)
    assert edit_count(left, ["a"] * 3000, budget=1000) == EditCount(3000, 3000, estimated=True)


_FEW = st.lists(st.sampled_from(["a", "b", "c", "d", "(", ")", "\n"]), max_size=60)


@given(_FEW, _FEW, st.integers(0, 400))
def test_in_blocks_the_count_is_an_alignment_never_below_the_distance(
    left: list[str], right: list[str], budget: int
) -> None:
    count = edit_count(left, right, budget=budget)
    exact = _exact(left, right)
    assert exact <= count.edits <= count.length
    assert count.estimated or count.edits == exact
    gaps_left, gaps_right = [" "] * len(left), ["  "] * len(right)
    layout = layout_count(left, gaps_left, right, gaps_right, budget=budget)
    assert exact <= layout.token_edits <= max(len(left), len(right))


@given(st.lists(st.integers(0, 30), max_size=40), st.integers(0, 5))
def test_runs_moved_past_each_other_keep_the_longest_chain(order: list[int], shift: int) -> None:
    """Lines reordered: the runs both versions hold once pin only a chain in order on both sides."""
    left = _code(31)
    right = [t for i in order for t in left[9 * i : 9 * i + 9]] + ["\n"] * shift
    count = edit_count(left, right, budget=0)
    assert _exact(left, right) <= count.edits <= max(len(left), len(right))


class _Counting:
    """rapidfuzz's Levenshtein, counting the table cells each call may fill (a band's, with a cutoff)."""

    def __init__(self) -> None:
        self.cells = 0

    def distance(self, a: list[int], b: list[int], score_cutoff: int | None = None) -> int:
        whole = len(a) * len(b)
        self.cells += (
            whole if score_cutoff is None else min(whole, (2 * score_cutoff + 1) * max(len(a), len(b)))
        )
        return int(Levenshtein.distance(a, b, score_cutoff=score_cutoff))

    def opcodes(self, a: list[int], b: list[int], score_hint: int | None = None) -> object:
        whole = len(a) * len(b)
        self.cells += whole if score_hint is None else min(whole, (2 * score_hint + 1) * max(len(a), len(b)))
        return Levenshtein.opcodes(a, b, score_hint=score_hint)


@pytest.mark.parametrize("edits", [0, 30, 2000, 20_000])
def test_a_large_file_costs_its_budget_at_most_however_far_apart_its_versions(
    edits: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """20,000 tokens each side: the whole table is 400 million cells, the budget 2 million (before,
    every comparison filled the whole table: 300,000 tokens took 15 s, quadratic)."""
    budget = 2_000_000
    monkeypatch.setattr("bot.engine.distance.MAX_EDIT_CELLS", budget)
    counting = _Counting()
    monkeypatch.setattr("bot.engine.distance.Levenshtein", counting)
    left = _code(2223)[:20_000]
    right = list(left)
    for i in range(0, 20_000, max(1, 20_000 // max(edits, 1)))[:edits]:
        right[i] = "edited"
    count = edit_count(left, right)
    layout = layout_count(left, [" "] * 20_000, right, [" "] * 20_000)
    assert count.edits == layout.token_edits >= edits
    assert counting.cells <= 4 * budget  # each comparison at most twice its budget (bands double)

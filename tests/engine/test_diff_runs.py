"""A hunk keeps its lines as the diff's runs of one kind and builds DiffLines when asked
(bot/engine/diff.py): held here to a reading of the same text one line at a time, as the parser
read hunks before, on every mix of kinds, empty context lines, "\\ No newline" markers and line
contents that start with a tag of their own."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.engine import diff as diff_module
from bot.engine.diff import DiffLine, DiffParseError, LineKind, parse_diff

_KINDS = {"+": LineKind.ADDED, "-": LineKind.REMOVED, " ": LineKind.CONTEXT}
_NO_NEWLINE = "\\ No newline at end of file"


def _reference(body: list[str], old_start: int, new_start: int) -> list[DiffLine]:
    """The lines of a hunk whose body is exactly `body` (its counts fit), one line at a time."""
    out: list[DiffLine] = []
    old_no, new_no = old_start, new_start
    for line in body:
        if line.startswith("\\"):
            if out:
                out[-1] = out[-1]._replace(no_newline=True)
            continue
        tag, text = (line[:1], line[1:]) if line else (" ", "")
        kind = _KINDS[tag]
        out.append(DiffLine(kind, text, None if tag == "+" else old_no, None if tag == "-" else new_no))
        old_no += tag != "+"
        new_no += tag != "-"
    return out


_CONTENT = st.text(st.sampled_from(list("ab +-\\\r\x0c\u2028é")), max_size=6)
_LINE = st.one_of(
    st.tuples(st.sampled_from("+- "), _CONTENT).map("".join),
    st.just(""),
    st.just(_NO_NEWLINE),
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=40), st.integers(0, 3), st.integers(1, 3))
@example(["+a", "+b", "+c"], 0, 1)
@example(["-a", _NO_NEWLINE, "+a", _NO_NEWLINE], 1, 1)
@example(["", "", " x", "+-y", "- +z"], 2, 2)
def test_a_hunk_reads_as_its_lines_one_at_a_time(body: list[str], old_start: int, new_start: int) -> None:
    lines = [line for line in body if not line.startswith("\\")]
    old_len = sum(1 for line in lines if not line.startswith("+"))
    new_len = sum(1 for line in lines if not line.startswith("-"))
    if not lines or (old_len and not old_start):
        return
    header = f"@@ -{old_start if old_len else 0},{old_len} +{new_start},{new_len} @@"
    text = f"diff --git a/f b/f\n--- a/f\n+++ b/f\n{header}\n" + "".join(f"{line}\n" for line in body)
    try:
        (file,) = parse_diff(text).files
    except DiffParseError:  # a marker before any line is read as the parser reads it: no line
        assert body[0].startswith("\\")
        return
    (hunk,) = file.hunks
    want = _reference(body, old_start if old_len else 0, new_start)
    assert list(hunk.lines) == want
    assert (hunk.added, hunk.removed) == (
        sum(1 for line in want if line.kind is LineKind.ADDED),
        sum(1 for line in want if line.kind is LineKind.REMOVED),
    )
    added = [line for line in want if line.kind is LineKind.ADDED]
    text_added, numbers = hunk.added_text()
    assert text_added == "\n".join(line.text for line in added)
    assert list(numbers) == [line.new_no for line in added]
    assert isinstance(numbers, range) == (old_len == 0)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(["+a", "+", "-b", " c", "", "++", "+\r"]), max_size=12),
    st.integers(0, 12),
    st.sampled_from("+- "),
    st.integers(1, 14),
)
def test_a_run_is_taken_as_the_line_by_line_scan_takes_it(
    lines: list[str], pos: int, tag: str, limit: int
) -> None:
    if pos >= len(lines):
        return
    taken, joined = diff_module._taken(lines, pos, tag, limit)
    assert taken == diff_module._run(lines, pos, tag, limit)
    assert joined == "\n".join(lines[pos : pos + taken])


def test_hunks_compare_by_their_lines() -> None:
    one = parse_diff("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n").files[0].hunks[0]
    # An empty line is empty context, the same line as a single space.
    two = parse_diff("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n").files[0].hunks[0]
    blank = parse_diff("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n\n").files[0].hunks[0]
    space = parse_diff("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n \n").files[0].hunks[0]
    assert one == two and hash(one) == hash(two) and one != blank
    assert blank == space and hash(blank) == hash(space) and blank != "hunk"
    with pytest.raises(AttributeError, match="a Hunk is immutable: cannot set old_start"):
        blank.old_start = 2
    assert pickle.loads(pickle.dumps(one)) == one and copy.deepcopy(blank) == blank
    assert repr(blank) == (
        "Hunk(old_start=1, old_len=1, new_start=1, new_len=1, "
        "lines=(DiffLine(kind=<LineKind.CONTEXT: ' '>, text='', old_no=1, new_no=1, no_newline=False),))"
    )


@pytest.mark.parametrize(
    ("body", "count", "expected"),
    [
        (["-old", "+new", " kept", "+more"], 2, ["new", "kept"]),  # removed lines are not the head's
        ([" a", " b", " c"], 2, ["a", "b"]),
        (["-gone", "+only"], 2, ["only"]),  # fewer head lines than asked for
        (["-gone"], 2, []),
        (["+", "+x", "+y"], 2, ["", "x"]),  # blank lines are lines; the run is read no further
        (["+a", "+ b", "+c"], 5, ["a", " b", "c"]),
    ],
)
def test_a_hunks_head_start_is_its_first_context_and_added_lines(
    body: list[str], count: int, expected: list[str]
) -> None:
    old = sum(1 for line in body if line[0] in " -")
    new = sum(1 for line in body if line[0] in " +")
    text = "\n".join(["--- a/f", "+++ b/f", f"@@ -1,{old} +{1 if new else 0},{new} @@", *body]) + "\n"
    [hunk] = parse_diff(text).files[0].hunks
    assert hunk.head_start(count) == expected

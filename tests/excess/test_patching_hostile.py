"""Reference patches are parsed defensively: malformed shapes are an error naming the hunk, found in
time proportional to the patch and the base, never a loop over a claimed position."""

from __future__ import annotations

import pytest

from bot.engine import patching
from bot.engine.diff import DiffParseError, parse_diff
from bot.engine.patching import PatchApplyError, ReferencePatchError, apply_file, parse_reference

BASE = "a\nb\nc\n"
GIT = "diff --git a/f b/f\nindex 1111111..2222222 100644\n"


def _apply(patch: str, base: str = BASE) -> str:
    (file,) = parse_reference(patch.encode(), "p").diff.files
    return apply_file(base, file)


@pytest.mark.parametrize("header", ["", GIT])
def test_a_hunk_far_beyond_the_file_is_an_error_naming_it(header: str) -> None:
    patch = header + "--- a/f\n+++ b/f\n@@ -1000000000000,1 +1000000000000,1 @@\n-b\n+B\n"
    with pytest.raises(PatchApplyError) as err:
        _apply(patch)
    assert err.value.hunk == 1
    assert str(err.value) == (
        "hunk 1 (@@ -1000000000000,1 +1000000000000,1 @@) of f does not apply to the base: it starts at "
        "line 1000000000000, past the end of the base (3 lines)"
    )


@pytest.mark.parametrize("header", ["", GIT])
def test_a_hunk_position_too_long_to_read_as_a_number_is_an_error_naming_the_hunk(header: str) -> None:
    patch = header + "--- a/f\n+++ b/f\n@@ -" + "9" * 5000 + ",1 +1,1 @@\n-b\n+B\n"
    with pytest.raises(ReferencePatchError) as err:
        _apply(patch)
    assert "hunk 1 of f: its header states a number of 5,000 digits, past any file" in str(err.value)


@pytest.mark.parametrize("path", ["../../etc/passwd", "/etc/passwd", "a/./b", "a//b", "a/.."])
def test_a_reference_path_outside_the_repository_is_refused_naming_it(path: str) -> None:
    """It reached git as a path to read at the base, which failed with a bare "git cat-file failed"."""
    patch = f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-x\n+y\n"
    with pytest.raises(ReferencePatchError) as err:
        parse_reference(patch.encode(), "p")
    assert err.value.problem == (
        f"{path!r} is not a path inside the repository (it has a leading '/', or a '.', '..' or empty part)"
    )


def test_a_hunk_just_off_its_position_is_still_found_nearby() -> None:
    assert _apply("--- a/f\n+++ b/f\n@@ -3,1 +3,1 @@\n-b\n+B\n") == "a\nB\nc\n"
    assert _apply("--- a/f\n+++ b/f\n@@ -3,0 +4,1 @@\n+d\n") == "a\nb\nc\nd\n"  # an append


def test_the_search_reads_each_base_line_once_per_hunk(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hunk that is nowhere in a long base is looked for at each position once, whatever it claims."""
    checked: list[int] = []
    holds = patching._Windows.holds

    def counting(self: patching._Windows, at: int, *args: object) -> bool:
        checked.append(at)
        return holds(self, at, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(patching._Windows, "holds", counting)
    base = "x\n" * 5000
    with pytest.raises(PatchApplyError, match="hunk 1"):
        _apply("--- a/f\n+++ b/f\n@@ -4000,2 +4000,2 @@\n x\n-y\n+z\n", base)
    assert sorted(checked) == list(range(4999))


def _counting_searches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    checked: list[int] = []
    holds = patching._Windows.holds

    def counting(self: patching._Windows, at: int, *args: object) -> bool:
        checked.append(at)
        return holds(self, at, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(patching._Windows, "holds", counting)
    return checked


_LINES = "".join(f"line {i}\n" for i in range(1, 4001))


@pytest.mark.parametrize(
    ("hunks", "problem"),
    [
        # hunks that claim to go back and forth were each looked for across the whole base
        (
            "@@ -4000,1 +4000,1 @@\n-line 2\n+LINE 2\n@@ -1,1 +1,1 @@\n-line 4\n+LINE 4\n",
            "hunk 2 (@@ -1,1 +1,1 @@) of f does not apply to the base: it starts at line 1, before hunk 1 ends "
            "(line 4000): a file's hunks come in order and do not overlap",
        ),
        (
            "@@ -3,2 +3,2 @@\n-line 3\n-line 4\n+A\n+B\n@@ -4,1 +4,1 @@\n-line 5\n+C\n",
            "hunk 2 (@@ -4,1 +4,1 @@) of f does not apply to the base: it starts at line 4, before hunk 1 ends "
            "(line 4): a file's hunks come in order and do not overlap",
        ),
        (
            "@@ -3,1 +3,1 @@\n-line 3\n+A\n@@ -3,1 +3,1 @@\n-line 4\n+B\n",
            "hunk 2 (@@ -3,1 +3,1 @@) of f does not apply to the base: it starts at line 3, before hunk 1 ends "
            "(line 3): a file's hunks come in order and do not overlap",
        ),
        (
            "@@ -5,0 +6,1 @@\n+after five\n@@ -5,1 +6,1 @@\n-line 5\n+FIVE\n",
            "hunk 2 (@@ -5,1 +6,1 @@) of f does not apply to the base: it starts at line 5, before hunk 1 ends "
            "(line 5): a file's hunks come in order and do not overlap",
        ),
    ],
)
def test_hunks_out_of_order_or_overlapping_are_refused_as_git_apply_refuses_them(
    hunks: str, problem: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = _counting_searches(monkeypatch)
    with pytest.raises(PatchApplyError) as err:
        _apply("--- a/f\n+++ b/f\n" + hunks, _LINES)
    assert str(err.value) == problem and err.value.hunk == 2
    assert len(checked) <= 4000  # the first hunk's search, at most: nothing more is looked for


def test_hunks_next_to_each_other_apply() -> None:
    """The near misses: a hunk may begin where the one before ends, or after an insertion there."""
    assert _apply("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n+A\n@@ -2,1 +2,1 @@\n-b\n+B\n") == "A\nB\nc\n"
    inserted = "--- a/f\n+++ b/f\n@@ -1,0 +2,1 @@\n+x\n@@ -2,1 +3,1 @@\n-b\n+B\n"
    assert _apply(inserted) == "a\nx\nB\nc\n"


def test_hunks_in_order_whose_positions_lie_cost_searches_adding_up_to_the_base(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """2,000 hunks on consecutive lines of a 4,000-line base, each claiming a line further on than
    the last and far from its own: each search starts where the one before ended, so together they
    read the base a few times, not once per hunk (8 million checks before, hunks claiming 1 and 4000
    in turn)."""
    hunks = "".join(f"@@ -{2 * k - 1},1 +{2 * k - 1},1 @@\n-line {k}\n+LINE {k}\n" for k in range(1, 2001))
    checked = _counting_searches(monkeypatch)
    result = _apply("--- a/f\n+++ b/f\n" + hunks, _LINES)
    assert result.startswith("LINE 1\nLINE 2\n") and "line 2000\n" not in result
    assert len(checked) <= 4 * 4000


def test_a_reference_past_the_diff_limits_is_refused_before_it_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An 80 MB file of junk took 27 s to be told it is not a diff; the reference is held to the
    limits on the diff one receipt reads."""
    monkeypatch.setattr("bot.engine.change.MAX_DIFF_LINES", 1000)
    with pytest.raises(ReferencePatchError) as err:
        parse_reference(b"junk\n" * 1001, "p")
    assert err.value.problem == "too large: the diff is 1,001 lines, more than the 1,000 one receipt reads"


@pytest.mark.parametrize("header", ["", GIT])
def test_a_blank_line_between_hunks_is_an_error_naming_the_hunk(header: str) -> None:
    """Before, the plain form dropped the newline of the hunk's last line, and the git form read the
    second hunk's header as a context line."""
    patch = header + "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n+A\n\n@@ -3,1 +3,1 @@\n-c\n+C\n"
    with pytest.raises(ReferencePatchError) as err:
        _apply(patch)
    line = 6 + (2 if header else 0)
    assert err.value.problem == (
        f"not a diff: diff line {line}: a blank line after hunk 1 of f, before hunk 2: hunks follow each "
        "other directly (an empty context line is a single space)"
    )


def test_blank_lines_after_the_last_hunk_and_empty_context_lines_are_fine() -> None:
    assert _apply("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n+A\n\n\n") == "A\nb\nc\n"
    assert _apply("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\nb\nc\n") == "a\nB\nc\n"
    assert _apply("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-c\n+C\n", "a\n\nc\n") == "a\n\nC\n"


@pytest.mark.parametrize(
    ("hunks", "problem"),
    [
        ("@@ -a,1 +1,1 @@\n-a\n+A\n", "diff line 3: not a hunk header git writes: '@@ -a,1 +1,1 @@'"),
        ("@@ -1,-1 +1,1 @@\n+x\n", "diff line 3: not a hunk header git writes: '@@ -1,-1 +1,1 @@'"),
        (
            "@@ -1,3 +1,3 @@\n-a\n+A\n",
            "diff line 5: hunk 1 (@@ -1,3 +1,3 @@) of f ends early: 2 base and 2 head line(s) short of its header",
        ),
        (
            "@@ -1,2 +1,2 @@\n a\nxyz\n",
            "diff line 5: hunk 1 (@@ -1,2 +1,2 @@) of f: 'xyz' does not fit its header (1 base and 1 head line(s) left)",
        ),
        (
            "@@ -1,1 +1,1 @@\n-a\n+A\n+extra\n",
            "diff line 6: not a unified diff: '+extra' after the hunks of a file",
        ),
        (
            "@@ -2,1000000000000 +2,1 @@\n-b\n+B\n",
            "diff line 5: hunk 1 (@@ -2,1000000000000 +2,1 @@) of f ends early: 999999999999 base and 0 head "
            "line(s) short of its header",
        ),
    ],
)
def test_malformed_hunks_are_named(hunks: str, problem: str) -> None:
    """Before, a hunk header unidiff did not recognise was skipped with its lines: the patch applied
    as if it changed nothing."""
    with pytest.raises(ReferencePatchError) as err:
        _apply("--- a/f\n+++ b/f\n" + hunks)
    assert err.value.problem == f"not a diff: {problem}"


def test_a_blank_line_between_hunks_of_a_git_diff_is_no_silent_misreading() -> None:
    text = GIT + "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+A\n\n@@ -2 +2 @@\n-b\n+B\n"
    with pytest.raises(DiffParseError, match="diff line 8: a blank line after hunk 1 of f, before hunk 2"):
        parse_diff(text)


def test_plain_diffs_keep_their_tools_lines_and_binary_notes() -> None:
    text = (
        "Index: f\n===================================================================\n"
        "--- a/f\t2026-01-01 00:00:00\n+++ b/f\t2026-01-02 00:00:00\n@@ -1 +1 @@\n-a\n+A\n"
        "diff -u a/g b/g\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n--- a sql comment\n+++ a new one\n"
        "Binary files a/img.png and b/img.png differ\n"
        "Binary files /dev/null and b/new.png differ\n"
    )
    f, g, img, new = parse_diff(text).files
    assert (f.path, [line.text for h in f.hunks for line in h.lines]) == ("f", ["a", "A"])
    assert [line.text for h in g.hunks for line in h.lines] == ["-- a sql comment", "++ a new one"]
    assert img.binary and img.path == "img.png" and img.status.value == "modified"
    assert new.binary and new.status.value == "added"

from __future__ import annotations

import difflib

import pytest

from bot.engine.change import Change, FileTexts
from bot.engine.distance import edit_count
from bot.engine.excess import (
    ComplexityChange,
    ExcessResult,
    Excluded,
    Exclusion,
    check_reference,
    judge_excess,
    measure_excess,
)
from bot.engine.manifest import ExcessPolicy
from bot.engine.patching import PatchApplyError, Reference, parse_reference
from bot.engine.render.excess_text import notes
from bot.engine.tokens import Tokenizer
from tests.texts import change_with_texts

C = "def area(w, h):\n    return w + h\n"
G = "def area(w, h):\n    return w * h\n"
M_BIG = "def area(w, h):\n    if w < 0:\n        raise ValueError(w)\n    return w * h\n"


def _header(path: str, kind: str = "modified", old: str | None = None) -> str:
    if kind == "added":
        return f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
    if kind == "deleted":
        return f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n+++ /dev/null\n"
    if kind == "renamed":
        return f"diff --git a/{old} b/{path}\nsimilarity index 80%\nrename from {old}\nrename to {path}\n"
    if kind == "binary":
        binary = f"Binary files a/{path} and b/{path} differ\n"
        return f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n{binary}"
    if kind == "symlink":
        return f"diff --git a/{path} b/{path}\nnew file mode 120000\n--- /dev/null\n+++ b/{path}\n"
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"


def change(*files: tuple[str, str, str | None, str | None]) -> Change:
    """(path, kind, C, M) per file; the engine reads texts, never the candidate's hunks."""
    diff = "".join(_header(path, kind) for path, kind, _, _ in files)
    return change_with_texts(diff.encode(), {path: FileTexts(c, m) for path, _, c, m in files})


def patch(path: str, before: str, after: str) -> str:
    old = "/dev/null" if before == "" else f"a/{path}"
    new = "/dev/null" if after == "" else f"b/{path}"
    lines = difflib.unified_diff(before.splitlines(True), after.splitlines(True), old, new)
    return "".join(lines)


def git_patch(path: str, before: str, after: str) -> str:
    mode = "new file mode 100644\n" if before == "" else ""
    return f"diff --git a/{path} b/{path}\n{mode}" + patch(path, before, after)


def reference(text: str, **base_texts: str | None) -> Reference:
    parsed = parse_reference(text.encode(), "gold.patch")
    return Reference(parsed.source, parsed.digest, parsed.diff, base_texts)


def nd(path: str, a: str, b: str) -> tuple[int, int]:
    pair = Tokenizer().pair(path, a, b)
    count = edit_count(pair.left, pair.right)
    return count.edits, count.length


def test_distance_without_a_reference() -> None:
    x = measure_excess(change(("area.py", "modified", C, M_BIG)))
    edits, length = nd("area.py", C, M_BIG)
    assert x.distance == edits / length
    assert x.reference is None and x.reference_distance is None and x.excess is None
    assert x.formatting_share == 0.0
    assert x.added_complexity == 1
    assert x.complexity_changes == (ComplexityChange("area.py", "area", 1),)
    assert x.files == 1
    assert not x.alarm


def test_micro_average_over_files() -> None:
    other_c, other_m = "a b c d e f g h\n", "a b c d e f g x\n"
    x = measure_excess(change(("area.py", "modified", C, G), ("notes.txt", "modified", other_c, other_m)))
    e1, l1 = nd("area.py", C, G)
    e2, l2 = nd("notes.txt", other_c, other_m)
    assert x.distance == (e1 + e2) / (l1 + l2)
    assert x.added_complexity == 0
    assert x.complexity_changes == ()


def test_nothing_to_measure() -> None:
    x = measure_excess(change())
    assert (x.distance, x.formatting_share, x.added_complexity, x.excess) == (None, None, None, None)
    assert x.files == 0


def test_binary_symlink_and_unreadable_files_are_left_out_and_counted() -> None:
    x = measure_excess(
        change(
            ("logo.png", "binary", None, None),
            ("link", "symlink", "", "target"),
            ("huge.py", "modified", None, "x = 1\n"),
        )
    )
    assert x.distance is None
    assert x.excluded == (
        Excluded("huge.py", Exclusion.UNREADABLE),
        Excluded("link", Exclusion.NOT_A_FILE),
        Excluded("logo.png", Exclusion.BINARY),
    )
    assert x.added_complexity is None
    assert x.not_measured == (
        "every changed file was left out: 1 file (binary), 1 file (symlink or submodule), "
        "1 file (too large or not text)"
    )


def test_a_change_with_some_files_measured_is_not_said_unmeasured() -> None:
    x = measure_excess(change(("logo.png", "binary", None, None), ("a.py", "modified", C, G)))
    assert x.distance is not None and x.not_measured is None
    assert measure_excess(change()).not_measured is None  # nothing to measure is not a gap


def test_files_past_the_edit_budget_are_compared_in_blocks_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose versions are too far apart for exact comparison within its budget is measured in
    blocks (an upper bound, here exact), and `not_measured` and the summary name it; a file within
    the budget is measured as before, and a change of such files alone says nothing."""
    for module in ("distance", "excess"):
        monkeypatch.setattr(f"bot.engine.{module}.MAX_EDIT_CELLS", 20_000)
    big_c = "".join(f"v{i} = f(a{i}, 1)\n" for i in range(300))
    big_m = big_c.replace("1)\n", "2)\n", 40).replace("v299 = ", "w299 = ")
    x = measure_excess(change(("big.py", "modified", big_c, big_m), ("a.py", "modified", C, G)))
    monkeypatch.setattr("bot.engine.distance.MAX_EDIT_CELLS", 1 << 32)
    exact = [nd("big.py", big_c, big_m), nd("a.py", C, G)]  # exact: the whole table
    assert x.distance == sum(e for e, _ in exact) / sum(n for _, n in exact)
    assert x.estimated == ("big.py",)
    assert x.not_measured == (
        "compared in blocks, not token by token (big.py): their two versions are too far apart for the "
        "20,000 cells of edit distance one file gets, so only what lies between the runs of tokens both "
        "hold once was compared, and their edits count as an upper bound"
    )
    assert notes(x, lambda t: f"`{t}`")[-1] == (
        "Estimated: compared in blocks, not token by token (`big.py`): their two versions are too far "
        "apart for the 20,000 cells of edit distance one file gets, so only what lies between the runs "
        "of tokens both hold once was compared, and their edits count as an upper bound."
    )
    assert measure_excess(change(("a.py", "modified", C, G))).not_measured is None


def test_added_deleted_and_empty_files() -> None:
    x = measure_excess(change(("new.py", "added", "", "x = 1\n")))
    assert x.distance == 1.0  # every token is new
    assert x.added_complexity == 0
    assert (
        measure_excess(
            change(("old.py", "deleted", "def f():\n    if a:\n        pass\n", ""))
        ).added_complexity
        == -1
    )
    empty = measure_excess(change(("empty.txt", "added", "", "")))
    assert empty.distance == 0.0  # two empty token lists are identical
    assert empty.formatting_share == 0.0
    assert empty.added_complexity is None  # no Python file


def test_formatting_share_is_the_part_normalization_removes() -> None:
    reformatted = "def area(w, h):  # the area\n    return (w+h)\n"
    x = measure_excess(change(("area.py", "modified", C, reformatted)))
    assert x.distance == 0.0
    assert x.formatting_share == 1.0
    mixed = measure_excess(
        change(("area.py", "modified", C, "def area(w, h):  # the area\n    return w*h\n"))
    )
    assert mixed.formatting_share is not None and 0 < mixed.formatting_share < 1


_MEAN = "def mean(values):\n    return sum(values) / (len(values) - 1)\n"


@pytest.mark.parametrize(
    ("path", "before", "after"),
    [
        # the one-line fix of `make demo`: deleting tokens moves no whitespace of the tokens kept
        ("calc.py", _MEAN, _MEAN.replace("(len(values) - 1)", "len(values)")),
        ("calc.py", _MEAN, _MEAN.replace("len(values) - 1", "len(values) - 2")),
        ("calc.py", _MEAN, _MEAN + "\n\ndef spread(values):\n    return max(values) - min(values)\n"),
        ("area.py", C, G),
        ("area.py", C, "def area(w, h):\n    return w\n"),
        ("area.py", C, ""),  # a deletion
        ("area.py", "", C),  # a new file
        ("f.c", "int f(int a) { return (a - 1); }\n", "int f(int a) { return a; }\n"),
        ("NOTES", "one two three four\n", "one three four\n"),
    ],
)
def test_a_change_with_no_formatting_change_has_formatting_share_0(
    path: str, before: str, after: str
) -> None:
    x = measure_excess(change((path, "modified", before, after)))
    assert x.distance is not None and x.distance > 0
    assert x.formatting_share == 0.0


@pytest.mark.parametrize(
    ("path", "before", "after"),
    [
        ("calc.py", _MEAN, _MEAN.replace("(len(values) - 1)", "(len(values)-1)")),  # spacing only
        ("calc.py", _MEAN, _MEAN.replace(" - 1)", " - 2)  # fixed")),  # a fix and a comment
        ("calc.py", _MEAN, _MEAN.replace("return", "return ")),  # a wider gap
        ("calc.py", _MEAN, _MEAN + "   "),  # trailing blanks
        ("calc.py", _MEAN, "\n" + _MEAN),  # a blank line at the start
        ("calc.py", _MEAN, _MEAN.replace("    return", "        return")),  # indentation
        ("calc.py", _MEAN, _MEAN.replace("(values)", "( values )")),
        ("f.c", "int f(int a) { return a - 1; }\n", "int f(int a)\n{\n  return a - 2;\n}\n"),
        ("NOTES", "one two three four\n", "one two\nthree  four\n"),
    ],
)
def test_any_formatting_change_has_a_share_above_0(path: str, before: str, after: str) -> None:
    x = measure_excess(change((path, "modified", before, after)))
    assert x.formatting_share is not None and x.formatting_share > 0


def test_python_that_does_not_parse_is_read_by_the_tokenizer_and_said() -> None:
    broken = "def area(w, h:\n    return w * h\n"
    x = measure_excess(change(("area.py", "modified", C, broken)))
    assert x.unparsed == ("area.py",)
    assert x.complexity_unmeasured == ("area.py",)
    assert x.added_complexity is None
    assert x.distance is not None and 0 < x.distance < 0.5


def test_reference_equal_to_the_change_gives_exactly_zero() -> None:
    ref = reference(patch("area.py", C, G))
    x = measure_excess(change(("area.py", "modified", C, G)), ref)
    assert x.excess == 0.0
    assert x.reference_distance == x.distance == x.union_distance == x.union_reference_distance
    assert x.reference is not None and x.reference.source == "gold.patch"
    assert x.added_complexity == 0


def test_excess_is_positive_when_the_change_does_more() -> None:
    ref = reference(patch("area.py", C, G))
    x = measure_excess(change(("area.py", "modified", C, M_BIG)), ref)
    e_m, l_m = nd("area.py", C, M_BIG)
    e_g, l_g = nd("area.py", C, G)
    assert x.excess == pytest.approx(e_m / l_m - e_g / l_g)
    assert x.excess is not None and x.excess > 0
    assert x.added_complexity == 1
    assert x.complexity_changes == (ComplexityChange("area.py", "area", 1),)


def test_excess_is_negative_when_the_change_does_less() -> None:
    ref = reference(patch("area.py", C, M_BIG))
    x = measure_excess(change(("area.py", "modified", C, G)), ref)
    assert x.excess is not None and x.excess < 0
    assert x.added_complexity == -1


def test_a_reference_touching_a_file_the_change_does_not() -> None:
    util_c = "def util(x):\n    return x\n"
    util_g = "def util(x):\n    return x + 1\n"
    ref = reference(patch("area.py", C, G) + patch("util.py", util_c, util_g), **{"util.py": util_c})
    x = measure_excess(change(("area.py", "modified", C, G)), ref)
    e_a, l_a = nd("area.py", C, G)
    e_u, l_u = nd("util.py", util_c, util_g)
    _, l_u_base = nd("util.py", util_c, util_c)
    assert x.reference_distance == (e_a + e_u) / (l_a + l_u)
    # over the union: the candidate left util.py alone, so it counts with its base text
    assert x.union_distance == e_a / (l_a + l_u_base)
    assert x.distance == e_a / l_a
    assert x.excess is not None and x.excess < 0


def test_a_change_touching_a_file_the_reference_does_not() -> None:
    ref = reference(patch("area.py", C, G))
    x = measure_excess(change(("area.py", "modified", C, G), ("doc.md", "modified", "# A\n", "# B\n")), ref)
    assert x.excess is not None and x.excess > 0


def test_reference_files_added_renamed_and_left_out() -> None:
    ref = reference(
        git_patch("new.py", "", "x = 1\n")
        + "diff --git a/logo.png b/logo.png\nindex 1111111..2222222 100644\n"
        "Binary files a/logo.png and b/logo.png differ\n" + git_patch("big.py", "x\n", "y\n"),
        **{"big.py": None},
    )
    x = measure_excess(change(("area.py", "modified", C, C)), ref)
    assert x.excluded == (Excluded("big.py", Exclusion.UNREADABLE), Excluded("logo.png", Exclusion.BINARY))
    assert x.reference_distance == 1.0  # new.py, every token added
    # candidate renamed old.py to area.py: the reference's edit of old.py is the same file
    renamed = change_with_texts(
        (
            b"diff --git a/old.py b/area.py\nsimilarity index 90%\nrename from old.py\nrename to area.py\n"
            b"--- a/old.py\n+++ b/area.py\n"
        ),
        {"area.py": FileTexts(C, G)},
    )
    same = measure_excess(renamed, reference(patch("old.py", C, G)))
    assert same.excess == 0.0


def test_a_file_either_side_leaves_out_is_not_in_the_union() -> None:
    binary = (
        "diff --git a/x.py b/x.py\nindex 1111111..2222222 100644\nBinary files a/x.py and b/x.py differ\n"
    )
    x = measure_excess(
        change(("area.py", "modified", C, G), ("x.py", "modified", "a = 1\n", "a = 2\n")), reference(binary)
    )
    edits, length = nd("area.py", C, G)
    assert x.union_distance == edits / length and x.union_reference_distance == 0.0
    assert x.distance != x.union_distance


def test_copies_are_new_files() -> None:
    copy = "diff --git a/area.py b/copy.py\nsimilarity index 100%\ncopy from area.py\ncopy to copy.py\n"
    ref = reference(copy + git_patch("area.py", C, G))
    x = measure_excess(change(("area.py", "modified", C, G)), ref)
    e, length = nd("area.py", C, G)
    _, copied = nd("copy.py", "", C)
    assert x.reference_distance == (e + copied) / (length + copied)  # every token of the copy is new
    assert x.excess is not None and x.excess < 0  # the change did not make the copy
    copied_by_candidate = change_with_texts(copy.encode(), {"copy.py": FileTexts(C, C)})
    assert measure_excess(copied_by_candidate).distance == 1.0


@pytest.mark.parametrize(
    ("ref_text", "base_texts", "message"),
    [
        (patch("gone.py", "a\n", "b\n"), {}, "gone.py does not apply to the base: the base has no such file"),
        (
            patch("area.py", "", "x = 1\n"),
            {},
            "area.py does not apply to the base: it adds the file, which the base already has",
        ),
        (
            patch("there.py", "", "x = 1\n"),
            {"there.py": "y = 2\n"},
            "there.py does not apply to the base: it adds the file, which the base already has",
        ),
        (
            patch("area.py", "def area(w, h):\n    return w - h\n", G),
            {},
            "hunk 1 (@@ -1,2 +1,2 @@) of area.py does not apply to the base: "
            "line 2 is '    return w + h' in the base, the patch expects '    return w - h'",
        ),
    ],
)
def test_a_reference_that_does_not_apply(
    ref_text: str, base_texts: dict[str, str | None], message: str
) -> None:
    candidate = change(("area.py", "modified", C, G))
    ref = reference(ref_text, **base_texts)
    with pytest.raises(PatchApplyError) as caught:
        measure_excess(candidate, ref)
    assert str(caught.value) == message
    with pytest.raises(PatchApplyError):
        check_reference(candidate, ref)


def test_check_reference_accepts_a_patch_that_applies() -> None:
    check_reference(change(("area.py", "modified", C, G)), reference(patch("area.py", C, G)))


def test_no_limit_no_alarm() -> None:
    measured = measure_excess(change(("area.py", "modified", C, M_BIG)), reference(patch("area.py", C, G)))
    judged = judge_excess(measured, ExcessPolicy())
    assert not judged.alarm
    assert judged.alarm_reasons == ()


def test_each_limit_raises_the_alarm_with_a_reason() -> None:
    measured = ExcessResult(distance=0.3, excess=0.06, added_complexity=3)
    judged = judge_excess(measured, ExcessPolicy(max_distance=0.25, max_excess=0.05, max_added_complexity=2))
    assert judged.alarm
    assert judged.alarm_reasons == (
        "distance 0.300 is above excess.max_distance 0.25",
        "excess +0.060 over the reference is above excess.max_excess 0.05",
        "added cognitive complexity +3 is above excess.max_added_complexity 2",
    )
    at_limits = judge_excess(
        measured, ExcessPolicy(max_distance=0.3, max_excess=0.06, max_added_complexity=3)
    )
    assert not at_limits.alarm  # a limit is the largest value allowed
    unmeasured = judge_excess(
        ExcessResult(), ExcessPolicy(max_distance=0, max_excess=0, max_added_complexity=0)
    )
    assert not unmeasured.alarm

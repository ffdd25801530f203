from __future__ import annotations

import hashlib

import pytest

from bot.engine.diff import FileDiff, parse_diff
from bot.engine.patching import (
    PatchApplyError,
    ReferencePatchError,
    apply_file,
    base_path,
    measurable,
    parse_reference,
)

BASE = "".join(f"line {n}\n" for n in range(1, 21))


def _file(patch: str) -> FileDiff:
    return parse_diff(patch).files[0]


def test_parse_reference_digests_the_bytes() -> None:
    data = b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
    reference = parse_reference(data, "fix.patch")
    assert reference.source == "fix.patch"
    assert reference.digest == "sha256:" + hashlib.sha256(data).hexdigest()
    assert [f.path for f in reference.diff.files] == ["x"]
    assert dict(reference.base_texts) == {}


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"hello\n", "not a diff: diff line 1: not a unified diff"),
        (b"", "not a diff: it changes no file"),
        (b"diff --git a/x b/x\nbogus header\n", "not a diff: diff line 2: unexpected header line"),
    ],
)
def test_parse_reference_rejects_what_is_not_a_diff(data: bytes, problem: str) -> None:
    with pytest.raises(ReferencePatchError) as caught:
        parse_reference(data, "p")
    assert caught.value.problem.startswith(problem)


def test_apply_modifies_several_hunks() -> None:
    patch = (
        "--- a/f\n+++ b/f\n"
        "@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE 3\n line 4\n"
        "@@ -17,3 +17,4 @@\n line 17\n line 18\n+new\n line 19\n"
    )
    out = apply_file(BASE, _file(patch))
    assert out == BASE.replace("line 3\n", "LINE 3\n").replace("line 18\n", "line 18\nnew\n")


def test_a_hunk_may_move_the_nearest_match_wins_and_later_hunks_follow() -> None:
    moved = "extra\nextra\n" + BASE
    patch = (
        "--- a/f\n+++ b/f\n"
        "@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE 3\n line 4\n"
        "@@ -10,1 +10,1 @@\n-line 10\n+LINE 10\n"
    )
    out = apply_file(moved, _file(patch))
    assert out == moved.replace("line 3\n", "LINE 3\n").replace("line 10\n", "LINE 10\n")
    twice = "a\nb\na\n"
    assert apply_file(twice, _file("--- a/f\n+++ b/f\n@@ -3 +3 @@\n-a\n+c\n")) == "a\nb\nc\n"
    assert apply_file(twice, _file("--- a/f\n+++ b/f\n@@ -2 +2 @@\n-a\n+c\n")) == "c\nb\na\n"


def test_insertions_into_empty_ranges() -> None:
    assert apply_file("a\nb\n", _file("--- a/f\n+++ b/f\n@@ -1,0 +2 @@\n+x\n")) == "a\nx\nb\n"
    assert apply_file("a\n", _file("--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n")) == "x\na\n"


def test_added_and_deleted_files() -> None:
    added = _file(
        "diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+a\n+b\n"
    )
    assert apply_file("", added) == "a\nb\n"
    deleted = _file(
        "diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n"
    )
    assert apply_file("a\nb\n", deleted) == ""
    with pytest.raises(PatchApplyError) as caught:
        apply_file("a\nb\nc\n", deleted)
    assert caught.value.hunk == 0
    assert (
        str(caught.value) == "d does not apply to the base: it deletes the file but leaves some of its lines"
    )


def test_no_newline_at_end_of_file_is_honoured() -> None:
    marker = "\\ No newline at end of file\n"
    patch = f"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n{marker}+c\n{marker}"
    assert apply_file("a\nb", _file(patch)) == "a\nc"
    adds_newline = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n\\ No newline at end of file\n+b\n"
    assert apply_file("b", _file(adds_newline)) == "b\n"
    with pytest.raises(PatchApplyError) as caught:
        apply_file("a\nb\n", _file(patch))
    assert caught.value.reason == "line 2 differs only in its line end (a newline at the end of the file)"


def test_carriage_returns_are_content() -> None:
    patch = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n"
    assert apply_file("a\r\nb\r\n", _file(patch)) == "a\r\nc\r\n"
    assert apply_file("a\x0cz\nb\n", _file("--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+c\n")) == "a\x0cz\nc\n"


def test_a_hunk_that_does_not_apply_is_named() -> None:
    patch = "--- a/src/f.py\n+++ b/src/f.py\n@@ -1 +1 @@\n-a\n+b\n@@ -3,2 +3,2 @@\n c\n-zzz\n+y\n"
    with pytest.raises(PatchApplyError) as caught:
        apply_file("a\nx\nc\nd\n", _file(patch))
    error = caught.value
    assert (error.path, error.hunk, error.header) == ("src/f.py", 2, "@@ -3,2 +3,2 @@")
    assert error.reason == "line 4 is 'd' in the base, the patch expects 'zzz'"
    assert str(error) == (
        "hunk 2 (@@ -3,2 +3,2 @@) of src/f.py does not apply to the base: "
        "line 4 is 'd' in the base, the patch expects 'zzz'"
    )


def test_mismatch_reasons() -> None:
    past_end = "--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n c\n-d\n+e\n"
    with pytest.raises(PatchApplyError, match=r"it expects line 4, past the end of the file \(3 lines\)"):
        apply_file("a\nb\nc\n", _file(past_end))
    long_line = "x" * 80
    with pytest.raises(PatchApplyError, match=r"the patch expects 'x{57}\.\.\.'"):
        apply_file("a\n", _file(f"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-{long_line}\n+b\n"))
    overlapping = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -2 +2 @@\n-b\n+C\n"
    with pytest.raises(PatchApplyError, match=r"before hunk 1 ends \(line 2\): a file's hunks come in order"):
        apply_file("a\nb\n", _file(overlapping))


def test_no_newline_marker_before_any_line_is_ignored() -> None:
    patch = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n\\ No newline at end of file\n-a\n+b\n"
    assert apply_file("a\n", _file(patch)) == "b\n"


def test_what_can_be_measured_and_where_the_base_lives() -> None:
    diff = parse_diff(
        "diff --git a/old.py b/new.py\nsimilarity index 90%\nrename from old.py\nrename to new.py\n"
        "diff --git a/img.png b/img.png\nindex 1111111..2222222 100644\n"
        "Binary files a/img.png and b/img.png differ\n"
        "diff --git a/link b/link\nnew file mode 120000\nindex 0000000..3333333\n--- /dev/null\n+++ b/link\n"
        "@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n"
    )
    renamed, binary, link = diff.files
    assert base_path(renamed) == "old.py"
    assert base_path(link) == "link"
    assert [measurable(f) for f in diff.files] == [True, False, False]
    assert binary.binary

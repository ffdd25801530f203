from __future__ import annotations

import difflib

import pytest

from bot.engine.diff import (
    DiffParseError,
    FileDiff,
    FileStatus,
    LineKind,
    parse_diff,
)
from bot.local.git import Git
from tests.gitrepo import GitRepo

ODD_NAMES = [
    "with space.py",
    'with "quotes".py',
    "with\ttab.py",
    "back\\slash.py",
    "ünïcödé/名前.py",
    "new\nline.py",
    "x b/y.py",
    " leading space.py",
    "trailing space .py",
    '"fully quoted".py',
]


def _diff(repo: GitRepo, old: str, new: str) -> bytes:
    return Git(repo.root).diff(old, new)


def _by_path(files: tuple[FileDiff, ...]) -> dict[str, FileDiff]:
    return {f.path: f for f in files}


@pytest.mark.parametrize("name", ODD_NAMES)
def test_odd_names_added_modified_renamed_deleted(repo: GitRepo, name: str) -> None:
    base = repo.commit("empty")
    repo.write(name, "one\n")
    added = repo.commit("add")
    repo.write(name, "one\ntwo\n")
    modified = repo.commit("modify")
    repo.move(name, "moved/" + name)
    renamed = repo.commit("rename")
    repo.remove("moved/" + name)
    deleted = repo.commit("delete")

    (f,) = parse_diff(_diff(repo, base, added)).files
    assert (f.status, f.old_path, f.new_path, f.path) == (FileStatus.ADDED, None, name, name)
    assert f.new_mode == "100644" and f.old_mode is None
    assert [line.text for line in f.added_lines()] == ["one"]

    (f,) = parse_diff(_diff(repo, added, modified)).files
    assert (f.status, f.old_path, f.new_path) == (FileStatus.MODIFIED, name, name)
    assert (f.added, f.removed) == (1, 0)

    (f,) = parse_diff(_diff(repo, modified, renamed)).files
    assert (f.status, f.old_path, f.new_path) == (FileStatus.RENAMED, name, "moved/" + name)
    assert f.similarity == 100 and f.paths == (name, "moved/" + name)

    (f,) = parse_diff(_diff(repo, renamed, deleted)).files
    assert (f.status, f.old_path, f.new_path, f.path) == (
        FileStatus.DELETED,
        "moved/" + name,
        None,
        "moved/" + name,
    )
    assert f.removed == 2 and f.old_mode == "100644"


def test_modes_symlinks_binaries_and_empty_files(repo: GitRepo) -> None:
    repo.write("run.sh", "echo hi\n")
    repo.write("img.bin", b"\x00\x01\x02")
    base = repo.commit("base")
    repo.write("run.sh", "echo hi\n", mode=0o755)
    repo.write("img.bin", b"\x00\x01\x03")
    repo.symlink("link", "../../etc/passwd")
    repo.write("empty.txt", "")
    repo.write("no-eol.txt", "last")
    head = repo.commit("kinds")

    files = _by_path(parse_diff(_diff(repo, base, head)).files)
    run = files["run.sh"]
    assert run.mode_changed and (run.old_mode, run.new_mode) == ("100644", "100755")
    assert run.hunks == ()
    assert files["img.bin"].binary and files["img.bin"].status is FileStatus.MODIFIED
    link = files["link"]
    assert link.is_symlink and link.adds_symlink
    assert [line.text for line in link.added_lines()] == ["../../etc/passwd"]
    empty = files["empty.txt"]
    assert empty.status is FileStatus.ADDED and empty.hunks == () and not empty.binary
    assert [line.text for line in files["no-eol.txt"].added_lines()] == ["last"]
    assert not run.is_symlink and not run.is_submodule


def test_submodule(repo: GitRepo, tmp_path) -> None:
    inner = GitRepo.create(tmp_path / "inner")
    inner.write("a", "1\n")
    first = inner.commit("one")
    inner.write("a", "2\n")
    second = inner.commit("two")
    base = repo.commit("empty")
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{first},vendor/inner")
    repo.git("commit", "-q", "-m", "add submodule")
    added = repo.head()
    repo.git("update-index", "--cacheinfo", f"160000,{second},vendor/inner")
    repo.git("commit", "-q", "-m", "bump")
    bumped = repo.head()

    (f,) = parse_diff(_diff(repo, base, added)).files
    assert f.is_submodule and f.status is FileStatus.ADDED and f.new_mode == "160000"
    (f,) = parse_diff(_diff(repo, added, bumped)).files
    assert f.is_submodule and f.status is FileStatus.MODIFIED and not f.mode_changed
    assert [line.text for line in f.added_lines()] == [f"Subproject commit {second}"]


def test_copies_detected_with_find_copies(repo: GitRepo) -> None:
    repo.write("orig.py", "".join(f"line {i}\n" for i in range(20)))
    base = repo.commit("base")
    repo.write("copy.py", "".join(f"line {i}\n" for i in range(20)) + "extra\n")
    head = repo.commit("copy")
    data = repo.git_bytes("diff", "-C", "--find-copies-harder", "--full-index", base, head)
    (f,) = parse_diff(data).files
    assert (f.status, f.old_path, f.new_path) == (FileStatus.COPIED, "orig.py", "copy.py")
    assert f.added == 1 and f.similarity is not None


def test_line_numbers_follow_git(repo: GitRepo) -> None:
    repo.write("f.py", "".join(f"{i}\n" for i in range(1, 21)))
    base = repo.commit("base")
    lines = [f"{i}\n" for i in range(1, 21)]
    lines[2] = "three\n"
    del lines[15]
    repo.write("f.py", "".join(lines))
    head = repo.commit("edit")
    (f,) = parse_diff(_diff(repo, base, head)).files
    changed = [
        (line.kind, line.number) for h in f.hunks for line in h.lines if line.kind is not LineKind.CONTEXT
    ]
    assert changed == [(LineKind.REMOVED, 3), (LineKind.ADDED, 3), (LineKind.REMOVED, 16)]
    assert [h.old_start for h in f.hunks] == [1, 13]


def test_no_newline_marker_inside_a_hunk_and_blank_lines_after(repo: GitRepo) -> None:
    repo.write("f.txt", "a\nlast")
    base = repo.commit("base")
    repo.write("f.txt", "a\nlast\nmore\n")
    head = repo.commit("edit")
    data = _diff(repo, base, head)
    assert b"\\ No newline at end of file\n+last" in data
    for text in (data, data + b"\n\n"):
        (f,) = parse_diff(text).files
        kinds = [(line.kind.value, line.text, line.number) for line in f.hunks[0].lines]
        assert kinds == [(" ", "a", 1), ("-", "last", 2), ("+", "last", 2), ("+", "more", 3)]


@pytest.mark.parametrize(
    "hunk",
    [
        "@@ -1 +1 @@\n\\ No newline at end of file\n-a\n+b\n",
        "@@ -0,0 +0,0 @@\n\\ No newline at end of file\n",
    ],
)
def test_stray_no_newline_markers_do_not_crash(hunk: str) -> None:
    for header in ("diff --git a/x b/x\n--- a/x\n+++ b/x\n", "--- a/x\n+++ b/x\n"):
        (f,) = parse_diff(header + hunk).files
        assert not any(line.no_newline for h in f.hunks for line in h.lines)


def test_plain_diff_keeps_no_newline_facts() -> None:
    text = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"
    (f,) = parse_diff(text).files
    assert [(line.text, line.no_newline) for line in f.hunks[0].lines] == [("a", True), ("b", False)]


def test_crlf_formfeed_and_line_separators_are_content(repo: GitRepo) -> None:
    repo.write("f.txt", "a\r\nb\r\n")
    base = repo.commit("base")
    repo.write("f.txt", "a\r\nb\x0cc\u2028d\x1ce\r\n")
    head = repo.commit("edit")
    (f,) = parse_diff(_diff(repo, base, head)).files
    assert [line.text for line in f.added_lines()] == ["b\x0cc\u2028d\x1ce\r"]


def test_plain_unified_diff() -> None:
    text = "".join(difflib.unified_diff(["a\n", "b\n"], ["a\n", "c\n"], fromfile="a/x.py", tofile="b/x.py"))
    (f,) = parse_diff(text).files
    assert (f.status, f.path, f.added, f.removed) == (FileStatus.MODIFIED, "x.py", 1, 1)
    added = "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x\n"
    assert parse_diff(added).files[0].status is FileStatus.ADDED
    deleted = '--- "a/\\303\\274.py"\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n'
    (f,) = parse_diff(deleted).files
    assert (f.status, f.path) == (FileStatus.DELETED, "ü.py")
    (f,) = parse_diff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b").files
    assert [line.text for line in f.added_lines()] == ["b"]


def test_blank_lines_before_the_first_header_are_ignored() -> None:
    (f,) = parse_diff("\n\ndiff --git a/x b/x\nold mode 100644\nnew mode 100755\n").files
    assert f.mode_changed and f.path == "x"


def test_empty_input_is_an_empty_change() -> None:
    assert parse_diff(b"").files == ()
    assert parse_diff("\n\n").files == ()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("junk\ndiff --git a/x b/x\n", "text before the first 'diff --git' header"),
        ("diff --git a/x b/x\nwhat is this\n", "unexpected header line 'what is this'"),
        ("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n", "hunk 1 (@@ -1 +1 @@) of x ends early"),
        (
            "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\ntrailing\n",
            "line 7: unexpected text after hunk 1",
        ),
        ('diff --git "a/x\\q" "b/x"\nold mode 100644\nnew mode 100755\n', "unknown escape"),
        ("diff --git a/x b/y\nold mode 100644\nnew mode 100755\n", "cannot tell the file's path"),
        ("not a diff at all\n", "no '--- ' / '+++ ' file headers"),
        ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n", "line 4: hunk 1 (@@ -1 +1 @@) of x ends early"),
        ("--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n", "/dev/null on both sides"),
        ('--- "a/x\\q"\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n', "unknown escape"),
    ],
)
def test_malformed_diffs_name_the_problem(text: str, problem: str) -> None:
    with pytest.raises(DiffParseError) as err:
        parse_diff(text)
    assert problem in str(err.value)
    assert err.value.line >= 1


_DIGITS = "1" * 5000  # past the 4,300 digits Python reads as an integer at all


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (f"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -{_DIGITS} +1 @@\n-a\n+b\n", "line 4: hunk 1 of x"),
        (f"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,{_DIGITS} +1 @@\n-a\n+b\n", "line 4: hunk 1 of x"),
        (
            f"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n@@ -9 +{_DIGITS},1 @@\n-a\n+b\n",
            "line 7: hunk 2 of x",
        ),
        (f"--- a/x\n+++ b/x\n@@ -1 +1,{_DIGITS} @@\n-a\n+b\n", "line 3: hunk 1 of x"),
        ("--- a/x\n+++ b/x\n@@ -1 +1,0000000000000000001 @@\n-a\n", "line 3: hunk 1 of x"),
    ],
)
def test_a_hunk_header_number_of_too_many_digits_is_an_error_naming_the_hunk(text: str, problem: str) -> None:
    with pytest.raises(DiffParseError) as err:
        parse_diff(text)
    assert str(err.value).startswith(f"diff {problem}: its header states a number of ")
    assert str(err.value).endswith("digits, past any file (a line number or count has at most 18)")


def test_hunk_header_numbers_of_eighteen_digits_are_read() -> None:
    """The near miss: 18 digits are a number (the hunk then ends early, as any over-long count does)."""
    with pytest.raises(DiffParseError, match="of x ends early: 0 base and 999999999999999998 head"):
        parse_diff("--- a/x\n+++ b/x\n@@ -1 +1," + "9" * 18 + " @@\n-a\n+b\n")
    (f,) = parse_diff("--- a/x\n+++ b/x\n@@ -000000000000000001 +000000000000000001 @@\n-a\n+b\n").files
    assert f.hunks[0].old_start == 1


def test_binary_patch_payload_is_skipped() -> None:
    text = (
        "diff --git a/img.bin b/img.bin\nnew file mode 100644\n"
        "index 0000000000000000000000000000000000000000..bdc955b7b2e610ad5a72302b139a2e6cb325519a\n"
        "GIT binary patch\nliteral 2\nJcmZQ%0000200000\n\nliteral 0\nHcmV?d00001\n\n"
    )
    (f,) = parse_diff(text).files
    assert f.binary and f.status is FileStatus.ADDED and f.old_blob is None
    assert f.new_blob == "bdc955b7b2e610ad5a72302b139a2e6cb325519a"


def test_change_totals(repo: GitRepo) -> None:
    repo.write("a.py", "1\n2\n")
    repo.write("b.py", "x\n")
    base = repo.commit("base")
    repo.write("a.py", "1\n3\n4\n")
    repo.remove("b.py")
    head = repo.commit("head")
    diff = parse_diff(_diff(repo, base, head))
    assert (len(diff.files), diff.hunk_count, diff.added, diff.removed) == (2, 2, 2, 2)


@pytest.mark.parametrize(
    ("data", "binary"),
    [
        (b"", False),
        (b"text\n", False),
        (b"a\0b", True),
        (b"x" * 7999 + b"\0", True),
        (b"x" * 8000 + b"\0", False),
    ],
)
def test_looks_binary_is_gits_rule(data: bytes, binary: bool) -> None:
    from bot.engine.diff import looks_binary

    assert looks_binary(data) is binary

"""Properties of the diff parser: agreement with git's own counts, and no crash on any input."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.engine.diff import DiffParseError, parse_diff
from bot.local.git import Git
from tests.gitrepo import GitRepo

_NAME_CHARS = st.sampled_from(list("abcXYZ019 _-.\t\"\\'ü名\n"))
_NAMES = st.text(_NAME_CHARS, min_size=1, max_size=8).filter(
    lambda n: n.strip() not in ("", ".", "..") and not n.startswith("-")
)
_LINES = st.lists(st.sampled_from(["alpha", "beta", "gamma", "", "  x = 1", "x=1", "\x0c", "é"]), max_size=12)
_CONTENT = st.one_of(
    _LINES.map(lambda ls: "".join(f"{line}\n" for line in ls)),
    _LINES.map("\n".join),
    st.just(b"\x00\x01binary\x00"),
)


def _numstat(repo: GitRepo, base: str, head: str) -> dict[str, tuple[int, int] | None]:
    out = repo.git_bytes("diff", "--numstat", "-z", "-M", base, head)
    stats: dict[str, tuple[int, int] | None] = {}
    fields = iter(out.split(b"\0"))
    for field in fields:
        if not field:
            continue
        added, removed, path = field.split(b"\t", 2)
        if not path:  # a rename: the old and new paths follow as separate fields
            next(fields)
            path = next(fields)
        counts = None if added == b"-" else (int(added), int(removed))
        stats[path.decode("utf-8", "backslashreplace")] = counts
    return stats


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    base=st.dictionaries(_NAMES, _CONTENT, max_size=5),
    head=st.dictionaries(_NAMES, _CONTENT, max_size=5),
    moved=st.integers(min_value=0, max_value=2),
)
def test_counts_agree_with_git_numstat(
    base: dict[str, str | bytes], head: dict[str, str | bytes], moved: int
) -> None:
    """Per-file added/removed counts equal `git diff --numstat`, renames and odd names included."""
    with tempfile.TemporaryDirectory() as scratch:
        repo = GitRepo.create(Path(scratch) / "r")
        for name, content in base.items():
            repo.write(f"d/{name}", content)
        first = repo.commit("base")
        for name in base:
            (repo.root / "d" / name).unlink()
        for name, content in head.items():
            repo.write(f"d/{name}", content)
        for name in sorted(set(base) - set(head))[:moved]:
            repo.write(f"moved/{name}", base[name])
        second = repo.commit("head")

        diff = parse_diff(Git(repo.root).diff(first, second))
        expected = _numstat(repo, first, second)
        # numstat says "-" for binaries, even for a pure rename where git prints no "Binary files"
        # line and there is nothing to count.
        got = {
            f.path: None
            if f.binary or (expected.get(f.path) is None and f.similarity == 100 and not f.hunks)
            else (f.added, f.removed)
            for f in diff.files
        }
        assert got == expected


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    try:
        parse_diff(data)
    except DiffParseError as exc:
        assert exc.line >= 1


_DIFFISH = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "diff --git a/x b/x",
                'diff --git "a/\\303\\274" "b/\\303\\274"',
                "diff --git a/x y b/x y",
                "--- a/x",
                "+++ b/x",
                "--- /dev/null",
                "+++ /dev/null",
                "@@ -1 +1 @@",
                "@@ -0,0 +1,2 @@",
                "@@ -1,2 +1 @@ def f():",
                "new file mode 100644",
                "deleted file mode 100755",
                "old mode 100644",
                "new mode 100755",
                "rename from a",
                "rename to b",
                "similarity index 90%",
                "index 0000000..1111111 100644",
                "Binary files a/x and b/x differ",
                "GIT binary patch",
                "\\ No newline at end of file",
                "+added",
                "-removed",
                " context",
                "",
                "+",
                "-",
                "copy from q",
            ]
        ),
        st.text(max_size=20),
    ),
    max_size=30,
)


@settings(max_examples=800, deadline=None)
@given(_DIFFISH)
def test_diff_like_text_never_crashes(lines: list[str]) -> None:
    try:
        diff = parse_diff("\n".join(lines) + "\n")
    except DiffParseError as exc:
        assert exc.line >= 1
    else:
        for f in diff.files:
            assert f.path
            assert f.added >= 0 and f.removed >= 0


def _line_by_line(
    header: tuple[int, int, int, int], body: list[str]
) -> tuple[list[tuple[object, ...]], int] | int:
    """The hunk as a reading of one line at a time takes it, with the index after it, or the index of
    the line it rejects (the oracle of the parser, which takes runs of lines of one kind together)."""
    old_no, old_left, new_no, new_left = header
    out: list[list[object]] = []
    pos = 0
    while old_left or new_left:
        if pos >= len(body):
            return pos - 1  # ends early: the error names the hunk's last line
        line = body[pos]
        tag = line[:1]
        if tag == "\\":
            if out:
                out[-1][4] = True
        elif tag == "+" and new_left:
            out.append(["+", line[1:], None, new_no, False])
            new_no, new_left = new_no + 1, new_left - 1
        elif tag == "-" and old_left:
            out.append(["-", line[1:], old_no, None, False])
            old_no, old_left = old_no + 1, old_left - 1
        elif tag in ("", " ") and old_left and new_left:
            out.append([" ", line[1:], old_no, new_no, False])
            old_no, old_left, new_no, new_left = old_no + 1, old_left - 1, new_no + 1, new_left - 1
        else:
            return pos
        pos += 1
    while pos < len(body) and body[pos].startswith("\\"):
        if out:
            out[-1][4] = True
        pos += 1
    return [tuple(row) for row in out], pos


_HUNK_LINES = st.lists(
    st.sampled_from(["+a", "+", "-b", "-", " c", " ", "", "\\ No newline at end of file", "+d e"]),
    max_size=14,
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(_HUNK_LINES, st.integers(0, 8), st.integers(0, 8))
@example(["", "+a", " c", "\\ No newline at end of file"], 2, 3)
def test_a_hunk_is_read_as_one_line_at_a_time_would_read_it(
    body: list[str], old_len: int, new_len: int
) -> None:
    """Runs of added, removed and context lines taken together, cut where the header's counts end,
    empty lines read as empty context, markers anywhere: the same lines, numbers and errors."""
    text = f"--- a/x\n+++ b/x\n@@ -3,{old_len} +5,{new_len} @@\n" + "".join(f"{line}\n" for line in body)
    expected = _line_by_line((3, old_len, 5, new_len), body)
    if not isinstance(expected, int) and expected[1] < len(body):
        return  # lines after the hunk: what may follow one is tested elsewhere
    try:
        (hunk,) = parse_diff(text).files[0].hunks
    except DiffParseError as error:
        assert isinstance(expected, int)
        assert error.line == expected + 4
        return
    assert not isinstance(expected, int)
    assert [(k.value, t, o, n, e) for k, t, o, n, e in hunk.lines] == expected[0]

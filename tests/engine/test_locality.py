from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.engine.change import change_from_diff
from bot.engine.diff import DiffLine, FileDiff, LineKind, parse_diff
from bot.engine.groups import MANIFEST_PATH
from bot.engine.lexing import LineTokens, _split_comments, lexicon_for, tokenize_line, tokenize_lines
from bot.engine.locality import _measured, evaluate_locality, measure_block, measure_file
from bot.engine.manifest import parse_manifest
from bot.engine.sourcetext import split_line
from bot.local.git import Git
from tests.gitrepo import GitRepo, check, rules


def _lines(kind: LineKind, texts: list[str]) -> list[DiffLine]:
    return [
        DiffLine(
            kind, t, i + 1 if kind is LineKind.REMOVED else None, i + 1 if kind is LineKind.ADDED else None
        )
        for i, t in enumerate(texts)
    ]


def _block(old: list[str], new: list[str], path: str = "f.py") -> tuple[int, int, int | None]:
    m = measure_block(_lines(LineKind.REMOVED, old), _lines(LineKind.ADDED, new), lexicon_for(path))
    return m.logical, m.formatting, m.first_formatting_line


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (["    return a - b"], ["    return a + b"], (1, 0, None)),
        (["x = compute(a,b)"], ["x = compute(a, b)"], (0, 1, 1)),
        (["x = 'hello'"], ['x = "hello"'], (0, 1, 1)),
        (["x = 'it\\'s'"], ['x = "it\'s"'], (1, 0, None)),
        (["x = 1  # old note"], ["x = 1  # new note"], (0, 0, None)),
        (["# old comment"], ["# new comment"], (0, 0, None)),
        ([], [""], (0, 1, 1)),
        (["", ""], [], (0, 2, 1)),
        (["result = f(a, b, c)"], ["result = f(", "    a,", "    b,", "    c", ")"], (0, 5, 1)),
        (["a = 1", "b = 2"], ["b = 2", "a = 1"], (0, 2, 1)),
        (["a = 1", "b = 2"], ["b = 2", "a = 10"], (1, 1, 1)),
        ([], ["def helper(x):", "    # explain", "", "    return x * 2"], (2, 0, None)),
        (["old()"], [], (1, 0, None)),
        (["x = 1 # c1", "y = 2"], ["y = 2", "x = 1 # c2"], (0, 1, 1)),
        (["a = 1  # x", "b = 2"], ["a = 1  # y", "b = 2"], (0, 0, None)),
        ([""], ["x = 1"], (1, 0, None)),
        (["# note"], ["x = 1"], (1, 0, None)),
        ([], ["# only a comment", ""], (0, 0, None)),
        (["# gone", "  "], [], (0, 0, None)),
        ([], ["x = 1\r# a comment after a lone CR", "# c"], (1, 0, None)),
        ([], ["", "\r "], (0, 3, 1)),
    ],
)
def test_logical_and_formatting_lines(
    old: list[str], new: list[str], expected: tuple[int, int, int | None]
) -> None:
    assert _block(old, new) == expected


def _peak(work: Callable[[], object]) -> int:
    """Bytes Python allocated at the peak of `work`, above what was allocated before it."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        work()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("quote", ["'", '"', "`"])
@pytest.mark.parametrize("body", ["abcd efgh ", "\\'x"])
def test_a_long_string_is_lexed_in_memory_proportional_to_it(quote: str, body: str) -> None:
    """Python's engine kept a place to backtrack to for each character of a string (about 115 bytes
    each: a one-line 32 MB file took 3.9 GB to measure); the string's pattern is possessive now."""
    line = f"k = {quote}" + body * 100_000 + quote
    tokens = tokenize_line(line, lexicon_for("conf.js"))
    assert len(tokens.code) == 3
    assert _peak(lambda: tokenize_line(line, lexicon_for("conf.js"))) < 4 * len(line)


def test_lines_only_added_are_measured_a_line_at_a_time() -> None:
    """A new file of 100,000 lines is counted as it is read, not held as every line's tokens (25
    times its size before)."""
    lines = [f"v{i} = foo(a, b{i % 13}) + bar[c] * 3" for i in range(100_000)]
    numbers = list(range(1, len(lines) + 1))
    removed = _lines(LineKind.REMOVED, lines)
    assert measure_block(removed, [], lexicon_for("big.txt")).logical == 100_000
    assert _peak(lambda: _measured([], lines, numbers, 1, lexicon_for("big.txt"))) < 2 * sum(map(len, lines))


def test_javascript_block_comments_and_quotes() -> None:
    assert _block(["/* a */ x = 'a';"], ['/* b */ x = "a";'], "f.ts") == (0, 0, None)
    assert _block([" * old docs"], [" * new docs"], "f.js") == (0, 0, None)
    assert _block(["let s = `a`"], ["let s = `b`"], "f.js") == (1, 0, None)


def test_lexicons_by_name_and_extension() -> None:
    assert lexicon_for("src/a.py").name == "python"
    assert lexicon_for("Makefile").name == "hash"
    assert lexicon_for("Dockerfile").name == "hash"
    assert lexicon_for("x/Jenkinsfile").name == "c-like"
    assert lexicon_for("q.SQL").name == "dash"
    assert lexicon_for("a.ini").name == "semicolon"
    assert lexicon_for("p.tex").name == "percent"
    assert lexicon_for("notes.txt").name == "plain"
    assert lexicon_for("main.go").name == "c-like"


def test_tokens() -> None:
    py = lexicon_for("a.py")
    t = tokenize_line("x = '# not a comment'  # real one", py)
    assert t.code == ("x", "=", '"# not a comment"') and t.comment == ("#", "real", "one")
    assert tokenize_line("   ", py) == LineTokens((), ())
    assert tokenize_line("# only", py) == LineTokens((), ("#", "only"))
    assert tokenize_line("s = 'unterminated", py).code == ("s", "=", "'unterminated")
    assert tokenize_line("s = 'a\\'b'", py).code == ("s", "=", "'a\\'b'")
    plain = lexicon_for("notes.txt")
    assert tokenize_line("# not special here", plain).code == ("#", "not", "special", "here")
    assert tokenize_line("x ** 2", lexicon_for("a.js")).code == ("x", "*", "*", "2")
    assert tokenize_line("** bold", lexicon_for("a.js")).code == ("*", "*", "bold")


_EVERY_LEXICON = [lexicon_for(p) for p in ("a.py", "a.js", "a.c", "a.sh", "a.sql", "a.ini", "a.tex", "a.txt")]
_LINE_PIECES = [
    "x",
    " ",
    "=",
    "#",
    "//",
    "/*",
    "*/",
    "--",
    ";",
    "%",
    "'",
    '"',
    "`",
    "\\",
    "a b",
    "*",
    "é",
    "\t",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_LINE_PIECES), max_size=12), st.sampled_from(_EVERY_LEXICON))
@example(["x", "/*", "a b", "*/", "x", "//", "y"], lexicon_for("a.js"))
@example(["'", "#", "'", "x", "#", "y"], lexicon_for("a.py"))
def test_line_reading_shortcuts_agree_with_reading_every_token(pieces: list[str], lexicon) -> None:  # type: ignore[no-untyped-def]
    """The shortcuts (no quotes or comments; a line comment ends the line) give what the general
    reading of every token gives, in every language."""
    text = "".join(pieces)
    stripped = text.lstrip()
    if lexicon.block_comments and stripped.startswith("*") and not stripped.startswith("**"):
        return  # a block comment's continuation line: read apart, by design
    assert tokenize_line(text, lexicon) == _split_comments(lexicon.pattern.findall(text), lexicon)


def _git_change(repo: GitRepo, base: str, head: str):  # type: ignore[no-untyped-def]
    return change_from_diff(Git(repo.root).diff(base, head))


def test_measure_file_on_real_hunks(repo: GitRepo) -> None:
    body = "".join(f"def f{i}(a, b):\n    return a - b\n\n\n" for i in range(10))
    repo.write("calc.py", body)
    base = repo.commit("base")
    edited = body.replace("def f1(a, b)", "def f1(a,b)").replace("def f8(a, b)", "def f8(a,b)")
    repo.write(
        "calc.py", edited.replace("def f2(a, b):\n    return a - b", "def f2(a, b):\n    return a + b")
    )
    head = repo.commit("edit")
    (f,) = _git_change(repo, base, head).diff.files
    m = measure_file(f)
    assert (m.hunks, m.logical_lines, m.formatting_lines, m.first_formatting_line) == (2, 1, 2, 5)


BUDGET_POLICY = """version: 1
budgets:
  files: 2
  hunks: 3
  logical_lines: 4
  per_path: [{paths: ["src/core/**"], logical_lines: 1, files: 5}]
locality: {reformat: forbid}
"""


def test_budgets_and_reformat_on_a_real_change(repo: GitRepo) -> None:
    repo.write(MANIFEST_PATH, BUDGET_POLICY)
    repo.write("src/core/a.py", "def a():\n    return 1\n")
    repo.write("src/b.py", "x = 1\n")
    repo.write("src/c.py", "y = {'k': 1}\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("src/core/a.py", "def a():\n    return 2\n\n\ndef extra():\n    return 3\n")
    repo.write("src/b.py", "x = 2\n")
    repo.write("src/c.py", 'y = {"k": 1}\n')
    repo.commit("pr")
    receipt = check(repo)
    assert rules(receipt) == [  # a budget is about the change, not one of its files
        ("budget", None),
        ("budget", None),
        ("reformat", "src/c.py"),
    ]
    by_name = {b.name: (b.used, b.limit, b.paths) for b in receipt.locality.budgets}
    assert by_name == {
        "files": (3, 2, None),
        "hunks": (3, 3, None),
        "logical_lines": (4, 4, None),
        "per_path[0].files": (1, 5, ("src/core/**",)),
        "per_path[0].logical_lines": (3, 1, ("src/core/**",)),
    }
    files, per_path, reformat = receipt.locality_violations
    assert files.message.startswith("The change uses 3 files; the budget is 2.")
    assert files.id == "budgets.files" and "budgets.files in .github/receipt.yml" in files.message
    assert per_path.message.startswith("The change uses 3 logical lines for src/core/**; the budget is 1.")
    assert reformat.line == 1 and "locality.reformat: allow" in reformat.message
    assert receipt.change.logical_lines == 4


def test_no_budgets_means_nothing_to_exceed(repo: GitRepo) -> None:
    change_lines = "".join(f"line{i} = {i}\n" for i in range(500))
    repo.commit("base")
    repo.write("big.py", change_lines)
    head = repo.commit("big")
    result = evaluate_locality(_git_change(repo, "HEAD~1", head).diff, parse_manifest("version: 1\n"))
    assert result.budgets == () and result.violations == () and result.logical_lines == 500


_LINE_CHARS = st.sampled_from(["a", "1", " ", "\t", "'", '"', "`", "#", "//", "/*", "*/", "*", "--", ";", "%",
                               "\\", "(", "\r", "\u2028", "\u2029", "é", "\x0c"])  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_LINE_CHARS, max_size=14).map("".join),
    st.sampled_from(["m.py", "m.js", "m.c", "m.sh", "m.sql", "m.txt"]),
)
@example("x = 1\r# y", "m.py")
@example("x = 1\u2028// y", "m.js")
def test_a_line_without_other_breaks_is_tokenized_as_the_language_reads_it(text: str, path: str) -> None:
    """Differential: the one-line shortcut against reading the line as `split_line` cuts it."""
    lexicon = lexicon_for(path)
    assert tokenize_lines(text, lexicon) == [
        tokenize_line(p, lexicon) for p in split_line(text, lexicon.name)
    ]


def _measured_by_lines(file: FileDiff) -> tuple[int, int, int | None]:
    """`measure_file` as it read blocks off the hunks' DiffLines."""
    logical = formatting = 0
    first: int | None = None
    for hunk in file.hunks:
        blocks: list[tuple[list[DiffLine], list[DiffLine]]] = [([], [])]
        for line in hunk.lines:
            if line.kind is LineKind.CONTEXT:
                blocks.append(([], []))
            else:
                blocks[-1][line.kind is LineKind.ADDED].append(line)
        for removed, added in blocks:
            if removed or added:
                block = measure_block(removed, added, lexicon_for(file.path))
                logical += block.logical
                formatting += block.formatting
                first = block.first_formatting_line if first is None else first
    return logical, formatting, first


_TEXTS = st.sampled_from(["x = 1", "x  =  1", "x = 2", "# note", "", "y = 'a'", 'y = "a"', "f(x)  # c"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(" -+"), _TEXTS), min_size=1, max_size=30), st.integers(1, 50))
def test_blocks_read_off_the_runs_measure_as_the_diff_lines_did(
    rows: list[tuple[str, str]], start: int
) -> None:
    """Differential: `measure_file` on the hunk's runs against the blocks built from its DiffLines."""
    old_len = sum(tag != "+" for tag, _ in rows)
    new_len = sum(tag != "-" for tag, _ in rows)
    body = "".join(f"{tag}{text}\n" for tag, text in rows)
    raw = f"diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n@@ -{start},{old_len} +{start + 3},{new_len} @@\n{body}"
    file = parse_diff(raw).files[0]
    measure = measure_file(file)
    assert (
        measure.logical_lines,
        measure.formatting_lines,
        measure.first_formatting_line,
    ) == _measured_by_lines(file)

"""Python read a top-level statement at a time gives exactly the tokens of the whole text, and reads
what two versions share once."""

from __future__ import annotations

import itertools
import random
import re
import sysconfig
import warnings
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.engine import excess, pychunks, tokens
from bot.engine.complexity import function_complexities
from bot.engine.excess import _Measure
from bot.engine.pychunks import statement_chunks
from bot.engine.pyscan import QUOTED
from bot.engine.references.changes import Proofs
from bot.engine.tokens import Tokenizer, python_normalized, python_raw

_MODULE = '''\
"""Doc."""
import os  # why
from x import (
    a,
    b,
)

@decorator(
    1)
@other
def f(x):
    if x:
        return 1
    return """
not a cut
"""
# a comment at column 0, then a statement
class C:
    pass
if os:
    y = 1
elif a:
    y = 2
else:
    y = 3
try:
    pass
except OSError:
    pass
finally:
    pass
"a string statement, not a docstring"
z = 1 + \\
2
'''


def test_cuts_fall_before_each_top_level_statement_only() -> None:
    pieces = statement_chunks(_MODULE)
    assert "".join(pieces) == _MODULE
    assert [p.split("\n", 1)[0] for p in pieces] == [
        '"""Doc."""',
        "import os  # why",
        "from x import (",
        "@decorator(",
        "class C:",
        "if os:",
        "try:",
        '"a string statement, not a docstring"',
        "z = 1 + \\",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "x = 1\ry = 2\n",  # CPython takes a lone carriage return for a line break; the patterns do not
        "from __future__ import barry_as_FLUFL\nx = 1 <> 2\n",
        "x = 'never closed\ny = 2\n",
        "x = 1)\ny = 2\n",
        "x = 1 \\ 2\ny = 2\n",  # a backslash that continues no line
    ],
)
def test_text_that_cannot_be_cut_for_certain_stays_whole(text: str) -> None:
    assert statement_chunks(text) == [text]


def test_the_text_after_the_last_line_break_is_scanned_once() -> None:
    """The cutting pattern used to match a last line holding none of the characters it looks for,
    and give up, from each of its positions in turn: 40,000 characters took 4.6 s (quadratic). A
    hang here is the failure; bench/receipt_check.py measures the time."""
    text = "x = 1\ny = " + "a" * 100_000
    assert statement_chunks(text) == ["x = 1\n", "y = " + "a" * 100_000]


# The cut as it was read before its patterns took whole lines and bracketed groups at once: one
# match per line break, bracket, comment, string or continuation, each judged here.
_ONE_AT_A_TIME = re.compile(
    r"[^\n#'\"()\[\]{}\\]*+(?:(\n)|(#[^\n]*)|((?:"
    + "|".join(QUOTED)
    + r"))|([(\[{])|([)\]}])|(\\\n)|(.)|\Z)",
    re.DOTALL,
)
_CONTINUES = re.compile(r"(?:else|elif|except|finally)\b|[ \t\f\n#]")


def _cut_one_at_a_time(text: str) -> list[str]:
    if "\r" in text or "barry_as_FLUFL" in text:
        return [text]
    cuts: list[int] = []
    depth = 0
    decorated = False
    for match in _ONE_AT_A_TIME.finditer(text):
        newline, _comment, _string, opening, closing, _continued, stray = match.groups()
        depth += (opening is not None) - (closing is not None)
        if stray is not None or depth < 0:
            return [text]
        if newline is not None and depth == 0:
            start = match.end()
            if start == len(text) or _CONTINUES.match(text, start):
                continue
            if not decorated:
                cuts.append(start)
            decorated = text[start] == "@"
    edges = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges) if b > a]


_PARTS = [*"()[]{}\n\t #'\"\\@b", "'''", '"""', "else", "x = "]


@given(st.lists(st.sampled_from(_PARTS), max_size=40).map("".join))
def test_the_cut_is_the_one_read_a_thing_at_a_time(text: str) -> None:
    assert statement_chunks(text) == _cut_one_at_a_time(text)


def test_the_cut_is_the_one_read_a_thing_at_a_time_on_the_standard_library() -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for file in sorted(stdlib.glob("*.py"))[::2] + sorted(stdlib.glob("*/*.py"))[::6]:
        text = file.read_text(encoding="utf-8", errors="replace")
        assert statement_chunks(text) == _cut_one_at_a_time(text), file


def test_groups_that_never_close_are_read_in_linear_time() -> None:
    """A bracket that does not close is counted alone, its group tried once per enclosing bracket."""
    text = "x = 1\n" + "(a\n" * 100_000
    assert statement_chunks(text) == ["x = 1\n", "(a\n" * 100_000]


def _agrees(source: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = (python_normalized(source), python_raw(source))
    tokenizer = Tokenizer()
    assert (tokenizer._normalized(source), tokenizer._read_written(source)) == want


@pytest.mark.parametrize(
    "source",
    [
        _MODULE,
        "# a comment first\n\n'''so this is the docstring'''\nx = 1\n",
        "x = 1\n'later string'\ny = 2\n",
        "def f():\n    return 1\n\ndef g(:\n    pass\n",  # one piece does not parse: the whole decides
        "def f():\n    return 1\n\ndef g():\n    return 1 $ 2\n",  # one piece does not tokenize
        "x = 1\ny = " + "+".join(["1"] * 1000) + "\n",  # one piece too deep to unparse
        "x = 1\n\n\n# only a comment after\n\n",
        "x = 1\n" * 5,
        "",
    ],
)
def test_pieces_read_as_the_whole_text_reads(source: str) -> None:
    _agrees(source)


def test_pieces_read_as_the_whole_text_reads_on_the_standard_library() -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    sample = sorted(stdlib.glob("*.py"))[::4] + sorted(stdlib.glob("*/*.py"))[::12]
    for file in sample:
        _agrees(file.read_text(encoding="utf-8", errors="replace"))


def test_statements_two_versions_share_are_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []  # parsed, or compiled where the tokens are read as written
    for name in ("parse_python", "compiled"):
        real = getattr(tokens, name)

        def counting(text: str, real=real):  # type: ignore[no-untyped-def]
            parsed.append(text)
            return real(text)

        monkeypatch.setattr(tokens, name, counting)
    functions = [f"def f{i}(x):\n    return x + {i}\n" for i in range(3)]
    before = "".join(functions)
    after = functions[0] + "def f1(x):\n    return x - 1\n" + functions[2]
    tokenizer = Tokenizer()
    pair = tokenizer.pair("a.py", before, after)
    assert pair.mode is tokens.TokenMode.NORMALIZED
    assert sorted(parsed) == sorted([*functions, "def f1(x):\n    return x - 1\n"])


@pytest.mark.parametrize(
    "source",
    [
        _MODULE,
        "def f(x):\n    return 1\n\nclass f:\n    def f(self):\n        if x:\n            pass\n",
        "def f():\n    return 1\n\ndef g(:\n    pass\n",  # one piece does not parse: the whole decides
        "x = 1\n",
    ],
)
def test_complexities_read_a_piece_at_a_time_equal_the_whole_texts(source: str) -> None:
    assert _Measure().complexities(source) == function_complexities(source)


def test_complexities_read_a_piece_at_a_time_on_the_standard_library() -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for file in sorted(stdlib.glob("*.py"))[1::8]:
        source = file.read_text(encoding="utf-8", errors="replace")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert _Measure().complexities(source) == function_complexities(source), file.name


class _EveryUnit(_Measure):
    """Reads every unit of both texts, as complexity was read before shared statements were left out."""

    def complexity_pair(self, before: str, after: str):  # type: ignore[no-untyped-def]
        old, new = self.complexities(before), self.complexities(after)
        if old is None or new is None:
            return None
        return {f.name: f.complexity for f in old}, {f.name: f.complexity for f in new}


def _same_complexity(before: str, after: str) -> excess._Complexity:
    version = excess._Version("a.py", before, after)
    found = excess._complexity(_Measure(), version)
    assert found == excess._complexity(_EveryUnit(), version)
    # With trees read before (references' proof parses the statements the versions do not share,
    # evaluation.py), those statements' units are read off their trees, not compiled: alike.
    proven = _Measure()
    Proofs().read("a.py", before, after, proven.tokenizer)
    assert found == excess._complexity(proven, version)
    every = _Measure()
    for text in (before, after):
        for piece in every.tokenizer.pieces(text):
            every.tokenizer.tree(piece)
    assert found == excess._complexity(every, version)
    return found


def _recorded(monkeypatch: pytest.MonkeyPatch, name: str) -> list[str]:
    """The texts `tokens.<name>` (`parse_python`, `compiled`) is called with from now on."""
    texts: list[str] = []
    real = getattr(tokens, name)

    def counting(text: str):  # type: ignore[no-untyped-def]
        texts.append(text)
        return real(text)

    monkeypatch.setattr(tokens, name, counting)
    return texts


def test_statements_both_versions_share_are_not_parsed_for_complexity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed = _recorded(monkeypatch, "parse_python")
    kept = "class C:\n    def f(self):\n        if x:\n            pass\n"
    before = kept + "def g():\n    return 1\n"
    after = kept + "def g():\n    if x:\n        return 1\n"
    found = excess._complexity(_Measure(), excess._Version("a.py", before, after))
    assert kept not in parsed
    assert found == _same_complexity(before, after)
    assert found == excess._Complexity(1, (excess.ComplexityChange("a.py", "g", 1),))


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # two units named alike: their labels (`f`, `f (2)`) pair across statements both share
        (
            "def f():\n    if a:\n        pass\n\ndef f():\n    pass\n\nx = 1\n",
            "def f():\n    pass\n\ndef f():\n    if a:\n        pass\n\nx = 2\n",
        ),
        # a name defined in a shared statement and again in a changed one
        (
            "def f():\n    if a:\n        pass\n\ng = 1\n",
            "def f():\n    if a:\n        pass\n\ndef f():\n    pass\n",
        ),
        # methods of the same name in two classes are distinct units
        (
            "class A:\n    def f(self):\n        if a:\n            pass\n\nclass B:\n    def f(self):\n        pass\n",
            "class A:\n    def f(self):\n        if a:\n            pass\n\nclass B:\n    def f(self):\n        if b:\n            pass\n",
        ),
        # a shared statement read by its tree (a docstring), and one that does not parse alone
        ('def f():\n    """doc"""\n\nx = 1\n', 'def f():\n    """doc"""\n\nx = 2\n'),
        ("def f():\n    return 1\n\nreturn 2\n", "def f():\n    if a:\n        return 1\n\nreturn 2\n"),
        ("x = 1\n\ndef g(:\n    pass\n", "x = 2\n\ndef g(:\n    pass\n"),
        ("def f():\n    pass\n\ndef g(:\n    pass\n", "def f():\n    pass\n\ndef g(:\n    return\n"),
        ("x = 1\n", "x = 1\n"),
        # a changed function without a decision left (complexity 0, read from its code)
        ("def f():\n    if a:\n        pass\n\nx = 1\n", "def f():\n    pass\n\nx = 1\n"),
        ("def f():\n    if a:\n        pass\n", "def f():\n    pass\n"),
    ],
)
def test_leaving_out_shared_statements_changes_no_complexity(before: str, after: str) -> None:
    _same_complexity(before, after)


def test_duplicate_names_are_paired_as_labels() -> None:
    before = "def f():\n    if a:\n        pass\n\ndef f():\n    pass\n\nx = 1\n"
    after = "def f():\n    pass\n\ndef f():\n    if a:\n        pass\n\nx = 2\n"
    assert _same_complexity(before, after).changes == (
        excess.ComplexityChange("a.py", "f", -1),
        excess.ComplexityChange("a.py", "f (2)", 1),
    )


def test_leaving_out_shared_statements_on_edited_standard_library_modules() -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    rng = random.Random(19)
    for file in sorted(stdlib.glob("*.py"))[::9]:
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        edited = list(lines)
        for _ in range(3):
            at = rng.randrange(len(edited) + 1)
            edited[at:at] = [rng.choice(lines)] if rng.random() < 0.5 else []
            del edited[rng.randrange(len(edited))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _same_complexity("".join(lines), "".join(edited))


def test_a_shared_statement_whose_tree_was_read_but_does_not_compile() -> None:
    tokenizer = Tokenizer()
    assert tokenizer.tree("return 1\n") is not None
    assert tokenizer.shallow_code("return 1\n") is None
    assert tokenizer.shallow_code("def f():\n    return 1\n") is not None


def test_other_pythons_read_every_text_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """From 3.12 an f-string may hold its own quotes and line breaks (PEP 701), which the cutting
    patterns do not follow: there the text is never cut."""
    assert len(statement_chunks(_MODULE)) > 1
    monkeypatch.setattr(pychunks, "CUT", False)
    assert statement_chunks(_MODULE) == [_MODULE]


def test_a_statement_parsed_before_is_not_compiled_for_its_complexity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compiled = _recorded(monkeypatch, "compiled")
    shared = "def f():\n    return 1\n"
    before, after = shared + "def g():\n    return 1\n", shared + "def g():\n    return 2\n"
    measure = _Measure()
    measure.tokenizer.tree("def g():\n    return 1\n")
    measure.tokenizer.tree("def g():\n    return 2\n")
    found = excess._complexity(measure, excess._Version("a.py", before, after))
    assert compiled == [shared]  # the statement both share, whose tree nobody read
    assert found == _same_complexity(before, after)

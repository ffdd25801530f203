"""The one-pass token readers agree with stdlib tokenize, on real code and on the edge cases."""

from __future__ import annotations

import ast
import io
import itertools
import re
import sysconfig
import tokenize
import warnings
from pathlib import Path
from token import EXACT_TOKEN_TYPES

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.engine.pyscan import _DECIMAL, _LONE, OPERATORS, _plain, indent_width, raw_pieces, unparsed_tokens
from bot.engine.tokens import Written, _significant_python, _stdlib_raw
from tests.excess import corpus

_STDLIB = Path(sysconfig.get_paths()["stdlib"])
# A fixed, spread-out sample of the standard library: every module would take a minute.
_SAMPLE = sorted(_STDLIB.glob("*.py"))[::3] + sorted(_STDLIB.glob("*/*.py"))[::10]


def _fast_raw(source: str) -> Written | None:
    found = raw_pieces(source)
    return None if found is None else Written(found[1], found[0])


def _sources() -> list[tuple[str, str]]:
    out = [(f.name, f.read_text(encoding="utf-8", errors="replace")) for f in _SAMPLE]
    for task in corpus.load_tasks():
        out += [(f"{task.task_id} C", task.buggy), (f"{task.task_id} G", task.gold)]
    return out


def test_readers_agree_with_tokenize_on_real_code() -> None:
    checked = 0
    for name, source in _sources():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                unparsed = ast.unparse(ast.parse(source))
            except (SyntaxError, ValueError, RecursionError):
                continue
        fast = unparsed_tokens(unparsed)
        assert fast is None or fast == _significant_python(unparsed), name
        raw = _fast_raw(source)
        assert raw is None or raw == _stdlib_raw(source), name
        checked += fast is not None and raw is not None
    assert checked > 800


@pytest.mark.parametrize(
    "source",
    [
        "x = b'a' + rb\"b\" + f'{x!r}' + '''multi\nline''' + .5 + 1e-05 + 2j\n",
        "def f(a, *, b=...):\n    return a ** -b // 2 @ m\n",
        "if a:\n\n    pass\nelse:\n    x = [1,\n         2]\n",
        "class C:\n    '''doc\n    more'''\n    x = 1",
        "x = 1\r\ny = 2\r\n",
        "x = 1 + \\\n    2\n",
        "if x:\n\ty = 1\n",
        "if x:\n  \t y = 1\n",
        "\x0cx = 1\n",
        "x = (1, # comment\n     2)\n",
        "x = 1)\n",
    ],
)
def test_readers_agree_on_edge_cases(source: str) -> None:
    assert _fast_raw(source) == _stdlib_raw(source)
    try:
        unparsed = ast.unparse(ast.parse(source))
    except SyntaxError:
        return
    assert unparsed_tokens(unparsed) == _significant_python(unparsed)


@pytest.mark.parametrize(
    "source",
    [
        "x = (\n",
        "if x:\n        y = 1\n    z = 2\n",
        "℘ = 1\n",
        "s = 'unterminated\n",
        "s = '''unterminated\n",
        "x = 1 \\\n",  # the text ends in a continuation: tokenize raises
        "x = 1 \\\n   ",
        "\\\n\n",  # the line after a continuation: tokenize reads no line start there
        ")\r\n(",  # below zero at a line break: tokenize ends a logical line there
    ],
)
def test_raw_reader_gives_up_where_tokenize_does_or_is_unsure(source: str) -> None:
    assert raw_pieces(source) is None


@pytest.mark.parametrize(
    ("blanks", "column"),
    [("", 0), ("    ", 4), ("\t", 8), ("  \t ", 9), ("        \t", 16), ("\t\x0c  ", 2), ("  \x0c", 0)],
)
def test_indentation_is_measured_as_tokenize_measures_it(blanks: str, column: int) -> None:
    assert indent_width(blanks) == column
    tokens = list(tokenize.generate_tokens(io.StringIO(f"if x:\n{blanks}y = 1\n").readline))
    indented = next(t for t in tokens if t.string == "y")
    assert indented.start[1] == len(blanks)  # tokenize's column is the offset; its INDENT tells the width
    assert (column > 0) == any(t.type == tokenize.INDENT for t in tokens)


def test_unparsed_reader_gives_up_on_unexpected_characters() -> None:
    assert unparsed_tokens("℘ = 1") is None
    assert unparsed_tokens("x = 1\n\n") == ("x", "=", "1", "\n")
    assert unparsed_tokens("") == ()


def test_the_blanks_that_end_a_text_are_read_once() -> None:
    """Each reader's pattern used to match the text's final blanks and give up, from each of their
    positions in turn: 30,000 of them took 12 s (quadratic), a 2 MiB file hours. A hang here is the
    failure; bench/receipt_check.py measures the time."""
    text = "x = 1" + " " * 100_000
    assert raw_pieces(text) == (("", " ", " ", " " * 100_000), ("x", "=", "1", ""))
    assert unparsed_tokens(text) == ("x", "=", "1", "")


_PARTS = [*"()[]:=\n\t #'\"\\\r\x0c", "\\\n", "\r\n", "'''", "x", "if", "1", "\n    ", "# c  "]


@given(st.lists(st.sampled_from(_PARTS), max_size=30).map("".join))
def test_the_raw_reader_agrees_with_tokenize_or_gives_up(source: str) -> None:
    raw = _fast_raw(source)
    assert raw is None or raw == _stdlib_raw(source)


def test_three_quotes_that_never_close_are_no_empty_string() -> None:
    assert raw_pieces("''''") is None  # tokenize: EOF in multi-line string
    assert raw_pieces("x = ''\n") == (("", " ", " ", "", ""), ("x", "=", "''", "\n", ""))


def _whole_match(pattern: str, text: str) -> str | None:
    found = re.match(pattern, text)
    return None if found is None else found.group()


_OPERATOR_CHARS = [*sorted({c for op in EXACT_TOKEN_TYPES for c in op}), "a", " "]


def test_operators_are_matched_as_tokenize_matches_them() -> None:
    """Every text of up to three characters the operators are made of: the same operator, the
    longest, as `tokenize.Special`'s sorted alternatives give."""
    special = _plain(tokenize.Special)
    ours = f"(?:{_LONE}|{OPERATORS})"
    for size in range(1, 4):
        for chars in itertools.product(_OPERATOR_CHARS, repeat=size):
            text = "".join(chars)
            assert _whole_match(ours, text) == _whole_match(special, text), text


def test_a_decimal_integer_is_what_tokenize_reads_there() -> None:
    """Wherever the shortcut matches, `tokenize.Number` matches the same; elsewhere Number is tried."""
    number = _plain(tokenize.Number)
    matched = 0
    for size in range(1, 5):
        for chars in itertools.product("0159_.eEjJxXoObBa+ ", repeat=size):
            text = "".join(chars)
            found = _whole_match(_DECIMAL, text)
            if found is not None:
                matched += 1
                assert found == _whole_match(number, text), text
    assert matched > 1000


_NUMBERS = ["0", "1", "09", "1_0", "0x1f", "0b1", "0o7", "1.", ".5", "1e5", "1E-3", "2j", "1_", "0_0"]


@given(
    st.lists(st.sampled_from([*_NUMBERS, *EXACT_TOKEN_TYPES, "x", " ", "\n", "'a'"]), max_size=30).map(
        "".join
    )
)
def test_numbers_and_operators_are_read_as_tokenize_reads_them(source: str) -> None:
    raw = _fast_raw(source)
    assert raw is None or raw == _stdlib_raw(source)

"""Python read a top-level statement at a time gives exactly the tokens of the whole text, and reads
what two versions share once."""

from __future__ import annotations

import sysconfig
import warnings
from pathlib import Path

import pytest

from bot.engine import tokens
from bot.engine.pychunks import statement_chunks
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
    parsed: list[str] = []
    real = tokens.parse_python

    def counting(text: str):  # type: ignore[no-untyped-def]
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(tokens, "parse_python", counting)
    functions = [f"def f{i}(x):\n    return x + {i}\n" for i in range(3)]
    before = "".join(functions)
    after = functions[0] + "def f1(x):\n    return x - 1\n" + functions[2]
    tokenizer = Tokenizer()
    pair = tokenizer.pair("a.py", before, after)
    assert pair.mode is tokens.TokenMode.NORMALIZED
    assert sorted(parsed) == sorted([*functions, "def f1(x):\n    return x - 1\n"])

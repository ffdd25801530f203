"""The normalized tokens read as written are unparse's wherever they are accepted: on every top-level
statement of the standard library, and on each construct unparse writes otherwise (refused)."""

from __future__ import annotations

import ast
import sys
import sysconfig
import warnings
from pathlib import Path

import pytest

from bot.engine import tokens
from bot.engine.complexity import decides, unit_complexities, unit_names
from bot.engine.pychunks import statement_chunks
from bot.engine.pynormal import normalized_tokens, number_literal, string_literal
from bot.engine.pyscan import raw_pieces
from bot.engine.tokens import Tokenizer, TokenMode, compiled, python_normalized

pytestmark = pytest.mark.skipif(
    not tokens.NORMALIZE_AS_WRITTEN, reason="the rules are those of Python 3.11's ast.unparse"
)

_STDLIB = Path(sysconfig.get_paths()["stdlib"])


def _as_written(source: str) -> tuple[str, ...] | None:
    scan = raw_pieces(source)
    assert scan is not None
    return normalized_tokens(*scan)


def _stdlib_pieces() -> list[tuple[str, str]]:
    out = []
    for file in sorted(_STDLIB.rglob("*.py")):
        if "site-packages" in file.parts:
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        out += [(str(file), piece) for piece in statement_chunks(text)]
    return out


def test_accepted_statements_are_unparsed_alike_on_the_whole_standard_library() -> None:
    accepted = mismatched = named = 0
    for name, piece in _stdlib_pieces():
        scan = raw_pieces(piece)
        found = None if scan is None else normalized_tokens(*scan)
        if found is None:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = tokens.parse_python(piece)
        if tree is None:
            continue
        accepted += 1
        if found != python_normalized(piece):
            mismatched += 1
            print("mismatch:", name, piece[:200])
        # the names compiling gives are the units' (excess.py reads shared statements so)
        code = compiled(piece)
        units = unit_complexities(piece)
        assert scan is not None
        defined = None if code is None else unit_names(code, scan[1].count("def"))
        if defined is not None and units is not None:
            named += 1
            assert defined == [n for n, _, _ in units], name
            if not decides(piece):
                assert all(total == 0 for _, _, total in units), name
    assert mismatched == 0
    assert accepted > 20_000 and named > 5_000, (accepted, named)


def _unparsed(source: str) -> tuple[str, ...]:
    found = python_normalized(source)
    assert found is not None
    return found


@pytest.mark.parametrize(
    "source",
    [
        "x = (a)\n",  # grouping parentheses: unparse drops or keeps them by precedence
        "x = 1, 2\n",  # a tuple value is parenthesized
        "def f():\n    return a, b\n",
        "for x in a, b:\n    pass\n",
        "x = 1, lambda b=1: b\n",  # a lambda's default is no assignment
        "x = 1, lambda a=lambda: 0, b=2: 0\n",
        "x[a,]\n",  # a subscript's trailing comma is kept for one element
        "a, = b\n",
        "for a, in b:\n    pass\n",
        "f = lambda a,: 0\n",
        "del a, b,\n",
        "x = 1; y = 2\n",
        "if x: y = 1\n",  # a body on the header's line
        "class A: pass\n",
        "if a:\n    pass\nelse:\n    # why\n    if b:\n        pass\n",  # written `elif`
        "def f():\n    'doc'\n",  # a docstring is written triple-quoted
        "'doc'\n",
        "'''a''' if x else y\n",
        "class A():\n    pass\n",
        "f(a=1, *b)\n",  # arguments reordered
        "class A(metaclass=M, *b):\n    pass\n",
        "f(*a or b)\n",  # a starred operand is parenthesized
        "f(*a if b else c)\n",
        "f(*a, *b is c)\n",
        "ﬁ = 1\n",  # names are NFKC-normalized: `fi`
        "def f():\n    x = yield 1\n",
        "f(n := 1)\n",
        "x[a::]\n",  # an empty step is dropped
        "x[1:2:, 3]\n",
        "from . .. import x\n",  # dots are tokenized as unparse joins them
        "from . . . import x\n",
        "x = f'{a}'\n",
        "x = 'a\\n'\n",  # an escape: the value is not read here
        "x = 'a' 'b'\n",  # implicit concatenation
        "x = ('a'\n     'b')\n",
        "x = a ** -b\n",
        "x = a ** ~b\n",
        "x[*a]\n",
        "x = a and b and c == d\n",  # unparse's boolean chains parenthesize later operands
        "x = a or b and c\n",
        "x = a and not b\n",
        "x = a or b or c or d == e\n",
        "match x:\n    case 1:\n        pass\n",
        "x = 1\r\ny = 2\r\n",
        "x = '''a\r\nb'''\n",
        "x = " + "+".join(["1"] * 120) + "\n",  # too deep for unparse to be certain to succeed
        "x = 0x" + "f" * 4000 + "\n",  # too long to write in decimal: unparse fails too
    ],
)
def test_constructs_unparse_writes_otherwise_are_refused(source: str) -> None:
    assert _as_written(source) is None


@pytest.mark.parametrize(
    "source",
    [
        "x = a\n",
        "a, b = x\n",
        "a, b = c, d = e\n",
        "for a, b in x:\n    pass\nelse:\n    pass\n",
        "import a, b.c as d\nfrom .x import y, z\nfrom ....a import b\nglobal g, h\ndel a, b\n",
        "assert a, b\nwith a as b, c:\n    pass\nasync def f():\n    async with a, b:\n        await c\n",
        "f(a,)\ndef g(a, *b, c=1, **d,):\n    pass\nx = [1, 2,]\ny = {1: 2,}\nclass A(B,):\n    pass\n",
        "from m import (\n    a,\n    b,\n)\n",
        "f(x for x in y)\nsum(a async for a in b)\n",  # a sole generator argument is parenthesized
        "f(*a, *b)\nf(**a, b=c)\nf(lambda a, b: 0)\nclass A(*b):\n    pass\n",
        "x = lambda a, b=1: a\nx = lambda: a or b\n",
        "x[a:]\nx[::2]\nx[a:b, :]\nx[a, b]\nx[lambda: 0]\n",
        "x = 0x10 + 1_000 + 1e5 + .5 + 5. + 1j + 1e400 + 1e400j + 00 + 0o7 + 0b1 + 1_0.5e1_0 + 7\n",
        "x = \"it's\" + '\"' + u'x' + b'y' + rb'\\d' + B\"z\" + '''a\nb''' + r'\\'' + \"\"\"\"\"\"\n",
        "x = -a ** b\nx = a ** await b if c else lambda: d\n",
        "x = a == 1 and b == 2\nx = a and b or c\nx = not a and b\nx = a not in b and c is not d\n",
        "x = a or b == c\nx = a if b or c else d\nx = [a for a in b if c or d]\n",
        "@decorator(\n    1)\ndef f(a: int = 1) -> str:  # why\n    return ...\n",
        "x = 1 .real + ....__class__\n",
        "if a:\n    pass\nelif b:\n    pass\nelse:\n    x = 1\n",
        "match = 1\nmatch.x = 2\ncase = match\n",
        "try:\n    pass\nexcept* E:\n    pass\n",
        "# only a comment\n",
        "x = 1",  # no line break at the end
        "",
    ],
)
def test_safe_constructs_are_read_as_unparse_writes_them(source: str) -> None:
    assert _as_written(source) == _unparsed(source)


def test_literals_are_written_as_their_values() -> None:
    assert string_literal('"it\'s"') == '"it\'s"'
    assert string_literal("U'x'") == "u'x'"
    assert string_literal("Rb'\\d'") == "b'\\\\d'"
    assert number_literal("1E400") == "1e309"
    assert number_literal("0XFF") == "255"


def test_a_statement_that_parses_but_does_not_compile_is_read_by_its_tree() -> None:
    source = "x = 1\n\nreturn x\n"  # `ast.parse` takes a `return` outside a function, compile does not
    assert compiled("return x\n") is None
    pair = Tokenizer().pair("a.py", source, source.replace("x = 1", "x = 2"))
    assert pair.mode is TokenMode.NORMALIZED
    assert pair.right == _unparsed(source.replace("x = 1", "x = 2"))


def test_other_versions_always_unparse(monkeypatch: pytest.MonkeyPatch) -> None:
    source = "def f(x):\n    return (x)\n\ndef g():\n    pass\n"
    want = _unparsed(source)
    monkeypatch.setattr(tokens, "NORMALIZE_AS_WRITTEN", False)
    unparsed: list[ast.AST] = []
    real = ast.unparse

    def counting(tree: ast.AST) -> str:
        unparsed.append(tree)
        return real(tree)

    monkeypatch.setattr(tokens.ast, "unparse", counting)
    pair = Tokenizer().pair("a.py", source, source)
    assert pair.left == want
    assert len(unparsed) == 2  # each top-level statement, though both are read as written on 3.11


def test_python_is_311() -> None:
    assert sys.version_info[:2] == (3, 11)

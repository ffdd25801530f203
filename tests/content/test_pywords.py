"""`dangerous` parses a Python file only when it names the words a dangerous call needs
(bot/engine/content/pywords.py): held here to the syntax tree itself, which resolves names through
strings too, on every dangerous name reached each way and on whole corpora."""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

import pytest

from bot.engine.content import pywords
from bot.engine.content.pyconstructs import DANGEROUS_CALLS, python_constructs, resolver_of
from tests.datafiles import SECRETS


def _escaped(text: str) -> str:
    """A string literal spelling `text` with escapes only: no word of it is in the source."""
    return "'" + "".join(f"\\x{ord(c):02x}" for c in text) + "'"


def _got(base: str, path: str) -> str:
    """`base.path` read through getattr, one attribute at a time, each spelled with escapes."""
    for attribute in path.split("."):
        base = f"getattr({base}, {_escaped(attribute)})"
    return base


def _reached(name: str) -> list[str]:
    """Modules calling `name` (a dangerous call) in ways that name none of its words but one."""
    root, _, path = name.partition(".")
    if not path:
        return [
            f"import builtins\ngetattr(builtins, {_escaped(root)})(x)",
            f"__builtins__[{_escaped(root)}](x)",
        ]
    first, _, rest = path.partition(".")
    then = f".{rest}" if rest else ""
    module = f"getattr(sys, {_escaped('modules')})[{_escaped(root)}]"
    return [
        f"import {root}\n{_got(root, path)}(x)",
        f"__import__({_escaped(root)}).{path}(x)",
        f"import importlib\nimportlib.import_module({_escaped(name)})(x)",
        f"import sys\nsys.modules[{_escaped(root)}].{path}(x)",
        f"import sys\n{_got(module, path)}(x)",
        f"from {root} import {first} as f\nf{then}(x)",
        f"import {root} as m\nr = (m).{path}\nr(x)",
    ]


@pytest.mark.parametrize("name", sorted(DANGEROUS_CALLS))
def test_every_way_to_reach_a_dangerous_call_names_its_words(name: str) -> None:
    for source in _reached(name):
        tree = ast.parse(source)
        call = tree.body[-1]
        assert isinstance(call, ast.Expr) and isinstance(call.value, ast.Call)
        assert resolver_of(tree).name(call.value.func) == name, source  # the tree does reach it
        assert pywords.may_hold(pywords.words_in(source)), source


def _corpus() -> list[str]:
    root = Path(sysconfig.get_paths()["stdlib"])
    paths = [p for p in root.rglob("*.py") if "site-packages" not in p.parts]
    paths += sorted((SECRETS / "bandit" / "examples").glob("*.py"))
    return [p.read_bytes().decode("utf-8", "replace") for p in sorted(paths)]


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")
def test_every_file_whose_tree_holds_a_construct_is_read() -> None:
    """The standard library with its tests, and bandit's examples: each file whose whole syntax tree
    has a finding (as a whole module, or as statements judged alone) names the words."""
    found = 0
    for text in _corpus():
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if python_constructs(tree) or python_constructs(tree, whole=False):
            found += 1
            assert pywords.may_hold(pywords.words_in(text)), text[:200]
    assert found > 200


@pytest.mark.parametrize(
    "source",
    [
        "import json\njson.loads(s)\n",
        "import os\nos.path.join(a, b)\n",
        "x = getattr(obj, 'name', None)\n",
        "run(cmd)\n",
        "import subprocess\n",
        "model.evaluate(x)\n",
    ],
)
def test_a_file_without_the_words_is_not_read(source: str) -> None:
    assert not pywords.may_hold(pywords.words_in(source))


def test_identifiers_are_read_nfkc_normalized() -> None:
    assert pywords.may_hold(pywords.words_in("ｅｖａｌ(x)\n"))
    assert not pywords.may_hold(pywords.words_in("ｅｖａｌｕａｔｅ(x)\n"))


@pytest.mark.parametrize(
    "text",
    [
        "x = 1\nｅｖａｌ(x)\n",  # fullwidth, on a line of its own
        "s = '…'\nimport os\nos.ｓｙｓｔｅｍ(c)\n",  # NFKC changes another line too
        "evale\u0301 = 1\n",  # a composed é, after which `eval` ends a word
        "x\n\u0301eval(y)\n",  # a combining mark after a line break: nothing to compose with
        "ﬁle = 1\n𝐞𝐯𝐚𝐥(x)\r\n",  # a ligature, math bold, a carriage return
        "é = 1\neval(x)\n",  # not ASCII but normalized
    ],
)
def test_the_words_normalizing_adds_are_those_of_the_whole_text_normalized(text: str) -> None:
    """Only the lines that are not ASCII are normalized, each alone (NFKC leaves a line break, and
    nothing composes with it): the words are those of the whole text normalized, and of the text."""
    whole = set(pywords._patterns().present(pywords.nfkc(text)))
    assert pywords.normalized_words(text) | pywords.words_of(text.encode()) == whole | pywords.words_of(
        text.encode()
    )
    assert pywords.words_in(text) == whole | pywords.words_of(text.encode())


def test_a_normalized_text_adds_no_words() -> None:
    assert pywords.normalized_words("é = 1\neval(x)\n") == set()
    assert pywords.normalized_words("é = 1\nｅｖａｌ(x)\n") == {pywords.WORDS.index("eval")}

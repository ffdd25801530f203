"""The walk of `python_constructs` skips constants and names that can stand for no function; these
tests hold it to a walk that visits every node (the walk before that change), on the standard
library and its test package, whole, judged alone and on some lines only."""

from __future__ import annotations

import ast
import sysconfig
from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.engine.content import pyconstructs
from bot.engine.content.pyconstructs import (
    Found,
    Resolver,
    calls_on_lines,
    python_constructs,
    spans_a_line,
)

_NO_CALLS = frozenset({"ctx", "id", "attr", "arg", "name", "names", "module", "level", "op", "ops"})
_QUIET = (ast.Compare, ast.Expr, ast.Attribute)
_SCOPES_OF_NAMES = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_Pending = tuple[ast.AST, "ast.Call | None", bool, bool]


def _fields(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Name | ast.Constant):
        return []
    out: list[ast.AST] = []
    for field in node._fields:
        if field in _NO_CALLS or field == "type_comment":
            continue
        value = getattr(node, field, None)
        if isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.AST))
        elif isinstance(value, ast.AST):
            out.append(value)
    return out


def _children(node: ast.AST, carrier: ast.Call | None, as_value: bool, in_class: bool) -> list[_Pending]:
    if not isinstance(node, ast.keyword | ast.Starred | ast.NamedExpr):
        carrier = None
        as_value = not isinstance(node, _QUIET) and (
            in_class
            or not isinstance(node, ast.Assign | ast.AnnAssign)
            or not all(isinstance(t, ast.Name) for t in pyconstructs._targets(node))
        )
    if isinstance(node, _SCOPES_OF_NAMES):
        in_class = isinstance(node, ast.ClassDef)
    return [(child, carrier, as_value, in_class) for child in _fields(node)]


def _every_node(tree: ast.Module, *, whole: bool = True, lines: Sequence[int] | None = None) -> list[Found]:
    """The reference: every node of the tree visited, in the order the walk visits those it keeps."""
    resolver = Resolver(tree, whole=whole, calls=True)
    found: list[Found] = []
    pending: list[_Pending] = [(tree, None, False, False)]
    while pending:
        node, carrier, as_value, in_class = pending.pop()
        if lines is not None and not spans_a_line(node, lines):
            continue
        if as_value and isinstance(node, ast.expr) and pyconstructs._maybe_handed(node, resolver):
            name = pyconstructs._called(resolver.name(node))
            construct = None if name is None else pyconstructs._handed_on(name, carrier, resolver)
            if name is not None and construct is not None:
                found.append(pyconstructs._found(construct, name, node, handed_on=True))
                continue
        if isinstance(node, ast.Call):
            name = pyconstructs._called(resolver.name(node.func))
            construct = None if name is None else pyconstructs._judge(node, name, resolver)
            if name is not None and construct is not None:
                found.append(pyconstructs._found(construct, name, node))
            by_string = pyconstructs._read_by_string(node, name, resolver)
            computed = pyconstructs._computed_read(node, name, by_string, resolver)
            found.extend([computed] if computed is not None else [])
            passed = name not in pyconstructs._INSPECTORS
            pending.append((node.func, None, False, in_class))
            pending.extend((a, node, passed, in_class) for a in node.args)
            pending.extend((k, node, passed, in_class) for k in node.keywords)
            continue
        read = pyconstructs._read_native(node, resolver)  # a library's function, a computed key
        found.extend([read] if read is not None else [])
        pending.extend(_children(node, carrier, as_value, in_class))
    if whole:
        found.extend(pyconstructs._exports(tree, resolver, lines))
    return sorted(found, key=lambda f: (f.line, f.end_line, f.construct.value))


def _every_call(tree: ast.Module, lines: Sequence[int]) -> list[tuple[int, int]]:
    calls: list[tuple[int, int]] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if not spans_a_line(node, lines):
            continue
        if isinstance(node, ast.Call):
            calls.append((node.lineno, node.col_offset))
        pending.extend(_fields(node))
    return sorted(calls)


def _trees() -> list[tuple[str, ast.Module, int]]:
    root = Path(sysconfig.get_paths()["stdlib"])
    trees = []
    for path in sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts):
        text = path.read_text("utf-8", "replace")
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        trees.append((path.relative_to(root).as_posix(), tree, text.count("\n") + 1))
    return trees


@pytest.fixture(scope="module")
def trees() -> list[tuple[str, ast.Module, int]]:
    return _trees()


def test_the_walk_finds_what_visiting_every_node_finds(trees: list[tuple[str, ast.Module, int]]) -> None:
    assert len(trees) > 1500
    reported = 0
    handed = 0
    for index, (path, tree, count) in enumerate(trees):
        found = python_constructs(tree)
        assert found == _every_node(tree), path
        if index % 2:  # half the files judged alone, the other half on some lines only
            assert python_constructs(tree, whole=False) == _every_node(tree, whole=False), path
        else:
            some = list(range(1, count, 7))
            assert python_constructs(tree, lines=some) == _every_node(tree, lines=some), path
        reported += len(found)
        handed += sum(f.handed_on for f in found)
    # The corpus exercises both kinds of finding, of every construct but the rarest.
    assert reported > 1000 and handed > 50


def test_the_calls_on_lines_are_every_call_on_them(trees: list[tuple[str, ast.Module, int]]) -> None:
    for path, tree, count in trees[::3]:
        some = list(range(1, count, 5))
        assert sorted((c.lineno, c.col_offset) for c in calls_on_lines(tree, some)) == _every_call(
            tree, some
        ), path


@pytest.mark.parametrize(
    "source",
    [
        "class C:\n    run = eval\n",  # a name a class body binds: handed on
        "run = eval\nrun(x)\n",  # a module binds it: an alias, followed to its call
        "import os\nf(os.system, *args, **{'shell': True})\n",
        "e = eval\nlist(map(e, xs))\n",  # a name the resolver remembers, handed on
        "import subprocess as sp\nThread(target=sp.run, kwargs=opts)\n",
        "def f(g=exec):\n    return lambda: (h := eval)\n",
        "x = [eval, {1: os.popen}, (yield exec)]\n",
        "match x:\n    case C(y) if g(exec):\n        f(eval)\n",
    ],
)
def test_handed_on_values_are_found_as_visiting_every_node_finds(source: str) -> None:
    tree = ast.parse(source)
    assert python_constructs(tree) == _every_node(tree)
    assert python_constructs(tree, whole=False) == _every_node(tree, whole=False)
    assert python_constructs(tree, whole=False)  # each holds a construct to find

"""Cognitive complexity (G. Ann Campbell, SonarSource) of Python functions, on the standard `ast`.

Increments, as the specification lists them:
- +1 plus the nesting level: `if`, conditional expression, `match` (the spec's switch), `for`,
  `while`, `except` (catch);
- +1 without nesting: `elif`, `else` (of `if`, and of `for`, `while` and `try` as SonarSource's
  Python analyzer counts them), and each sequence of like boolean operators (`a and b and c` is
  one, `a and b or c` two; parentheses start a new sequence);
- the nesting level grows inside those structures (the conditional expression included), inside
  nested functions and inside lambdas; `try`, `finally`, `with` and class bodies add nothing.

Python specifics, following SonarSource's Python analyzer: a nested function adds no nesting when
its enclosing function only returns it (the decorator idiom; a leading docstring is allowed here),
and a class resets the nesting level to 0. Departures from the specification, documented in README:
recursion earns nothing (SonarSource's own analyzers skip it too), and comprehensions earn nothing
themselves (the spec is silent on them); their conditions and nested expressions still count.

A unit is a function that is not inside another function: module-level functions and methods,
named `Class.method`; nested functions and classes count towards the unit that holds them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from inspect import CO_NEWLOCALS
from types import CodeType

from bot.engine.tokens import parse_python

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_TRIES = (ast.Try, ast.TryStar)
_COMMENT = re.compile(rb"#[^\r\n]*")


@dataclass(frozen=True, slots=True)
class FunctionComplexity:
    name: str  # qualified: Class.method; a second definition of the same name gets " (2)"
    line: int
    complexity: int


class _Source:
    """Byte offsets of AST positions (ast columns are UTF-8 byte offsets)."""

    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8")
        self.starts = [0, 0]
        for line in self.data.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, col: int) -> int:
        return self.starts[line] + col

    def plain(self, node: ast.stmt | ast.expr) -> bool:
        """No keyword that can add complexity appears in the node's text, so nothing in it can: the
        walk skips it (most statements of most functions), which is most of the walk's cost."""
        assert node.end_lineno is not None and node.end_col_offset is not None
        start = self.offset(node.lineno, node.col_offset)
        end = self.offset(node.end_lineno, node.end_col_offset)
        return _DECISIONS.search(self.data, start, end) is None

    def starts_with(self, node: ast.stmt, word: bytes) -> bool:
        at = self.offset(node.lineno, node.col_offset)
        return self.data[at : at + len(word)] == word

    def parenthesized(self, parent: ast.BoolOp, index: int) -> bool:
        """Whether operand `index` of a boolean operation is written inside parentheses."""
        child = parent.values[index]
        if index == 0:
            before = self.offset(parent.lineno, parent.col_offset)
        else:
            prev = parent.values[index - 1]
            assert prev.end_lineno is not None and prev.end_col_offset is not None
            before = self.offset(prev.end_lineno, prev.end_col_offset)
        gap = self.data[before : self.offset(child.lineno, child.col_offset)]
        return b"(" in _COMMENT.sub(b"", gap)


_Function = ast.FunctionDef | ast.AsyncFunctionDef
# Every increment needs one of these words in the source: a condition, a loop, a handler, a
# `match`, an `else`, a boolean operator, a conditional expression, or a lambda's nesting.
_DECISIONS = re.compile(rb"\b(?:if|elif|else|for|while|except|match|case|and|or|lambda)\b")


class _Counter:
    def __init__(self, source: _Source) -> None:
        self.source = source
        self.total = 0
        self.enclosing: _Function | None = None  # the function whose body is being read

    # statements

    def body(self, statements: list[ast.stmt], nesting: int) -> None:
        for statement in statements:
            self.statement(statement, nesting)

    def statement(self, node: ast.stmt, nesting: int) -> None:
        if self.source.plain(node):
            return
        if isinstance(node, ast.If):
            self.total += 1 + nesting
            self.if_rest(node, nesting)
        elif isinstance(node, _LOOPS):
            self.total += 1 + nesting
            self.children(node, nesting, skip=("body", "orelse"))
            self.body(node.body, nesting + 1)
            self.else_clause(node.orelse, nesting)
        elif isinstance(node, _TRIES):
            self.body(node.body, nesting)
            for handler in node.handlers:
                self.total += 1 + nesting
                self.children(handler, nesting, skip=("body",))
                self.body(handler.body, nesting + 1)
            self.else_clause(node.orelse, nesting)
            self.body(node.finalbody, nesting)
        elif isinstance(node, ast.Match):
            self.total += 1 + nesting
            self.expression(node.subject, nesting)
            for case in node.cases:
                if case.guard is not None:
                    self.expression(case.guard, nesting + 1)
                self.body(case.body, nesting + 1)
        elif isinstance(node, _FUNCTIONS):
            wrapped = self.enclosing is not None and _returns_only(self.enclosing, node)
            self.function(node, nesting, nesting if wrapped or self.enclosing is None else nesting + 1)
        elif isinstance(node, ast.ClassDef):
            self.children(node, nesting, skip=("body",))
            outer, self.enclosing = self.enclosing, None
            self.body(node.body, 0)
            self.enclosing = outer
        else:
            self.children(node, nesting)

    def function(self, node: _Function, nesting: int, inner: int) -> None:
        """Decorators, defaults and annotations at `nesting`; the body at `inner`."""
        self.children(node, nesting, skip=("body",))
        outer, self.enclosing = self.enclosing, node
        self.body(node.body, inner)
        self.enclosing = outer

    def if_rest(self, node: ast.If, nesting: int) -> None:
        self.expression(node.test, nesting)
        self.body(node.body, nesting + 1)
        orelse = node.orelse
        if len(orelse) == 1 and isinstance(orelse[0], ast.If) and self.source.starts_with(orelse[0], b"elif"):
            self.total += 1
            self.if_rest(orelse[0], nesting)
        else:
            self.else_clause(orelse, nesting)

    def else_clause(self, statements: list[ast.stmt], nesting: int) -> None:
        if statements:
            self.total += 1
            self.body(statements, nesting + 1)

    # expressions

    def children(self, node: ast.AST, nesting: int, skip: tuple[str, ...] = ()) -> None:
        for name, value in ast.iter_fields(node):
            if name in skip:
                continue
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, ast.stmt):
                    self.statement(item, nesting)
                elif isinstance(item, ast.expr):
                    self.expression(item, nesting)
                elif isinstance(item, ast.AST):
                    self.children(item, nesting)

    def expression(self, node: ast.expr, nesting: int) -> None:
        if self.source.plain(node):
            return
        if isinstance(node, ast.BoolOp):
            operands: list[ast.expr] = []
            self.total += _sequences(self.operators(node, operands))
            for operand in operands:
                self.expression(operand, nesting)
        elif isinstance(node, ast.IfExp):
            self.total += 1 + nesting
            self.children(node, nesting + 1)
        elif isinstance(node, ast.Lambda):
            self.children(node, nesting + 1)
        else:
            self.children(node, nesting)

    def operators(self, node: ast.BoolOp, operands: list[ast.expr]) -> list[type[ast.boolop]]:
        """The operators of an unparenthesized run of boolean operations, in source order."""
        ops: list[type[ast.boolop]] = []
        for index, value in enumerate(node.values):
            if index:
                ops.append(type(node.op))
            if isinstance(value, ast.BoolOp) and not self.source.parenthesized(node, index):
                ops.extend(self.operators(value, operands))
            else:
                operands.append(value)
        return ops


def _sequences(ops: list[type[ast.boolop]]) -> int:
    return sum(1 for i, op in enumerate(ops) if i == 0 or op is not ops[i - 1])


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _returns_only(enclosing: _Function, nested: _Function) -> bool:
    """The decorator idiom: besides `nested` (and a docstring) the function only returns a name."""
    rest = [s for s in enclosing.body if s is not nested]
    if rest and _is_docstring(rest[0]):
        rest = rest[1:]
    return all(isinstance(s, ast.Return) and isinstance(s.value, ast.Name) for s in rest)


def _units(statements: list[ast.stmt], prefix: str) -> Iterator[tuple[str, _Function]]:
    """Functions that are not inside another function, with their qualified names."""
    for node in statements:
        if isinstance(node, _FUNCTIONS):
            yield prefix + node.name, node
        elif isinstance(node, ast.ClassDef):
            yield from _units(node.body, f"{prefix}{node.name}.")
        else:
            for block in _blocks(node):
                yield from _units(block, prefix)


def _blocks(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists inside a compound statement: module-level `if`, `try`, `with`, loops, `match`."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if isinstance(block, list):
            yield block
    for part in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
        yield part.body


Unit = tuple[str, int, int]  # a unit's qualified name, its line, its cognitive complexity


def unit_complexities(
    source: str, parse: Callable[[str], ast.Module | None] = parse_python
) -> tuple[Unit, ...] | None:
    """Each unit of `source` in source order, before `labelled` tells same-named units apart; None if
    it does not parse or nests too deep to read."""
    tree = parse(source)
    if tree is None:
        return None
    text = _Source(source)
    out: list[Unit] = []
    for name, node in _units(tree.body, ""):
        counter = _Counter(text)
        try:
            counter.function(node, 0, 0)
        except RecursionError:  # an expression nested hundreds deep (a long generated sum)
            return None
        out.append((name, node.lineno, counter.total))
    return tuple(out)


def unit_names(code: CodeType, defs: int) -> list[str] | None:
    """The qualified names of the units of a compiled module in source order, as `unit_complexities`
    names them (a function's `co_qualname`; a scope's constants are in the order the compiler met
    them); None unless its code holds exactly the `defs` functions its source defines (were a
    compiler to drop a dead block's, or compile a `finally` block twice)."""
    names: list[str] = []
    found = _functions(code, names, outside=True)
    return names if found == defs else None


def _functions(code: CodeType, names: list[str], *, outside: bool) -> int:
    """How many functions `code` defines, at any depth; those outside any function go to `names`.
    The depth is a class's nesting in classes, or a function's in functions: shallow, as the
    caller's text is (pynormal.py)."""
    found = 0
    for const in code.co_consts:
        if isinstance(const, CodeType):
            function = bool(const.co_flags & CO_NEWLOCALS)
            if function and not const.co_name.startswith("<"):  # not a lambda or comprehension
                found += 1
                if outside:
                    names.append(const.co_qualname)
            found += _functions(const, names, outside=outside and not function)
    return found


def decides(text: str) -> bool:
    """Whether a keyword that can add complexity appears in `text`: where none does, every unit in it
    has complexity 0 (a node's text is part of it, and ends where a token ends)."""
    return _DECISIONS.search(text.encode("utf-8", "surrogatepass")) is not None


def labelled(units: Iterable[Unit]) -> tuple[FunctionComplexity, ...]:
    """Units as the receipt names them: a name defined again is counted, `name (2)`."""
    seen: dict[str, int] = {}
    out: list[FunctionComplexity] = []
    for name, line, total in units:
        seen[name] = seen.get(name, 0) + 1
        out.append(FunctionComplexity(name if seen[name] == 1 else f"{name} ({seen[name]})", line, total))
    return tuple(out)


def function_complexities(
    source: str, parse: Callable[[str], ast.Module | None] = parse_python
) -> tuple[FunctionComplexity, ...] | None:
    """Cognitive complexity of each unit of `source`, in source order; None if it does not parse."""
    units = unit_complexities(source, parse)
    return None if units is None else labelled(units)

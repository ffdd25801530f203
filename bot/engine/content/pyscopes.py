"""Which definition each line of a Python module belongs to, read on its syntax tree: the qualified
name (`Headers.get`, `test_reload.inner`) of the innermost `def` or `class` whose lines hold it, its
decorators' lines and its signature's included; "" for a line at the module's top level.

The suppression rule pairs markers by it where lines cannot say which marker is which: a test's skip
replaced by another form of skip elsewhere in the same test, a line a diff realigned among copies
of itself in other functions, a marker that moved with its definition to another file (a stub
inlined into its module, a class moved out)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def scopes_of(source: str) -> tuple[str, ...] | None:
    """The qualified definition of each line of `source` (index 0 is line 1); None when it does not
    parse, as then where a definition ends is not known."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    scopes = [""] * (source.count("\n") + 1)
    # outer definitions are filled in first, so an inner one's lines end up named by the inner
    pending: list[tuple[str, ast.AST]] = [("", tree)]
    while pending:
        prefix, node = pending.pop()
        for child in _blocks(node):
            if isinstance(child, _DEFINITIONS):
                name = f"{prefix}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                last = child.end_lineno or child.lineno
                scopes[first - 1 : last] = [name] * (last - first + 1)
                pending.append((f"{name}.", child))
            else:
                pending.append((prefix, child))
    return tuple(scopes)


# Where a statement holds statements: a definition is a statement, so no expression is walked (an
# `if` expression's `body` is never reached: only statements, handlers and cases are).
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _blocks(node: ast.AST) -> Iterator[ast.AST]:
    for field in _BLOCKS:
        yield from getattr(node, field, ())


class Scopes:
    """The scopes of the sources one evaluation asks about, each source parsed once however often
    and in whatever order its lines are asked for (a change's markers are paired file by file, then
    across its files)."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[str, ...] | None] = {}

    def of(self, source: str) -> tuple[str, ...] | None:
        if source not in self._known:
            self._known[source] = scopes_of(source)
        return self._known[source]

    def at(self, source: str | None, line: int) -> str | None:
        """The qualified definition holding line `line` (1-based) of `source`; None when the
        source is unknown, does not parse, or has no such line."""
        scopes = self.of(source) if source is not None else None
        if scopes is None or not 0 < line <= len(scopes):
            return None
        return scopes[line - 1]

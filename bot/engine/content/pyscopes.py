"""Which definition each line of a Python module belongs to, read on its syntax tree: the qualified
name (`Headers.get`, `test_reload.inner`) of the innermost `def` or `class` whose lines hold it, its
decorators' lines and its signature's included; "" for a line at the module's top level.

The suppression rule pairs markers by it where lines cannot say which marker is which: a test's skip
replaced by another form of skip elsewhere in the same test, a line a diff realigned among copies
of itself in other functions, a marker that moved with its definition to another file (a stub
inlined into its module, a class moved out)."""

from __future__ import annotations

import ast
from functools import lru_cache

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@lru_cache(maxsize=8)
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
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFINITIONS):
                name = f"{prefix}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                last = child.end_lineno or child.lineno
                scopes[first - 1 : last] = [name] * (last - first + 1)
                pending.append((f"{name}.", child))
            elif not isinstance(child, ast.expr):  # no expression holds a definition
                pending.append((prefix, child))
    return tuple(scopes)


def scope_at(source: str | None, line: int) -> str | None:
    """The qualified definition holding line `line` (1-based) of `source`; None when the source is
    unknown, does not parse, or has no such line."""
    scopes = scopes_of(source) if source is not None else None
    if scopes is None or not 0 < line <= len(scopes):
        return None
    return scopes[line - 1]

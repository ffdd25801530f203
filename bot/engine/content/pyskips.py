"""Skipped tests in Python, found on the syntax tree through the module's imports: the names pytest
and unittest skip (or excuse) a test by, however they are reached (`import pytest as pt` then
`@pt.mark.skip`; `from pytest import skip as later` then `later()`; `from unittest import SkipTest`
then `raise SkipTest`). Strings and comments that mention them are not names, so they never match.
"""

from __future__ import annotations

import ast
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bot.engine.content.pyconstructs import name_resolver

SKIPS = {
    **dict.fromkeys(
        ("pytest.mark.skip", "pytest.mark.skipif", "pytest.skip", "pytest.importorskip"), "pytest-skip"
    ),
    **dict.fromkeys(("pytest.mark.xfail", "pytest.xfail"), "pytest-xfail"),
    **dict.fromkeys(
        ("unittest.skip", "unittest.skipIf", "unittest.skipUnless", "unittest.SkipTest"), "unittest-skip"
    ),
    "unittest.expectedFailure": "unittest-xfail",
}
# Where the same objects are defined (what their public names re-export).
_HOMES = (
    ("unittest.case.", "unittest."),
    ("_pytest.outcomes.", "pytest."),
    ("_pytest.mark.", "pytest.mark."),
)


@dataclass(frozen=True, slots=True)
class SkipUse:
    marker: str  # the suppression marker id
    line: int
    written: str  # as the source spells it: `pt.mark.skip`


def _marker(resolved: str) -> str | None:
    for home, public in _HOMES:
        if resolved.startswith(home):
            resolved = public + resolved.removeprefix(home)
    parts = resolved.split(".")
    for end in range(2, len(parts) + 1):  # `pt.mark.skip.with_args` is a skip too
        marker = SKIPS.get(".".join(parts[:end]))
        if marker is not None:
            return marker
    return None


def _spans_a_line(node: ast.AST, lines: Sequence[int]) -> bool:
    if not isinstance(node, ast.stmt | ast.expr):
        return True
    decorators = getattr(node, "decorator_list", None)
    start = decorators[0].lineno if decorators else node.lineno
    first = bisect_left(lines, start)
    return first < len(lines) and lines[first] <= (node.end_lineno or node.lineno)


def skip_uses(tree: ast.Module, lines: Sequence[int]) -> Iterator[SkipUse]:
    """The skips whose name starts on one of `lines` (sorted), walking only the subtrees that span
    one of them."""
    resolve = name_resolver(tree)
    wanted = frozenset(lines)
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if not _spans_a_line(node, lines):
            continue
        if isinstance(node, ast.Name | ast.Attribute) and node.lineno in wanted:
            resolved = resolve(node)
            marker = None if resolved is None else _marker(resolved)
            if marker is not None:
                yield SkipUse(marker, node.lineno, ast.unparse(node))
                continue  # its inner names are the same use
        pending.extend(ast.iter_child_nodes(node))

"""Skipped tests in Python, found on the syntax tree through the module's imports: the names pytest
and unittest skip (or excuse) a test by, however they are reached (`import pytest as pt` then
`@pt.mark.skip`; `from pytest import skip as later` then `later()`; `from unittest import SkipTest`
then `raise SkipTest`). Strings and comments that mention them are not names, so they never match.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bot.engine.content.pyconstructs import name_resolver, spans_a_line

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


_TESTING = frozenset({"pytest", "_pytest", "unittest"})


class _SkipNames:
    """Names as the module's imports define them (`name_resolver`), and as its assignments of
    pytest's and unittest's objects do (`mark = pytest.mark`, `sk = mark.skip`, `needs_x =
    pytest.mark.skipif(...)`), in source order;
    `getattr(pytest.mark, "skip")` is `pytest.mark.skip`."""

    def __init__(self, tree: ast.Module) -> None:
        self._resolve = name_resolver(tree)
        self._assigned: dict[str, str] = {}
        assignments = [n for n in ast.walk(tree) if isinstance(n, ast.Assign | ast.AnnAssign)]
        for node in sorted(assignments, key=lambda n: (n.lineno, n.col_offset)):
            value = None if node.value is None else self._bound(node.value)
            if value is None or value.split(".", 1)[0] not in _TESTING:
                continue
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    self._assigned[target.id] = value

    def _bound(self, value: ast.expr) -> str | None:
        """What an assignment binds: a name, or a skip's decorator made by calling a skip
        (`require_watchdog = pytest.mark.skipif(...)`), which is that skip."""
        if isinstance(value, ast.Call):
            called = self.name(value.func)
            if called is not None and _marker(called) is not None:
                return called
        return self.name(value)

    def name(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name) and node.id in self._assigned:
            return self._assigned[node.id]
        if isinstance(node, ast.Attribute):
            base = self.name(node.value)
            return None if base is None else f"{base}.{node.attr}"
        got = self._attribute_got(node)
        if got is not None:
            base = self.name(got[0])
            return None if base is None else f"{base}.{got[1]}"
        return self._resolve(node)

    def _attribute_got(self, node: ast.expr) -> tuple[ast.expr, str] | None:
        """What `getattr(x, "name")` reads: `x` and `name`."""
        if not isinstance(node, ast.Call) or len(node.args) < 2 or self._resolve(node.func) != "getattr":
            return None
        owner, attribute = node.args[:2]
        if isinstance(attribute, ast.Constant) and isinstance(attribute.value, str):
            return owner, attribute.value
        return None


def skip_uses(tree: ast.Module, lines: Sequence[int]) -> Iterator[SkipUse]:
    """The skips whose name starts on one of `lines` (sorted), walking only the subtrees that span
    one of them."""
    names = _SkipNames(tree)
    wanted = frozenset(lines)
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if not spans_a_line(node, lines):
            continue
        if isinstance(node, ast.Name | ast.Attribute | ast.Call) and node.lineno in wanted:
            resolved = names.name(node)
            marker = None if resolved is None else _marker(resolved)
            if marker is not None:
                yield SkipUse(marker, node.lineno, ast.unparse(node))
                continue  # its inner names are the same use
        pending.extend(ast.iter_child_nodes(node))

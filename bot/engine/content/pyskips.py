"""Skipped tests in Python, found on the syntax tree through the module's imports: the names pytest
and unittest skip (or excuse) a test by, however they are reached (`import pytest as pt` then
`@pt.mark.skip`; `from pytest import skip as later` then `later()`; `from unittest import SkipTest`
then `raise SkipTest`). Strings and comments that mention them are not names, so they never match.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bot.engine.content.pyconstructs import every_statement, resolver_of, spans_a_line

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
        resolver = resolver_of(tree)
        self._resolve = resolver.name
        self._assigned: dict[str, str] = {}
        # the names imports bind to pytest's and unittest's objects
        self.imported = frozenset(n for n, target in resolver.aliases.items() if _testing(target))
        assignments = (s for s in every_statement(tree) if isinstance(s, ast.Assign | ast.AnnAssign))
        for node in assignments:
            value = None if node.value is None else self._bound(node.value)
            if value is None or not _testing(value):
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

    def words(self) -> frozenset[str]:
        """The words one of which the text of every expression that stands for a skip holds: a
        name bound to pytest's or unittest's objects, a skip's own name, a module's name (given to
        `__import__`), and the names of what reaches a module's attribute by a string."""
        return _WORDS | self.imported | self._assigned.keys()


def _testing(name: str) -> bool:
    return name.split(".", 1)[0] in _TESTING


_WORDS = frozenset(
    {*_TESTING, "mark", *(name.rsplit(".", 1)[1] for name in SKIPS)}
    | {"getattr", "__import__", "import_module", "modules", "globals", "vars", "__builtins__", "builtins"}
)


def _lines_naming(source: str, words: frozenset[str]) -> list[int] | None:
    """The lines of `source` (sorted) that hold one of `words`; None when the source is not ASCII,
    where a name may be written in characters Python reads as others (NFKC: `ｐｔ` is `pt`)."""
    if not source.isascii():
        return None
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(words))) + r")\b")
    lines: list[int] = []
    line, at = 1, 0
    for found in pattern.finditer(source):
        line += source.count("\n", at, found.start())
        at = found.start()
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


def skip_uses(tree: ast.Module, lines: Sequence[int], source: str) -> Iterator[SkipUse]:
    """The skips whose name starts on one of `lines` (sorted), walking only the subtrees that span
    one of them and a line of `source` (the text `tree` was parsed from) naming one of the words a
    skip's expression holds (`_SkipNames.words`)."""
    names = _SkipNames(tree)
    wanted = frozenset(lines)
    naming = _lines_naming(source, names.words())
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if not spans_a_line(node, lines) or (naming is not None and not spans_a_line(node, naming)):
            continue
        if isinstance(node, ast.Name | ast.Attribute | ast.Call) and node.lineno in wanted:
            resolved = names.name(node)
            marker = None if resolved is None else _marker(resolved)
            if marker is not None:
                yield SkipUse(marker, node.lineno, ast.unparse(node))
                continue  # its inner names are the same use
        pending.extend(ast.iter_child_nodes(node))

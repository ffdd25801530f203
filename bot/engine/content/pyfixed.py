"""Loop variables that can only hold a string fixed in the source: `name` in

    NAMES = ("a.b", "c")          # at the top level, a tuple or list of string literals
    for name in NAMES:
        __import__(name)

so an importer (or another call that names its target: `runpy.run_path`, a `ctypes` loader) given
`name` is judged as if given each literal. Everything is proven on the file's text, not on a syntax
tree a selection may have thinned (pyselect.py blanks what cannot hold a dangerous call, a
rebinding included):
- `NAMES` is bound once, at column 0 by `NAMES = …` (or `NAMES: T = …`) to a tuple or list of
  string literals, and every other occurrence of the word, anywhere in the file (code, strings,
  comments), is the iterable of a `for` header. So nothing rebinds, extends or mutates it;
- the file's code names no way to bind it unseen: `import *`, `globals`, `vars`, `setattr`, `exec`,
  `eval`, `compile`, `__dict__`, `__setattr__`, `modules`;
- between the `for` header and the use, the word `name` occurs only as the loop's target and as
  the use itself, on ASCII lines (a rebinding spelled in other letters is the same name to Python),
  and no `global` or `nonlocal` statement names it (a function called in between could rebind it).
- no other file of the change adds a line naming `NAMES`: another module could rebind it
  (`module.NAMES = …`). Code already in the repository that does so is not seen.
Words are matched after NFKC normalization, as Python reads identifiers. Anything else is not
proven, and the call is judged as before.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Callable, Iterator

from bot.engine.content.pyselect import STRING_OR_COMMENT
from bot.engine.content.pystatements import logical_lines
from bot.engine.lazyre import lazy

_UNSEEN = lazy(
    r"\bimport\s*\*|(?<![\w.])(?:globals|vars|setattr|exec|eval|compile)\b|\b(?:__dict__|__setattr__|modules)\b"
)
_LONE_CR = lazy(r"\r(?!\n)")
_DECLARED = lazy(r"\b(?:global|nonlocal)\b([^\n;]*)")


def _words(text: str, word: str) -> Iterator[re.Match[str]]:
    return re.finditer(rf"(?<!\w){re.escape(word)}(?!\w)", text)


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in re.finditer("\n", text))]


def _definition(text: str, start: int, name: str) -> bool:
    """Whether the statement at `start` binds `name` to a tuple or list of string literals."""
    end = logical_lines(text[start:])[0][1]
    try:
        tree = ast.parse(text[start : start + end])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    if len(tree.body) != 1:
        return False
    statement = tree.body[0]
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target, value = statement.targets[0], statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        target, value = statement.target, statement.value
    else:
        return False
    return (
        isinstance(target, ast.Name)
        and target.id == name
        and isinstance(value, ast.Tuple | ast.List)
        and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts)
    )


def _constant(text: str, name: str) -> bool:
    """Whether `name` is a top-level tuple or list of string literals that nothing else touches."""
    starts = _line_starts(text)
    definitions = 0
    for match in _words(text, name):
        line_start = starts[text.count("\n", 0, match.start())]
        before, after = text[line_start : match.start()], text[match.end() : match.end() + 200]
        if not before and re.match(r"[ \t]*(?::[^=\n]*)?=(?!=)", after):
            if not _definition(text, match.start(), name):
                return False
            definitions += 1
        elif not (re.fullmatch(r"[ \t]*for[ \t]+\w+[ \t]+in[ \t]+", before) and re.match(r"[ \t]*:", after)):
            return False
    return definitions == 1


def _only_loop_and_use(lines: list[str], loop: ast.For, target: ast.Name, use: ast.Name) -> bool:
    """Whether, from the `for` header to the use, `use.id` occurs only as the target and the use."""
    span = lines[loop.lineno - 1 : use.lineno]
    if not all(line.isascii() for line in span):
        return False
    found = {
        (number, match.start())
        for number, line in enumerate(span, start=loop.lineno)
        for match in _words(line, use.id)
    }
    return found == {(target.lineno, target.col_offset), (use.lineno, use.col_offset)}


def fixed_loop_names(
    tree: ast.Module, source: str, elsewhere: Callable[[str], bool]
) -> frozenset[tuple[int, int]]:
    """(line, column) of each use of a loop variable, in the tree of `source`, that can only hold
    one of the string literals its loop iterates over. `elsewhere(name)`: whether another file of
    the change names `name`, which could rebind it from outside (`module.NAMES = …`)."""
    text = unicodedata.normalize("NFKC", source)
    code = STRING_OR_COMMENT.sub(" ", text)
    if _LONE_CR().search(source) or _UNSEEN().search(code):
        return frozenset()
    declared = {n for m in _DECLARED().finditer(code) for n in re.findall(r"\w+", m.group(1))}
    lines = source.split("\n")
    proven: dict[str, bool] = {}
    fixed: set[tuple[int, int]] = set()
    for loop in ast.walk(tree):
        if not (
            isinstance(loop, ast.For)
            and isinstance(loop.target, ast.Name)
            and isinstance(loop.iter, ast.Name)
        ):
            continue
        constant = loop.iter.id
        if constant not in proven:
            proven[constant] = _constant(text, constant) and not elsewhere(constant)
        if not proven[constant]:
            continue
        target = loop.target
        if target.id in declared:
            continue
        for statement in loop.body:
            for use in ast.walk(statement):
                if (
                    isinstance(use, ast.Name)
                    and use.id == target.id
                    and isinstance(use.ctx, ast.Load)
                    and _only_loop_and_use(lines, loop, target, use)
                ):
                    fixed.add((use.lineno, use.col_offset))
    return frozenset(fixed)

"""Which modules added code imports, named as the language resolves them.

Python, on the syntax tree of the file's new text: `import a, b.c`, `from m import x` (which imports
`m`, and `m.x` when that is a submodule), and the calls that import a module whose name is a fixed
string (`"req" + "uests"` is one): `__import__`, `importlib.import_module` (a relative name resolved
against its `package`), `importlib.__import__`, `runpy.run_module`, reached through the module's
imports and NFKC-normalized like every identifier. Relative imports (`from . import x`) are the
repository's own modules. Without a syntax tree, each added line is read alone.

JavaScript/TypeScript, in code as its lexer reads it (`jsread.py`): `import … from "m"`,
`export … from "m"`, `import "m"`, `import("m")`, `require("m")` (and TypeScript's
`import x = require("m")`), the specifier a string literal or literals joined by `+`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from bot.engine.content.added import Fragment
from bot.engine.content.pyconstructs import (
    Resolver,
    argument,
    calls_on_lines,
    every_statement,
    spans_a_line,
)
from bot.engine.content.pystatements import calls_alone, parsed_alone, statements
from bot.engine.regex import compile_re2

_IMPORTERS = frozenset({"__import__", "importlib.__import__", "importlib.import_module", "runpy.run_module"})


@dataclass(frozen=True, slots=True)
class Imported:
    module: str  # dotted for Python, the specifier for JavaScript
    line: int  # the first added line the import occupies


def _constant_string(node: ast.expr | None) -> str | None:
    """The string an expression always is: a literal, an f-string without fields, or a sum of them."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        parts = [_constant_string(v) for v in node.values]
        return None if None in parts else "".join(p for p in parts if p is not None)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _constant_string(node.left), _constant_string(node.right)
        return None if left is None or right is None else left + right
    return None


def _absolute(name: str, package: str | None) -> str | None:
    """`importlib.import_module`'s reading of a relative name (`.adapters` in package `requests`)."""
    rest = name.lstrip(".")
    level = len(name) - len(rest)
    if not level:
        return name
    if package is None:
        return None
    base = package.rsplit(".", level - 1)[0] if level > 1 else package
    return f"{base}.{rest}" if rest else base


def _imported_by_call(call: ast.Call, function: str) -> str | None:
    if function.removeprefix("builtins.") not in _IMPORTERS:
        return None
    name = _constant_string(argument(call, 0, "name" if "run_module" not in function else "mod_name"))
    if name is None:
        return None
    return _absolute(name, _constant_string(argument(call, 1, "package")))


def _statement_modules(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and not node.level and node.module is not None:
        return [node.module, *(f"{node.module}.{a.name}" for a in node.names if a.name != "*")]
    return []


def _first_added(node: ast.stmt | ast.expr, wanted: frozenset[int]) -> int:
    end = node.end_lineno or node.lineno
    return next(n for n in range(node.lineno, end + 1) if n in wanted)


def python_imports(
    tree: ast.Module, added: Sequence[int], *, calls: bool = True, whole: bool = True
) -> Iterator[Imported]:
    """What the module's import statements and (with `calls`) importer calls that occupy one of the
    `added` lines (sorted) import; `whole=False`: the tree holds pieces of a module, and a name
    neither bound nor imported in it is taken to be the module it spells."""
    wanted = frozenset(added)
    for statement in every_statement(tree):
        modules = _statement_modules(statement)
        if modules and spans_a_line(statement, added):
            line = _first_added(statement, wanted)
            yield from (Imported(m, line) for m in modules)
    if not calls:
        return
    resolve = Resolver(tree, whole=whole).name
    for call in calls_on_lines(tree, added):
        function = resolve(call.func)
        module = None if function is None else _imported_by_call(call, function)
        if module is not None:
            yield Imported(module, _first_added(call, wanted))


# A statement that can bind what an importer call is made through: an import, an assignment.
_BINDS = compile_re2(r"\bimport\b|=")


def _names_an_importer(called: str) -> bool:
    return any(word in called for word in ("__import__", "import_module", "run_module"))


def python_imports_alone(text: str, added: Sequence[int], *, calls: bool = True) -> Iterator[Imported]:
    """What the statements of `text` that occupy one of the `added` lines (sorted, numbered in
    `text`) import, without a syntax tree of the whole (its new text is unknown or does not parse):
    each statement parsed alone (pystatements.py), with `calls` importer calls resolved through the
    text's imports and assignments parsed alone. Of a statement that does not parse alone, its calls
    of an importer by name are read."""
    wanted = frozenset(added)
    body: list[ast.stmt] = []
    for line, statement in statements(text):
        on_added = not wanted.isdisjoint(range(line, line + statement.count("\n") + 1))
        if not on_added and _BINDS.search(statement.encode("utf-8", "surrogatepass")) is None:
            continue
        tree = parsed_alone(statement, line)
        if tree is not None:
            body.extend(tree.body)
        elif on_added and calls:
            body.extend(calls_alone(statement, line, _names_an_importer))
    yield from python_imports(ast.Module(body=body, type_ignores=[]), added, calls=calls, whole=False)


_LITERAL = r"""'[^'\n]*'|"[^"\n]*"|`[^`$\n]*`"""
_JS = compile_re2(
    r"""\b(?:from|import)[ \t]*(?:'([^'\n]*)'|"([^"\n]*)")"""
    rf"|\b(?:require|import)[ \t]*\([ \t]*((?:(?:{_LITERAL})[ \t]*\+[ \t]*)*(?:{_LITERAL}))[ \t]*[,)]"
)
_JS_PART = compile_re2(_LITERAL)


def javascript_imports(fragment: Fragment, in_code: Callable[[int], bool]) -> Iterator[Imported]:
    """The imports of the fragment's JavaScript that start where `in_code` says is code."""
    for match in _JS.finditer(fragment.data):
        if not in_code(match.start()):
            continue
        single, double, joined = match.groups()
        if joined is not None:
            specifier = b"".join(part[1:-1] for part in _JS_PART.findall(joined))
        else:
            specifier = single if single is not None else double
        yield Imported(specifier.decode("utf-8", "replace"), fragment.line_at(match.start()))

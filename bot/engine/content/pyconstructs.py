"""Dangerous constructs in Python, decided on the syntax tree.

Calls are resolved through the module's imports (`import os as o`, `from pickle import loads as
lp`), so `o.system(...)` is `os.system`; a name the module defines itself (`def eval`) is not the
builtin. Strings and comments that merely mention `eval` are not calls, so they never match.
"""

from __future__ import annotations

import ast
import builtins
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache


class PyConstruct(StrEnum):
    EVAL = "python-eval"
    EXEC = "python-exec"
    OS_SYSTEM = "python-os-system"
    SHELL = "python-subprocess-shell"
    PICKLE = "python-pickle"
    YAML = "python-yaml-load"
    IMPORT = "python-import-variable"


@dataclass(frozen=True, slots=True)
class Found:
    construct: PyConstruct
    call: str
    line: int
    end_line: int


_BUILTINS = frozenset(dir(builtins))
_SUBPROCESS_SHELL_ARG = frozenset(
    f"subprocess.{f}" for f in ("Popen", "call", "check_call", "check_output", "run")
)
_ALWAYS_SHELL = frozenset(
    {"subprocess.getoutput", "subprocess.getstatusoutput", "asyncio.create_subprocess_shell"}
)
_PICKLE = frozenset(
    f"{m}.{f}" for m in ("pickle", "cPickle", "_pickle") for f in ("loads", "load", "Unpickler")
)
_YAML_LOADS = frozenset({"yaml.load", "yaml.load_all"})
_YAML_UNSAFE = frozenset({"yaml.unsafe_load", "yaml.unsafe_load_all"})
_SAFE_LOADERS = frozenset({"SafeLoader", "CSafeLoader", "BaseLoader", "CBaseLoader"})
_SIMPLE = {
    "eval": PyConstruct.EVAL,
    "exec": PyConstruct.EXEC,
    "os.system": PyConstruct.OS_SYSTEM,
    "posix.system": PyConstruct.OS_SYSTEM,
    "nt.system": PyConstruct.OS_SYSTEM,
}
_IMPORTERS = frozenset({"__import__", "importlib.__import__"})
# Every name `_judge` can find a construct for: a call whose function resolves to none of these is
# never reported (pyselect.py relies on this to leave the rest of a file unparsed).
DANGEROUS_CALLS = frozenset(
    {*_SIMPLE, *_SUBPROCESS_SHELL_ARG, *_ALWAYS_SHELL, *_PICKLE, *_YAML_LOADS, *_YAML_UNSAFE, *_IMPORTERS}
)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = tuple(
    kind
    for kind in vars(ast).values()
    if isinstance(kind, type) and issubclass(kind, ast.stmt) and {"body", "cases"} & set(kind._fields)
)


def _statements(tree: ast.Module, *, into_scopes: bool) -> Iterator[ast.stmt]:
    """Every statement of the module in source order (only its own, without function and class
    bodies, when `into_scopes` is false): imports and bindings are statements, so expressions are
    not walked."""
    pending: list[ast.stmt] = list(reversed(tree.body))
    while pending:
        statement = pending.pop()
        yield statement
        if not isinstance(statement, _BLOCKS) or (isinstance(statement, _SCOPES) and not into_scopes):
            continue
        inner: list[ast.stmt] = list(getattr(statement, "body", ()))
        for part in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
            inner.extend(part.body)
        inner.extend((*getattr(statement, "orelse", ()), *getattr(statement, "finalbody", ())))
        pending.extend(reversed(inner))


def _imports(tree: ast.Module) -> dict[str, str]:
    """What each imported name stands for, wherever the import is (`import os` inside a function
    is as common as at the top)."""
    aliases: dict[str, str] = {}
    for node in _statements(tree, into_scopes=True):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    aliases[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def _targets(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.Assign):
        return list(statement.targets)
    if isinstance(statement, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
        return [statement.target]
    if isinstance(statement, ast.With | ast.AsyncWith):
        return [i.optional_vars for i in statement.items if i.optional_vars is not None]
    return []


def _module_bindings(tree: ast.Module) -> set[str]:
    """Names the module itself binds at its top level (a method named `eval` shadows nothing)."""
    bound: set[str] = set()
    for statement in _statements(tree, into_scopes=False):
        if isinstance(statement, _SCOPES):
            bound.add(statement.name)
        for target in _targets(statement):
            bound.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return bound


# Fields that never hold a call: Load/Store markers, identifiers, operators, type comments.
_NO_CALLS = frozenset({"ctx", "id", "attr", "arg", "name", "names", "module", "level", "op", "ops"})
_LEAVES = frozenset({"Name", "Constant"})


@cache
def _child_fields(kind: str) -> tuple[str, ...]:
    """The fields worth walking of the `ast` node class named `kind`."""
    if kind in _LEAVES:
        return ()
    fields: tuple[str, ...] = getattr(ast, kind)._fields
    return tuple(f for f in fields if f not in _NO_CALLS and f != "type_comment")


def _calls(tree: ast.Module, lines: Sequence[int] | None) -> Iterator[ast.Call]:
    """Every call, in no particular order; with `lines` (sorted), only calls in the subtrees that
    span one of those lines are looked for, so a small change to a large file walks little."""
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if lines is not None and isinstance(node, ast.stmt | ast.expr):
            decorators = getattr(node, "decorator_list", None)
            start = decorators[0].lineno if decorators else node.lineno
            first = bisect_left(lines, start)
            if first == len(lines) or lines[first] > (node.end_lineno or node.lineno):
                continue
        if isinstance(node, ast.Call):
            yield node
        for field in _child_fields(type(node).__name__):
            value = getattr(node, field, None)
            if isinstance(value, list):
                pending.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                pending.append(value)


class _Resolver:
    """Names as the module's imports define them. Without the whole module (`whole=False`: one line
    judged alone), a name that is neither bound nor imported is taken to be the module it spells."""

    def __init__(self, tree: ast.Module, *, whole: bool) -> None:
        self.aliases = _imports(tree)
        self.bound = _module_bindings(tree)
        self.whole = whole

    def name(self, node: ast.expr) -> str | None:
        """The dotted name a call's function stands for (`o.system` → `os.system`), or None."""
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id].removeprefix("builtins.")
            if node.id in self.bound or (self.whole and node.id not in _BUILTINS):
                return f"<local>.{node.id}"
            return node.id
        if isinstance(node, ast.Attribute):
            base = self.name(node.value)
            return None if base is None else f"{base}.{node.attr}"
        return None


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    return None


def _literal(node: ast.expr) -> bool:
    """A command fixed in the source: a string, or a list or tuple of strings, with no interpolation."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str | bytes)
    if isinstance(node, ast.JoinedStr):
        return all(isinstance(v, ast.Constant) for v in node.values)
    if isinstance(node, ast.List | ast.Tuple):
        return all(_literal(e) for e in node.elts)
    return False


def _may_be_true(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return bool(node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys)
    return True


def _loader_is_safe(call: ast.Call, resolver: _Resolver) -> bool:
    loader = _argument(call, 1, "Loader")
    if loader is None:
        return False
    name = resolver.name(loader)
    return name is not None and name.rsplit(".", 1)[-1] in _SAFE_LOADERS


def _judge(call: ast.Call, name: str, resolver: _Resolver) -> PyConstruct | None:
    if name in _SIMPLE:
        return _SIMPLE[name]
    if name in _SUBPROCESS_SHELL_ARG:
        shell = _argument(call, 8, "shell")
        command = _argument(call, 0, "args")
        if shell is not None and _may_be_true(shell) and command is not None and not _literal(command):
            return PyConstruct.SHELL
        return None
    if name in _ALWAYS_SHELL:
        command = _argument(call, 0, "cmd")
        return PyConstruct.SHELL if command is not None and not _literal(command) else None
    if name in _PICKLE:
        return PyConstruct.PICKLE
    if name in _YAML_UNSAFE or (name in _YAML_LOADS and not _loader_is_safe(call, resolver)):
        return PyConstruct.YAML
    if name in _IMPORTERS:
        module = _argument(call, 0, "name")
        if module is not None and not (isinstance(module, ast.Constant) and isinstance(module.value, str)):
            return PyConstruct.IMPORT
    return None


def python_constructs(
    tree: ast.Module, *, whole: bool = True, lines: Sequence[int] | None = None
) -> list[Found]:
    """Dangerous calls of a parsed module (or, `whole=False`, of a piece of one), in source order;
    with `lines` (sorted), only calls whose span holds one of those lines."""
    resolver = _Resolver(tree, whole=whole)
    found: list[Found] = []
    for node in _calls(tree, lines):
        resolved = resolver.name(node.func)
        name = None if resolved is None else resolved.removeprefix("builtins.")
        construct = None if name is None else _judge(node, name, resolver)
        if name is not None and construct is not None:
            end = node.end_lineno if node.end_lineno is not None else node.lineno
            found.append(Found(construct, name, node.lineno, end))
    return sorted(found, key=lambda f: (f.line, f.end_line, f.construct.value))


def name_resolver(tree: ast.Module) -> Callable[[ast.expr], str | None]:
    """What a name or attribute chain of the module stands for through its imports, as dangerous
    calls are resolved (`pt.mark.skip` after `import pytest as pt` is `pytest.mark.skip`; a name the
    module binds itself, or never imports, is `<local>.NAME`)."""
    return _Resolver(tree, whole=True).name

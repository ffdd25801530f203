"""Dangerous constructs in Python, decided on the syntax tree.

Calls are resolved as Python resolves them: identifiers are NFKC-normalized by the parser (`ｅｖａｌ`
is `eval`), parentheses and backslash continuations are not in the tree, and a function is followed
through the module's imports (`import os as o`, `from pickle import loads as lp`), through names
assigned it (`e = eval`, `run = os.system`, `(e := eval)(x)`, wherever the assignment is), through
`getattr(module, "name")` (with the name a string constant, also one built by `+`), `builtins` and
`__builtins__`, `sys.modules["os"]`, and the modules `__import__("os")` and
`importlib.import_module("os")` return. A name the module defines itself (`def eval`) is not the
builtin. Strings and comments that merely mention `eval` are not calls, so they never match.
"""

from __future__ import annotations

import ast
import builtins
from bisect import bisect_left
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
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
# Calls that run a program with arguments, which run a command through a shell when the program is
# one (`["sh", "-c", cmd]`, `os.execl("/bin/sh", "sh", "-c", cmd)`).
_EXEC_FAMILY = frozenset(
    {
        *(f"os.exec{s}" for s in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")),
        *(f"os.spawn{s}" for s in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")),
        "os.posix_spawn",
        "os.posix_spawnp",
        "pty.spawn",
        "asyncio.create_subprocess_exec",
    }
)
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "csh", "tcsh", "fish", "mksh"})
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
    "os.popen": PyConstruct.OS_SYSTEM,
}
_IMPORTERS = frozenset({"__import__", "importlib.__import__"})
# Every name `_judge` can find a construct for: a call whose function resolves to none of these is
# never reported (pyselect.py relies on this to leave the rest of a file unparsed).
DANGEROUS_CALLS = frozenset(
    {
        *_SIMPLE,
        *_SUBPROCESS_SHELL_ARG,
        *_EXEC_FAMILY,
        *_ALWAYS_SHELL,
        *_PICKLE,
        *_YAML_LOADS,
        *_YAML_UNSAFE,
        *_IMPORTERS,
    }
)
# What a call resolves to that is dangerous, or returns a module or attribute (`getattr`, an importer).
LEADING_CALLS = DANGEROUS_CALLS | {"importlib.import_module", "getattr"}
# A name worth remembering when assigned: a dangerous call, or a module (or attribute) that leads to one.
_LEADS_TO = frozenset(
    ".".join(parts[:n])
    for name in (*LEADING_CALLS, "builtins.eval", "sys.modules.x")
    for parts in (name.split("."),)
    for n in range(1, len(parts) + 1)
)
LEADS_TO = _LEADS_TO
# What a subscript with a string reads a builtin from (`__builtins__["eval"]`, which is a dict
# outside `__main__`; a bare `__dict__`).
_BUILTIN_DICTS = ("builtins", "__dict__")


def _namespace(resolved: str) -> str | None:
    """The module whose names a resolved expression holds as a dict, if it is one: `os.__dict__`
    (also `vars(os)`) holds os's, so `os.__dict__["system"]` is `os.system`."""
    if resolved in _BUILTIN_DICTS:
        return "builtins"
    return resolved.removesuffix(".__dict__") if resolved.endswith(".__dict__") else None


def _leads(resolved: str) -> bool:
    """Whether a name standing for `resolved` can lead to a dangerous call (a dangerous name, a
    module or attribute one can be read from, or such a module's dict)."""
    return resolved.removesuffix(".__dict__").removeprefix("builtins.") in _LEADS_TO


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
    return _imports_in(_statements(tree, into_scopes=True))


def _imports_in(statements: Iterable[ast.stmt]) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for node in statements:
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


def spans_a_line(node: ast.AST, lines: Sequence[int]) -> bool:
    """Whether the node (a statement with its decorators, or an expression) spans one of `lines`
    (sorted); any other node is taken to."""
    if not isinstance(node, ast.stmt | ast.expr):
        return True
    decorators = getattr(node, "decorator_list", None)
    start = decorators[0].lineno if decorators else node.lineno
    first = bisect_left(lines, start)
    return first < len(lines) and lines[first] <= (node.end_lineno or node.lineno)


def _calls(tree: ast.Module, lines: Sequence[int] | None) -> Iterator[ast.Call]:
    """Every call, in no particular order; with `lines` (sorted), only calls in the subtrees that
    span one of those lines are looked for, so a small change to a large file walks little."""
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if lines is not None and not spans_a_line(node, lines):
            continue
        if isinstance(node, ast.Call):
            yield node
        for field in _child_fields(type(node).__name__):
            value = getattr(node, field, None)
            if isinstance(value, list):
                pending.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                pending.append(value)


def _string(node: ast.expr) -> str | None:
    """The value of a string constant, also one built by `+` of constants or an f-string without fields."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _string(node.left), _string(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        parts = [_string(v) for v in node.values]
        return None if None in parts else "".join(p for p in parts if p is not None)
    return None


class Resolver:
    """Names as the module's imports and assignments define them. Without the whole module
    (`whole=False`: one line judged alone), a name that is neither bound nor imported is taken to
    be the module it spells."""

    def __init__(self, tree: ast.Module, *, whole: bool) -> None:
        statements = list(_statements(tree, into_scopes=True))  # walked once for both
        self.aliases = _imports_in(statements)
        self.bound = _module_bindings(tree)
        self.whole = whole
        self.assigned: dict[str, str] = {}
        for statement in statements:
            for target, value in _assignments(statement):
                resolved = self._resolve(value)
                if resolved is not None and _leads(resolved):
                    self.assigned[target] = resolved

    def _named(self, name: str) -> str:
        if name in self.aliases:
            return self.aliases[name]
        if name in self.assigned:
            return self.assigned[name]
        if name == "__builtins__":
            return "builtins"
        if name in self.bound or (self.whole and name not in _BUILTINS):
            return f"<local>.{name}"
        return name

    def name(self, node: ast.expr) -> str | None:
        """The dotted name an expression stands for (`o.system` → `os.system`, `builtins.eval` →
        `eval`), or None."""
        resolved = self._resolve(node)
        return None if resolved is None else resolved.removeprefix("builtins.")

    def _resolve(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return self._named(node.id)
        if isinstance(node, ast.Attribute):
            base = self._resolve(node.value)
            return None if base is None else f"{base}.{node.attr}"
        if isinstance(node, ast.NamedExpr):
            return self._resolve(node.value)
        if isinstance(node, ast.Subscript):
            return self._item(node)
        if isinstance(node, ast.Call):
            return self._returned(node)
        return None

    def _item(self, node: ast.Subscript) -> str | None:
        """`sys.modules["os"]` is `os`; `builtins.__dict__["eval"]` and `__builtins__["eval"]`, eval;
        `vars(os)["system"]`, `os.system`."""
        key = _string(node.slice)
        base = self._resolve(node.value)
        if key is None or base is None:
            return None
        return key if base == "sys.modules" else self._in_namespace(base, key)

    @staticmethod
    def _in_namespace(base: str, key: str) -> str | None:
        namespace = _namespace(base)
        return None if namespace is None else f"{namespace}.{key}"

    def _returned(self, call: ast.Call) -> str | None:
        """What a call returns, when it is a module or a module's attribute: `__import__("os")`,
        `importlib.import_module("os")`, `getattr(os, "system")`, `vars(os)` (os's dict) and
        `vars(os).get("system")`."""
        if isinstance(call.func, ast.Attribute) and call.func.attr == "get" and call.args:
            base, key = self._resolve(call.func.value), _string(call.args[0])
            if base is not None and key is not None and _namespace(base) is not None:
                return self._in_namespace(base, key)
        function = self.name(call.func)
        if function == "vars" and len(call.args) == 1:
            base = self._resolve(call.args[0])
            return None if base is None else f"{base}.__dict__"
        if function in ("__import__", "importlib.__import__", "importlib.import_module") and call.args:
            module = _string(call.args[0])
            if module is None:
                return None
            return module.split(".", 1)[0] if function != "importlib.import_module" else module
        if function == "getattr" and len(call.args) >= 2:
            base, attribute = self._resolve(call.args[0]), _string(call.args[1])
            return None if base is None or attribute is None else f"{base}.{attribute}"
        return None


def _assignments(statement: ast.stmt) -> Iterator[tuple[str, ast.expr]]:
    """(name, value) of each name a statement assigns a whole value (`e = eval`, `a, b = x, y`)."""
    if isinstance(statement, ast.Assign):
        pairs = [(t, statement.value) for t in statement.targets]
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        pairs = [(statement.target, statement.value)]
    else:
        return
    while pairs:
        target, value = pairs.pop()
        if isinstance(target, ast.Name):
            yield target.id, value
        elif isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
            pairs.extend(zip(target.elts, value.elts, strict=False))


def argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    """The call's argument at `position` or named `keyword`; None when absent or behind a `*args`."""
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


def _loader_is_safe(call: ast.Call, resolver: Resolver) -> bool:
    loader = argument(call, 1, "Loader")
    if loader is None:
        return False
    name = resolver.name(loader)
    return name is not None and name.rsplit(".", 1)[-1] in _SAFE_LOADERS


def _argv(call: ast.Call) -> list[ast.expr]:
    """A call's positional arguments with lists and tuples spread out, then its `args=`."""
    out: list[ast.expr] = []
    for argument in (*call.args, *(kw.value for kw in call.keywords if kw.arg == "args")):
        out.extend(argument.elts if isinstance(argument, ast.List | ast.Tuple) else (argument,))
    return out


def _shell_command(call: ast.Call) -> bool:
    """Whether a call runs a shell with `-c` and a command that is not fixed in the source:
    `["sh", "-c", cmd]`, `("/bin/bash", "-ec", cmd)`."""
    argv = _argv(call)
    for index, argument in enumerate(argv):
        program = _string(argument)
        if program is None or program.rsplit("/", 1)[-1] not in _SHELLS:
            continue
        for after in range(index + 1, len(argv)):
            option = _string(argv[after])
            if option is None or not option.startswith("-") or option.startswith("--"):
                break
            if "c" in option:
                command = argv[after + 1] if after + 1 < len(argv) else None
                return command is None or not _literal(command)
    return False


def _judge(call: ast.Call, name: str, resolver: Resolver) -> PyConstruct | None:
    if name in _SIMPLE:
        return _SIMPLE[name]
    if name in _SUBPROCESS_SHELL_ARG:
        shell = argument(call, 8, "shell")
        command = argument(call, 0, "args")
        if shell is not None and _may_be_true(shell) and command is not None and not _literal(command):
            return PyConstruct.SHELL
        return PyConstruct.SHELL if _shell_command(call) else None
    if name in _EXEC_FAMILY:
        return PyConstruct.SHELL if _shell_command(call) else None
    if name in _ALWAYS_SHELL:
        command = argument(call, 0, "cmd")
        return PyConstruct.SHELL if command is not None and not _literal(command) else None
    if name in _PICKLE:
        return PyConstruct.PICKLE
    if name in _YAML_UNSAFE or (name in _YAML_LOADS and not _loader_is_safe(call, resolver)):
        return PyConstruct.YAML
    if name in _IMPORTERS:
        module = argument(call, 0, "name")
        if module is not None and not (isinstance(module, ast.Constant) and isinstance(module.value, str)):
            return PyConstruct.IMPORT
    return None


Fixed = Callable[[], Container[tuple[int, int]]]
"""(line, column) of the names that can only hold a string fixed in the source (pyfixed.py)."""


def _fixed_argument(call: ast.Call, fixed: Fixed) -> bool:
    module = argument(call, 0, "name")
    return isinstance(module, ast.Name) and (module.lineno, module.col_offset) in fixed()


def python_constructs(
    tree: ast.Module,
    *,
    whole: bool = True,
    lines: Sequence[int] | None = None,
    resolver: Resolver | None = None,
    fixed: Fixed | None = None,
) -> list[Found]:
    """Dangerous calls of a parsed module (or, `whole=False`, of a piece of one), in source order;
    with `lines` (sorted), only calls whose span holds one of those lines. `resolver`: the whole
    module's, when already built (`resolver_of`). An importer given one of the `fixed` names (asked
    for only then) is judged as if given the literals it can hold."""
    resolver = Resolver(tree, whole=whole) if resolver is None else resolver
    found: list[Found] = []
    for node in _calls(tree, lines):
        name = resolver.name(node.func)
        construct = None if name is None else _judge(node, name, resolver)
        if construct is PyConstruct.IMPORT and fixed is not None and _fixed_argument(node, fixed):
            construct = None
        if name is not None and construct is not None:
            end = node.end_lineno if node.end_lineno is not None else node.lineno
            found.append(Found(construct, name, node.lineno, end))
    return sorted(found, key=lambda f: (f.line, f.end_line, f.construct.value))


def name_resolver(tree: ast.Module) -> Callable[[ast.expr], str | None]:
    """What a name or attribute chain of the module stands for through its imports, as dangerous
    calls are resolved (`pt.mark.skip` after `import pytest as pt` is `pytest.mark.skip`; a name the
    module binds itself, or never imports, is `<local>.NAME`)."""
    return resolver_of(tree).name


def resolver_of(tree: ast.Module) -> Resolver:
    """How the names of a whole module resolve."""
    return Resolver(tree, whole=True)


def leading_names(resolver: Resolver) -> dict[str, str]:
    """The names a module's imports and assignments (`resolver_of`) make stand for what can lead to
    a dangerous call (`o` → `os` after `import os as o`, `e` → `eval` after `e = eval`), and what
    each stands for (with `builtins.` where the name reaches a builtin through that module)."""
    imported = {
        name: target
        for name, target in resolver.aliases.items()
        if _leads(target) or target in _BUILTIN_DICTS
    }
    return imported | resolver.assigned


def every_statement(tree: ast.Module) -> Iterator[ast.stmt]:
    """Every statement of the module, in function and class bodies too, in source order."""
    return _statements(tree, into_scopes=True)


def calls_on_lines(tree: ast.Module, lines: Sequence[int]) -> Iterator[ast.Call]:
    """Every call in the subtrees that span one of `lines` (sorted), in no particular order."""
    return _calls(tree, lines)

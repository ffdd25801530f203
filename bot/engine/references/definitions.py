"""What one Python module defines: its top-level names, its classes' members, as read off the tree.

Every way a module-level statement binds a name counts (def, class, import, assignment, `for`,
`with`, `except … as`, `global` in a function …), including inside `if`/`try` blocks; a name with
more than one binding is known to exist, but nothing more is assumed about it.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from bot.engine.references.signature import dotted_name
from bot.engine.tokens import parse_python

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
SCOPES = (*DEFS, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_NESTED = (ast.stmt, *SCOPES)
_DYNAMIC_MEMBERS = ("__getattr__", "__getattribute__")
DATACLASS = frozenset({"dataclass", "dataclasses.dataclass"})


class Kind(StrEnum):
    FUNCTION = "function"
    CLASS = "class"
    FROM = "from"  # from MODULE import NAME
    IMPORT = "import"  # import MODULE (bound to its first component, or to its alias)
    VALUE = "value"  # anything else: an assignment (`value` when it has one target), a loop, …


@dataclass(frozen=True, slots=True)
class Binding:
    kind: Kind
    line: int
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None = None
    module: str = ""
    name: str = ""
    level: int = 0
    value: ast.expr | None = None


@dataclass(frozen=True, slots=True)
class Star:
    """`from MODULE import *`."""

    level: int
    module: str


@dataclass(frozen=True, slots=True)
class ClassInfo:
    qualname: str
    node: ast.ClassDef
    members: Mapping[str, tuple[Binding, ...]]
    instance_attributes: frozenset[str]
    dynamic: bool  # members may come from somewhere this cannot see: __getattr__, a metaclass, a decorator


@dataclass(frozen=True, slots=True)
class ModuleInfo:
    path: str
    bindings: Mapping[str, tuple[Binding, ...]]
    stars: tuple[Star, ...]
    classes: Mapping[str, ClassInfo]  # top-level classes and the classes nested in them, by qualname
    exports: frozenset[str] | None  # `__all__`, when it is a literal list of strings

    @property
    def dynamic(self) -> bool:
        """A module-level `__getattr__` answers for names it does not bind."""
        return "__getattr__" in self.bindings


def child_statements(node: ast.AST) -> Iterator[ast.stmt]:
    """The statements directly inside a compound statement (its bodies, handlers and cases)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            yield child
        elif isinstance(child, ast.ExceptHandler | ast.match_case):
            yield from (c for c in ast.iter_child_nodes(child) if isinstance(c, ast.stmt))


def block_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of a block, nested `if`/`try`/`with`/`for` bodies included, not the bodies
    of the functions and classes it defines."""
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        yield stmt
        if not isinstance(stmt, DEFS):
            stack.extend(reversed(list(child_statements(stmt))))


def _name_bound(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id if isinstance(node.ctx, ast.Store | ast.Del) else None
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
        return node.name
    return node.rest if isinstance(node, ast.MatchMapping) else None


def stored_names(node: ast.AST) -> Iterator[str]:
    """The names `node` itself binds (not its nested statements or scopes)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _NESTED):
            continue
        name = _name_bound(child)
        if name:
            yield name
        yield from stored_names(child)


def statement_bindings(stmt: ast.stmt) -> Iterator[tuple[str, Binding]]:
    line = stmt.lineno
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        yield stmt.name, Binding(Kind.FUNCTION, line, stmt)
    elif isinstance(stmt, ast.ClassDef):
        yield stmt.name, Binding(Kind.CLASS, line, stmt)
    elif isinstance(stmt, ast.Import):
        for alias in stmt.names:
            module = alias.name if alias.asname else alias.name.partition(".")[0]
            yield alias.asname or module, Binding(Kind.IMPORT, line, module=module)
    elif isinstance(stmt, ast.ImportFrom):
        for alias in stmt.names:
            binding = Binding(Kind.FROM, line, module=stmt.module or "", name=alias.name, level=stmt.level)
            yield alias.asname or alias.name, binding
    elif isinstance(stmt, ast.Assign | ast.AnnAssign) and isinstance(
        target := stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target, ast.Name
    ):
        single = isinstance(stmt, ast.AnnAssign) or len(stmt.targets) == 1
        yield target.id, Binding(Kind.VALUE, line, value=stmt.value if single else None)
        for extra in stmt.targets[1:] if isinstance(stmt, ast.Assign) else ():
            yield from (
                (n, Binding(Kind.VALUE, line)) for n in (_name_bound(extra), *stored_names(extra)) if n
            )
    else:
        yield from ((n, Binding(Kind.VALUE, line)) for n in stored_names(stmt))


def block_bindings(body: list[ast.stmt]) -> tuple[dict[str, tuple[Binding, ...]], tuple[Star, ...]]:
    found: dict[str, list[Binding]] = {}
    stars: list[Star] = []
    for stmt in block_statements(body):
        for name, binding in statement_bindings(stmt):
            if name == "*":
                stars.append(Star(binding.level, binding.module))
            else:
                found.setdefault(name, []).append(binding)
    return {name: tuple(sites) for name, sites in found.items()}, tuple(stars)


def _first_parameter(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    positional = [*node.args.posonlyargs, *node.args.args]
    return positional[0].arg if positional else None


def _instance_attributes(node: ast.ClassDef, members: Mapping[str, tuple[Binding, ...]]) -> frozenset[str]:
    """`self.x = …` in any method, and the names `__slots__` lists."""
    found: set[str] = set()
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and (me := _first_parameter(stmt)):
            found.update(
                n.attr
                for n in ast.walk(stmt)
                if isinstance(n, ast.Attribute)
                and isinstance(n.ctx, ast.Store)
                and isinstance(n.value, ast.Name)
                and n.value.id == me
            )
    slots = members.get("__slots__", ())
    value = slots[0].value if len(slots) == 1 else None
    if isinstance(value, ast.Tuple | ast.List):
        found.update(e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return frozenset(found)


def _class_dynamic(node: ast.ClassDef, members: Mapping[str, tuple[Binding, ...]]) -> bool:
    decorators = {dotted_name(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list}
    return bool(decorators - DATACLASS) or bool(node.keywords) or any(m in members for m in _DYNAMIC_MEMBERS)


def _classes(body: list[ast.stmt], prefix: str) -> Iterator[ClassInfo]:
    for stmt in block_statements(body):
        if isinstance(stmt, ast.ClassDef):
            qualname = prefix + stmt.name
            members, _ = block_bindings(stmt.body)
            yield ClassInfo(
                qualname,
                stmt,
                members,
                _instance_attributes(stmt, members),
                _class_dynamic(stmt, members),
            )
            yield from _classes(stmt.body, qualname + ".")


def _exports(bindings: Mapping[str, tuple[Binding, ...]]) -> frozenset[str] | None:
    sites = bindings.get("__all__", ())
    value = sites[0].value if len(sites) == 1 else None
    if not isinstance(value, ast.List | ast.Tuple):
        return None
    names = [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return frozenset(names) if len(names) == len(value.elts) else None


def _class_header(node: ast.ClassDef) -> ast.ClassDef:
    header = copy.copy(node)
    header.body = [s for s in node.body if isinstance(s, ast.AnnAssign)]
    return header


def _compact(binding: Binding) -> Binding:
    """The binding without what no caller sees: a def's body, a class's statements but its fields
    (a dataclass's constructor reads them), of a value all but the callable it calls. Read modules
    stay in memory to the end of the check; their bodies would hold most of it."""
    node = binding.node
    if isinstance(node, ast.ClassDef):
        return replace(binding, node=_class_header(node))
    if node is not None:
        header = copy.copy(node)
        header.body = []
        return replace(binding, node=header)
    if binding.value is not None:
        value = binding.value
        return replace(binding, value=ast.Call(value.func, [], []) if isinstance(value, ast.Call) else None)
    return binding


def _compacted(bindings: Mapping[str, tuple[Binding, ...]]) -> dict[str, tuple[Binding, ...]]:
    return {name: tuple(_compact(b) for b in sites) for name, sites in bindings.items()}


def read_module(path: str, text: str) -> tuple[ast.Module, ModuleInfo] | None:
    """The parsed module and what it defines, or None when it does not parse."""
    tree = parse_python(text)
    if tree is None:
        return None
    info = described(path, tree, globals_possible="global" in text)
    return (tree, info) if info is not None else None


def described(path: str, tree: ast.Module, *, globals_possible: bool) -> ModuleInfo | None:
    """What the statements of `tree` define (None when they nest too deeply to read);
    `globals_possible` is False when the text says `global` nowhere."""
    try:
        bindings, stars = block_bindings(tree.body)
        classes = {c.qualname: c for c in _classes(tree.body, "")}
    except RecursionError:  # an expression nested deeper than the interpreter's stack
        return None
    for node in ast.walk(tree) if globals_possible else ():  # walking every node costs; few modules say it
        if isinstance(node, ast.Global):
            for name in node.names:
                bindings[name] = (*bindings.get(name, ()), Binding(Kind.VALUE, node.lineno))
    compact = {
        q: replace(c, node=_class_header(c.node), members=_compacted(c.members)) for q, c in classes.items()
    }
    return ModuleInfo(path, _compacted(bindings), stars, compact, _exports(bindings))


def module_info(path: str, text: str) -> ModuleInfo | None:
    """What `text` defines, or None when it does not parse."""
    read = read_module(path, text)
    return read[1] if read is not None else None

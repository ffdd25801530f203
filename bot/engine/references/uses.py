"""The references one module makes: names and attribute chains it reads, calls, and imports, each
with the scope it is looked up in, so that a local name that shadows an import is seen as local.

Scopes follow Python's rules: a name bound anywhere in a function is local to all of it unless
declared `global`/`nonlocal`; a class body's names are not visible in its methods; comprehensions
and lambdas are scopes of their own; decorators, defaults and base classes are evaluated in the
enclosing scope. Only references that mention one of `interesting` names are recorded.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from bot.engine.references.definitions import Binding, Kind, statement_bindings
from bot.engine.references.signature import Flavor, dotted_name, flavor


class ScopeKind(StrEnum):
    MODULE = "module"
    FUNCTION = "function"
    CLASS = "class"
    COMPREHENSION = "comprehension"


@dataclass(frozen=True, slots=True)
class Site:
    """One local binding of a name, with what it says about the value."""

    binding: Binding
    annotation: ast.expr | None = None  # a parameter's annotation
    self_of: str | None = None  # the first parameter of a method: an instance of this class
    cls_of: str | None = None  # the first parameter of a classmethod: this class


@dataclass(eq=False)
class Scope:
    kind: ScopeKind
    parent: Scope | None
    qualname: str | None = None  # a class scope: the class's qualified name, when it has one
    sites: dict[str, list[Site]] = field(default_factory=dict)
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)

    def bind(self, name: str, site: Site) -> None:
        self.sites.setdefault(name, []).append(site)


@dataclass(frozen=True, slots=True)
class Use:
    """`a.b.c` read (and called, when `call` is set) at `line`:`column`, looked up in `scope`."""

    line: int
    column: int
    chain: tuple[str, ...]
    call: ast.Call | None
    scope: Scope
    guards: frozenset[str]


@dataclass(frozen=True, slots=True)
class ImportUse:
    """`from MODULE import NAME` (or `import MODULE`, with `name` None)."""

    line: int
    column: int
    level: int
    module: str
    name: str | None
    guards: frozenset[str]


@dataclass(frozen=True, slots=True)
class DynamicUse:
    """`getattr(x, "name")` with a name that changed: not followed, only noted."""

    line: int
    name: str


def _chain(node: ast.expr) -> tuple[str, ...] | None:
    name = dotted_name(node)
    return tuple(name.split(".")) if name is not None else None


def _caught(handlers: list[ast.ExceptHandler]) -> frozenset[str]:
    names: set[str] = set()
    for handler in handlers:
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        for kind in kinds:
            name = dotted_name(kind) if kind is not None else "BaseException"
            names.add((name or "").rpartition(".")[2])
    return frozenset(names)


TYPE_CHECKING = "TYPE_CHECKING"  # a guard: the body is for type checkers only


class UsesWalker(ast.NodeVisitor):
    def __init__(self, interesting: frozenset[str]) -> None:
        self.interesting = interesting
        self.module = Scope(ScopeKind.MODULE, None)
        self.scope = self.module
        self.guards: frozenset[str] = frozenset()
        self.uses: list[Use] = []
        self.imports: list[ImportUse] = []
        self.dynamic: list[DynamicUse] = []

    # -- scopes

    def _in(self, scope: Scope, nodes: list[ast.stmt] | list[ast.expr]) -> None:
        outer, self.scope = self.scope, scope
        for node in nodes:
            self.visit(node)
        self.scope = outer

    def _bind_parameters(self, scope: Scope, args: ast.arguments, first: Site | None) -> None:
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        every += [a for a in (args.vararg, args.kwarg) if a is not None]
        for n, arg in enumerate(every):
            site = Site(Binding(Kind.VALUE, arg.lineno), annotation=arg.annotation)
            scope.bind(arg.arg, first if n == 0 and first is not None else site)

    def _visit_signature(self, args: ast.arguments) -> None:
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self.visit(default)
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None and arg.annotation is not None:
                self.visit(arg.annotation)

    def _first_site(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Site | None:
        owner = self.scope.qualname if self.scope.kind is ScopeKind.CLASS else None
        kind = flavor(node.decorator_list)
        if owner is None or not [*node.args.posonlyargs, *node.args.args]:
            return None
        binding = Binding(Kind.VALUE, node.lineno)
        if kind is Flavor.PLAIN:
            return Site(binding, self_of=owner)
        return Site(binding, cls_of=owner) if kind is Flavor.CLASS else None

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._visit_signature(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        self.scope.bind(node.name, Site(Binding(Kind.FUNCTION, node.lineno, node)))
        inner = Scope(ScopeKind.FUNCTION, self.scope)
        self._bind_parameters(inner, node.args, self._first_site(node))
        self._in(inner, node.body)

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._visit_signature(node.args)
        inner = Scope(ScopeKind.FUNCTION, self.scope)
        self._bind_parameters(inner, node.args, None)
        self._in(inner, [node.body])

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr)
        self.scope.bind(node.name, Site(Binding(Kind.CLASS, node.lineno, node)))
        outer = self.scope
        qualname = {ScopeKind.MODULE: node.name}.get(outer.kind)
        if outer.kind is ScopeKind.CLASS and outer.qualname is not None:
            qualname = f"{outer.qualname}.{node.name}"
        self._in(Scope(ScopeKind.CLASS, outer, qualname), node.body)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        first, *rest = node.generators
        self.visit(first.iter)
        inner = Scope(ScopeKind.COMPREHENSION, self.scope)
        parts: list[ast.expr] = [first.target, *first.ifs]
        for generator in rest:
            parts += [generator.iter, generator.target, *generator.ifs]
        parts += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        self._in(inner, parts)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    # -- bindings

    def visit_Global(self, node: ast.Global) -> None:
        self.scope.declared_global.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.scope.declared_nonlocal.update(node.names)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        target = node.targets[0]
        if len(node.targets) == 1 and isinstance(target, ast.Name):
            self.scope.bind(target.id, Site(Binding(Kind.VALUE, node.lineno, value=node.value)))
            return
        for each in node.targets:
            self.visit(each)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        scope = self.scope
        while scope.kind is ScopeKind.COMPREHENSION:
            assert scope.parent is not None  # a comprehension always sits in a scope
            scope = scope.parent
        scope.bind(node.target.id, Site(Binding(Kind.VALUE, node.lineno)))

    def _bind_named(self, node: ast.ExceptHandler | ast.MatchAs | ast.MatchStar) -> None:
        if node.name:
            self.scope.bind(node.name, Site(Binding(Kind.VALUE, node.lineno)))
        self.generic_visit(node)

    visit_ExceptHandler = visit_MatchAs = visit_MatchStar = _bind_named

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self.scope.bind(node.rest, Site(Binding(Kind.VALUE, node.lineno)))
        self.generic_visit(node)

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        for bound, binding in statement_bindings(node):
            if bound != "*":
                self.scope.bind(bound, Site(binding))
        found: list[tuple[int, str, str | None]]
        if isinstance(node, ast.Import):
            found = [(0, alias.name, None) for alias in node.names]
        else:
            found = [(node.level, node.module or "", a.name if a.name != "*" else None) for a in node.names]
        for level, module, name in found:
            if self._mentions(*module.split("."), name or ""):
                self.imports.append(ImportUse(node.lineno, node.col_offset, level, module, name, self.guards))

    visit_Import = visit_ImportFrom = _import

    def _try(self, node: ast.Try | ast.TryStar) -> None:
        outer = self.guards
        self.guards = outer | _caught(node.handlers)
        for stmt in node.body:
            self.visit(stmt)
        self.guards = outer
        for part in [*node.handlers, *node.orelse, *node.finalbody]:
            self.visit(part)

    visit_Try = visit_TryStar = _try

    def visit_If(self, node: ast.If) -> None:
        """`if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`, `t.TYPE_CHECKING`): what its body
        imports and names is read by type checkers, never run."""
        test = node.test
        name = (
            test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else None
        )
        if name != TYPE_CHECKING:
            self.generic_visit(node)
            return
        self.visit(node.test)
        outer = self.guards
        self.guards = outer | {TYPE_CHECKING}
        for stmt in node.body:
            self.visit(stmt)
        self.guards = outer
        for stmt in node.orelse:
            self.visit(stmt)

    # -- references

    def _mentions(self, *names: str) -> bool:
        return not self.interesting.isdisjoint(names)

    def _use(self, node: ast.expr, chain: tuple[str, ...], call: ast.Call | None) -> None:
        if self._mentions(*chain):
            self.uses.append(Use(node.lineno, node.col_offset, chain, call, self.scope, self.guards))

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._use(node, (node.id,), None)
        else:
            self.scope.bind(node.id, Site(Binding(Kind.VALUE, node.lineno)))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain = _chain(node)
        if chain is None or not isinstance(node.ctx, ast.Load):
            self.generic_visit(node)
            return
        self._use(node, chain, None)

    def visit_Call(self, node: ast.Call) -> None:
        chain = _chain(node.func)
        if chain is None:
            self.visit(node.func)
        else:
            self._use(node.func, chain, node)
        if chain == ("getattr",) and len(node.args) >= 2:
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str) and self._mentions(name.value):
                self.dynamic.append(DynamicUse(node.lineno, name.value))
        for part in [*node.args, *(k.value for k in node.keywords)]:
            self.visit(part)


def walk(tree: ast.Module, interesting: frozenset[str]) -> UsesWalker:
    """Every recorded reference of `tree`, after the whole module has been read (so every scope
    knows all of its bindings before any lookup)."""
    walker = UsesWalker(interesting)
    for stmt in tree.body:
        walker.visit(stmt)
    return walker


def local_scopes(scope: Scope) -> Iterator[Scope]:
    """`scope`, then the enclosing scopes a name read in it can come from, short of the module's:
    function scopes (a class body's names are not visible from the functions inside it)."""
    current: Scope | None = scope
    while current is not None and current.kind is not ScopeKind.MODULE:
        if current is scope or current.kind is not ScopeKind.CLASS:
            yield current
        current = current.parent

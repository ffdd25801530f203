"""Where a module keeps a value other than in a plain name: an object's attribute (`self.m = os`,
`setattr(self, "m", os)`) and an item of a container (`mods = {"o": os}`, `mods["o"] = os`,
`handlers.append(os.system)`), and the loops that take their names from one (`for m in (os,)`).
The resolver (pyconstructs.py) reads `self.m.system(cmd)` as `os.system(cmd)` from these.

What holds a value is named as the source spells it (`self.m`, `self.handlers`), so one spelling
stands for every object it may name: `self.m` of one class is `self.m` of another. An item stored
under a key the source does not fix (`d[k] = os`), or in a sequence, may be any item read; an item
read by a key the source does not fix may be any item stored. Each errs towards reading a call as
dangerous, never away from it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container, Iterator, Sequence
from typing import Any, NamedTuple

from bot.engine.references.signature import dotted_name as spelled

# The last part of an attribute set by a name the source does not fix (`setattr(o, name, v)`): any.
ANY_ATTRIBUTE = "*"


class Stored(NamedTuple):
    """`value` kept in `holder`: as the attribute `holder` (`attribute`), else as the item `key` of
    the container `holder` (None: a key not fixed in the source, or a sequence's)."""

    holder: str
    value: ast.expr
    attribute: bool = False
    key: str | None = None


class Returned(NamedTuple):
    """`value` returned by the function `function` (a `def`'s `return`, a lambda's body)."""

    function: str
    value: ast.expr


class Defaulted(NamedTuple):
    """A parameter's default: the name holds `value` unless a caller passes another."""

    name: str
    value: ast.expr


class Parameters(NamedTuple):
    """What a function the module defines names its parameters: the positional ones in order, every
    one a keyword can fill, and whether a call through an instance (`self.go(os)`) or through its
    class (`A.go(os)`, a class method) binds the first."""

    positional: tuple[str, ...]
    named: frozenset[str]
    span: tuple[int, int]  # the lines of the function's definition, where its parameters are read
    by_instance: bool = False
    by_class: bool = False
    rest: str | None = None  # `*rest`: the positional arguments past the others, as a tuple's items
    options: str | None = None  # `**options`: the keyword arguments no other takes, as a dict's


class Looped(NamedTuple):
    """A loop's name, bound in turn to each item of `items`."""

    name: str
    items: ast.expr


# Methods that put their argument at this position into a container (`l.append(x)`, `l.insert(0, x)`).
_ADDERS = {"append": 0, "appendleft": 0, "add": 0, "insert": 1, "put": 0, "put_nowait": 0}
# Methods that put every item of their argument into a container (`l.extend([x])`, `d.update(k=x)`).
_FILLERS = frozenset({"extend", "extendleft", "update"})
_STORING = frozenset({*_ADDERS, *_FILLERS, "setdefault"})


def fixed_key(node: ast.expr | None) -> str | None:
    """A key the source fixes: a string constant; None for any other."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def items_of(node: ast.expr) -> Iterator[tuple[str | None, ast.expr]]:
    """(key, value) of each item a display or `dict(...)` call holds: a dict's keys, None for a
    sequence's or set's items."""
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if key is not None:  # `**other`: what it holds is not in the source
                yield fixed_key(key), value
    elif isinstance(node, ast.List | ast.Tuple | ast.Set):
        for element in node.elts:
            yield None, element.value if isinstance(element, ast.Starred) else element
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        for keyword in node.keywords:
            if keyword.arg is not None:
                yield keyword.arg, keyword.value
        for argument in node.args:
            yield from items_of(argument)


def _targets_and_values(statement: ast.Assign | ast.AnnAssign) -> list[tuple[ast.expr, ast.expr]]:
    """(target, value) of each whole value an assignment binds, tuples unpacked (`a, b = x, y`)."""
    if isinstance(statement, ast.Assign):
        pairs = [(target, statement.value) for target in statement.targets]
    elif statement.value is not None:
        pairs = [(statement.target, statement.value)]
    else:
        return []
    found: list[tuple[ast.expr, ast.expr]] = []
    while pairs:
        target, value = pairs.pop()
        if isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
            pairs.extend(zip(target.elts, value.elts, strict=False))
        else:
            found.append((target, value))
    return found


# What most statements keep, bind or give: nothing (one shared empty answer: statements are many).
_NOTHING: tuple[()] = ()


def _single_name(statement: ast.Assign) -> ast.Name | None:
    """The target of `name = value`, the most common statement there is."""
    target = statement.targets[0] if len(statement.targets) == 1 else None
    return target if isinstance(target, ast.Name) else None


def assignments(statement: ast.stmt) -> Sequence[tuple[str, ast.expr]]:
    """(name, value) of each name a statement assigns a whole value (`e = eval`, `a, b = x, y`)."""
    if isinstance(statement, ast.Assign):
        single = _single_name(statement)
        if single is not None:
            return ((single.id, statement.value),)
    elif not isinstance(statement, ast.AnnAssign):
        return _NOTHING
    pairs = _targets_and_values(statement)
    return [(target.id, value) for target, value in pairs if isinstance(target, ast.Name)]


Kept = Stored | Looped | Returned | Defaulted


def stores(statement: ast.stmt) -> Sequence[Kept]:
    """Each value the statement keeps in an attribute or a container, the loop it starts, the
    defaults of the function it defines and what a lambda it assigns returns (a `def`'s `return`
    statements are its own: `Resolver` reads them with the function they are in)."""
    read = _READERS.get(type(statement))
    return _NOTHING if read is None else read(statement)


def _by_expression(statement: ast.Expr) -> Sequence[Kept]:
    return _stored_by_call(statement.value) if isinstance(statement.value, ast.Call) else _NOTHING


def _by_definition(statement: ast.FunctionDef | ast.AsyncFunctionDef) -> Sequence[Kept]:
    return _defaults(statement.args)


def _by_class(statement: ast.ClassDef) -> Sequence[Kept]:
    """What a class body assigns is the class's attribute, and its instances' (`A.m`, `self.m`,
    `cls.m`: an attribute is known by its spelling)."""
    return [
        Stored(f"{holder}.{name}", value, attribute=True)
        for inner in statement.body
        for name, value in assignments(inner)
        for holder in (statement.name, "self", "cls")
    ]


def _by_loop(statement: ast.For | ast.AsyncFor) -> Sequence[Kept]:
    target = statement.target
    return (Looped(target.id, statement.iter),) if isinstance(target, ast.Name) else _NOTHING


def _by_assignment(statement: ast.Assign | ast.AnnAssign) -> Sequence[Kept]:
    if isinstance(statement, ast.Assign) and _single_name(statement) and not _holds_values(statement.value):
        return _NOTHING
    kept: list[Kept] = []
    for target, value in _targets_and_values(statement):
        if isinstance(target, ast.Name) and isinstance(value, ast.Lambda):
            kept.append(Returned(target.id, value.body))
            kept.extend(_defaults(value.args))
        holder = spelled(target)
        if holder is not None:
            if isinstance(target, ast.Attribute):
                kept.append(Stored(holder, value, attribute=True))
            if _holds_values(value):
                kept.extend(Stored(holder, item, key=key) for key, item in items_of(value))
        elif isinstance(target, ast.Subscript):
            container = spelled(target.value)
            if container is not None:
                kept.append(Stored(container, value, key=fixed_key(target.slice)))
    return kept


_READERS: dict[type[ast.stmt], Callable[[Any], Sequence[Kept]]] = {  # by the statement's kind
    ast.Expr: _by_expression,
    ast.FunctionDef: _by_definition,
    ast.AsyncFunctionDef: _by_definition,
    ast.ClassDef: _by_class,
    ast.For: _by_loop,
    ast.AsyncFor: _by_loop,
    ast.Assign: _by_assignment,
    ast.AnnAssign: _by_assignment,
}


def _holds_values(value: ast.expr) -> bool:
    """Whether a value keeps values of its own: a display, `dict(...)`, a lambda."""
    if isinstance(value, ast.Call):
        return isinstance(value.func, ast.Name) and value.func.id == "dict"
    return isinstance(value, ast.Dict | ast.List | ast.Tuple | ast.Set | ast.Lambda)


def _defaults(arguments: ast.arguments) -> Sequence[Defaulted]:
    if not arguments.defaults and not arguments.kw_defaults:
        return _NOTHING
    positional = [*arguments.posonlyargs, *arguments.args]
    pairs = [
        *zip(reversed(positional), reversed(arguments.defaults), strict=False),
        *zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True),
    ]
    return [Defaulted(parameter.arg, default) for parameter, default in pairs if default is not None]


def _stored_by_call(call: ast.Call) -> Sequence[Stored]:
    """`setattr(o, "m", v)`, and a container's methods that put values in it."""
    function, args = call.func, call.args
    if isinstance(function, ast.Name):
        holder = spelled(args[0]) if function.id == "setattr" and len(args) == 3 else None
        if holder is None:
            return _NOTHING
        return (Stored(f"{holder}.{fixed_key(args[1]) or ANY_ATTRIBUTE}", args[2], attribute=True),)
    method = function.attr if isinstance(function, ast.Attribute) else ""
    container = (
        spelled(function.value) if method in _STORING and isinstance(function, ast.Attribute) else None
    )
    if container is None:
        return _NOTHING
    if method in _ADDERS:
        at = _ADDERS[method]
        return (Stored(container, args[at]),) if len(args) > at else _NOTHING
    if method == "setdefault":
        return (Stored(container, args[1], key=fixed_key(args[0])),) if len(args) == 2 else _NOTHING
    kept = [Stored(container, item, key=key) for argument in args for key, item in items_of(argument)]
    kept.extend(Stored(container, kw.value, key=kw.arg) for kw in call.keywords if kw.arg is not None)
    return kept


# The kinds of statement that can keep a value (a caller may skip `stores` for the others).
STORING = frozenset(_READERS)


# What a function is decorated with to take no `self` (`staticmethod`) or its class (`classmethod`).
_NO_SELF = "staticmethod"
_CLASS_FIRST = "classmethod"


def parameters(
    definition: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, *, method: bool
) -> Parameters:
    """The parameters of a function (`method`: defined in a class body, where a call through an
    instance binds the first to the instance, a class method's through its class too, and a
    static method's never)."""
    arguments = definition.args
    positional = tuple(a.arg for a in (*arguments.posonlyargs, *arguments.args))
    named = frozenset(a.arg for a in (*arguments.args, *arguments.kwonlyargs))
    span = (definition.lineno, definition.end_lineno or definition.lineno)
    rest = None if arguments.vararg is None else arguments.vararg.arg
    options = None if arguments.kwarg is None else arguments.kwarg.arg
    decorators = (
        set()
        if not method or isinstance(definition, ast.Lambda)
        else {d.id for d in definition.decorator_list if isinstance(d, ast.Name)}
    )
    bound = method and not isinstance(definition, ast.Lambda) and _NO_SELF not in decorators
    return Parameters(positional, named, span, bound, bound and _CLASS_FIRST in decorators, rest, options)


# A statement's fields that hold statements: their calls are those statements' own.
_BODIES = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})
# Fields that never hold a call: Load/Store markers, identifiers, operators, type comments.
NO_CALLS = frozenset(
    {"ctx", "id", "attr", "arg", "name", "names", "module", "level", "op", "ops", "type_comment"}
)
CHILDLESS = (ast.Name, ast.Constant)  # nodes with no child that could hold a call


class _Fields(dict[type, tuple[str, ...]]):
    """The fields of each node class that may hold a call, other than a statement's body."""

    def __missing__(self, kind: type) -> tuple[str, ...]:
        fields = tuple(f for f in getattr(kind, "_fields", ()) if f not in NO_CALLS and f not in _BODIES)
        self[kind] = fields
        return fields


_FIELDS = _Fields()


class Made(NamedTuple):
    """What a statement's own expressions hold that the resolver follows: calls with arguments,
    names bound by `:=`, comprehensions' loops and lambdas."""

    calls: list[ast.Call]
    walruses: list[ast.NamedExpr]
    loops: list[ast.comprehension]
    lambdas: list[ast.Lambda]


def made_in(statement: ast.stmt) -> Made:
    """What the statement's own expressions hold (not those of the statements in its body), a
    lambda's included; names and constants, most of a tree, are never entered."""
    made = Made([], [], [], [])
    pending: list[Any] = [getattr(statement, field) for field in _FIELDS[type(statement)]]
    pop, push, fields = pending.pop, pending.append, _FIELDS
    while pending:
        value = pop()
        if type(value) is list:
            pending.extend(value)
        elif isinstance(value, ast.AST) and not isinstance(value, CHILDLESS):
            if isinstance(value, ast.Call):
                if value.args or value.keywords:
                    made.calls.append(value)
            elif isinstance(value, ast.NamedExpr):
                made.walruses.append(value)
            elif isinstance(value, ast.comprehension):
                made.loops.append(value)
            elif isinstance(value, ast.Lambda):
                made.lambdas.append(value)
            for field in fields[type(value)]:
                push(getattr(value, field))
    return made


class Passed(NamedTuple):
    """A value a call passes a parameter: as its whole value, or (`item`) as an item of the tuple
    `*rest` or the dict `**options` holds, under `key` (None for a tuple's)."""

    parameter: str
    value: ast.expr
    item: bool = False
    key: str | None = None


def passed(call: ast.Call, receiver: Parameters, *, classes: Container[str]) -> Iterator[Passed]:
    """Each value the call passes a function with `receiver`'s parameters: by position (after the
    instance or class a method's call binds first: through a name of `classes`, the class;
    through anything else, or by a name, an instance; past the others, into `*rest`) and by
    keyword (else into `**options`); a display unpacked (`*(os, c)`, `**{"m": os}`) is read as
    its items. Anything else unpacked (`*args`) fills what the source does not say, so it and
    every positional argument after it are left out."""
    function = call.func
    through = function.value if isinstance(function, ast.Attribute) else None
    if isinstance(through, ast.Name) and through.id in classes:
        shifted = receiver.by_class
    else:  # through an instance, or a method bound to a name (`save = self.save; save(x)`)
        shifted = receiver.by_instance
    names = receiver.positional[1:] if shifted else receiver.positional
    for at, argument in enumerate(positional_arguments(call.args)):
        if argument is None:
            break
        if at < len(names):
            yield Passed(names[at], argument)
        elif receiver.rest is not None:
            yield Passed(receiver.rest, argument, item=True)
    for key, value in keyword_arguments(call.keywords):
        if key in receiver.named:
            yield Passed(key, value)
        elif receiver.options is not None:
            yield Passed(receiver.options, value, item=True, key=key)


def positional_arguments(arguments: list[ast.expr]) -> Iterator[ast.expr | None]:
    """The positional arguments, a display unpacked read as its items; None for anything else
    unpacked (what follows it is at no known position)."""
    for argument in arguments:
        if not isinstance(argument, ast.Starred):
            yield argument
        elif isinstance(argument.value, ast.Tuple | ast.List):
            yield from positional_arguments(argument.value.elts)
        else:
            yield None
            return


def keyword_arguments(keywords: list[ast.keyword]) -> Iterator[tuple[str, ast.expr]]:
    """(name, value) of the keyword arguments, a dict display unpacked read as its keys fixed in
    the source."""
    for keyword in keywords:
        if keyword.arg is not None:
            yield keyword.arg, keyword.value
        elif isinstance(keyword.value, ast.Dict):
            yield from ((k, v) for k, v in items_of(keyword.value) if k is not None)

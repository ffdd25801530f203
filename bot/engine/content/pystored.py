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
from collections.abc import Iterator
from dataclasses import dataclass


def spelled(node: ast.expr) -> str | None:
    """`self.handlers` for the attribute chain `self.handlers`; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


# The last part of an attribute set by a name the source does not fix (`setattr(o, name, v)`): any.
ANY_ATTRIBUTE = "*"


@dataclass(frozen=True, slots=True)
class Stored:
    """`value` kept in `holder`: as the attribute `holder` (`attribute`), else as the item `key` of
    the container `holder` (None: a key not fixed in the source, or a sequence's)."""

    holder: str
    value: ast.expr
    attribute: bool = False
    key: str | None = None


@dataclass(frozen=True, slots=True)
class Returned:
    """`value` returned by the function `function` (a `def`'s `return`, a lambda's body)."""

    function: str
    value: ast.expr


@dataclass(frozen=True, slots=True)
class Defaulted:
    """A parameter's default: the name holds `value` unless a caller passes another."""

    name: str
    value: ast.expr


@dataclass(frozen=True, slots=True)
class Looped:
    """A loop's name, bound in turn to each item of `items`."""

    name: str
    items: ast.expr


# Methods that put their argument at this position into a container (`l.append(x)`, `l.insert(0, x)`).
_ADDERS = {"append": 0, "appendleft": 0, "add": 0, "insert": 1, "put": 0, "put_nowait": 0}
# Methods that put every item of their argument into a container (`l.extend([x])`, `d.update(k=x)`).
_FILLERS = frozenset({"extend", "extendleft", "update"})


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


def _targets_and_values(statement: ast.stmt) -> Iterator[tuple[ast.expr, ast.expr]]:
    """(target, value) of each whole value an assignment binds, tuples unpacked (`a, b = x, y`)."""
    if isinstance(statement, ast.Assign):
        pairs = [(target, statement.value) for target in statement.targets]
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        pairs = [(statement.target, statement.value)]
    else:
        return
    while pairs:
        target, value = pairs.pop()
        if isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
            pairs.extend(zip(target.elts, value.elts, strict=False))
        else:
            yield target, value


def assignments(statement: ast.stmt) -> Iterator[tuple[str, ast.expr]]:
    """(name, value) of each name a statement assigns a whole value (`e = eval`, `a, b = x, y`)."""
    for target, value in _targets_and_values(statement):
        if isinstance(target, ast.Name):
            yield target.id, value


Kept = Stored | Looped | Returned | Defaulted


def stores(statement: ast.stmt) -> Iterator[Kept]:
    """Each value the statement keeps in an attribute or a container, the loop it starts, the
    defaults of the function it defines and what a lambda it assigns returns (a `def`'s `return`
    statements are its own: `Resolver` reads them with the function they are in)."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
        yield from _defaults(statement.args)
        return
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        yield from _stored_by_call(statement.value)
        return
    if isinstance(statement, ast.For | ast.AsyncFor):
        if isinstance(statement.target, ast.Name):
            yield Looped(statement.target.id, statement.iter)
        return
    for target, value in _targets_and_values(statement):
        if isinstance(target, ast.Name) and isinstance(value, ast.Lambda):
            yield Returned(target.id, value.body)
            yield from _defaults(value.args)
        holder = spelled(target)
        if holder is not None:
            if isinstance(target, ast.Attribute):
                yield Stored(holder, value, attribute=True)
            yield from (Stored(holder, item, key=key) for key, item in items_of(value))
        elif isinstance(target, ast.Subscript):
            container = spelled(target.value)
            if container is not None:
                yield Stored(container, value, key=fixed_key(target.slice))


def _defaults(arguments: ast.arguments) -> Iterator[Defaulted]:
    positional = [*arguments.posonlyargs, *arguments.args]
    for parameter, default in zip(reversed(positional), reversed(arguments.defaults), strict=False):
        yield Defaulted(parameter.arg, default)
    for parameter, given in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        if given is not None:
            yield Defaulted(parameter.arg, given)


def _stored_by_call(call: ast.Call) -> Iterator[Stored]:
    """`setattr(o, "m", v)`, and a container's methods that put values in it."""
    function, args = call.func, call.args
    if isinstance(function, ast.Name):
        holder = spelled(args[0]) if function.id == "setattr" and len(args) == 3 else None
        if holder is not None:
            yield Stored(f"{holder}.{fixed_key(args[1]) or ANY_ATTRIBUTE}", args[2], attribute=True)
        return
    container = spelled(function.value) if isinstance(function, ast.Attribute) else None
    if container is None or not isinstance(function, ast.Attribute):
        return
    method = function.attr
    if method in _ADDERS and len(args) > _ADDERS[method]:
        yield Stored(container, args[_ADDERS[method]])
    elif method == "setdefault" and len(args) == 2:
        yield Stored(container, args[1], key=fixed_key(args[0]))
    elif method in _FILLERS:
        for argument in args:
            yield from (Stored(container, item, key=key) for key, item in items_of(argument))
        for keyword in call.keywords:
            if keyword.arg is not None:
                yield Stored(container, keyword.value, key=keyword.arg)

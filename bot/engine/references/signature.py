"""A function's parameters as a call sees them, and whether a call fits them.

Only what can be read off the `def` line is known: a decorator that is not one of the few that
keep a function's signature (`staticmethod`, `functools.cache`, `abc.abstractmethod`, …) makes
the signature unknown, and an unknown signature is never checked.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from enum import StrEnum

# Decorators that leave the call signature as written (the module prefix is optional).
_KEEPS = frozenset({"cache", "lru_cache", "final", "override", "abstractmethod", "no_type_check"})
_KEEPS_FROM = frozenset({"", "functools", "typing", "typing_extensions", "abc"})
_PROPERTIES = frozenset({"property", "cached_property", "setter", "getter", "deleter"})


class Flavor(StrEnum):
    """How a function defined in a class body binds when it is looked up."""

    PLAIN = "plain"
    STATIC = "static"
    CLASS = "class"
    PROPERTY = "property"
    UNKNOWN = "unknown"  # a decorator that may change anything


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    required: bool
    positional_only: bool = False


@dataclass(frozen=True, slots=True)
class Signature:
    positional: tuple[Param, ...] = ()
    keyword_only: tuple[Param, ...] = ()
    varargs: bool = False
    varkw: bool = False

    def without_first(self) -> Signature:
        """The signature of the function bound to an instance (or a class, for a classmethod)."""
        if not self.positional:
            return self
        return Signature(self.positional[1:], self.keyword_only, self.varargs, self.varkw)


def dotted_name(node: ast.expr) -> str | None:
    """`a.b.c` for a chain of names and attributes, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def flavor(decorators: list[ast.expr]) -> Flavor:
    found = Flavor.PLAIN
    for decorator in decorators:
        name = dotted_name(decorator.func if isinstance(decorator, ast.Call) else decorator) or ""
        module, _, last = name.rpartition(".")
        if name == "staticmethod":
            found = Flavor.STATIC
        elif name == "classmethod":
            found = Flavor.CLASS
        elif last in _PROPERTIES:
            return Flavor.PROPERTY
        elif last not in _KEEPS or module not in _KEEPS_FROM:
            return Flavor.UNKNOWN
    return found


def signature_of(args: ast.arguments) -> Signature:
    positional = [*args.posonlyargs, *args.args]
    first_default = len(positional) - len(args.defaults)
    params = tuple(
        Param(a.arg, i < first_default, positional_only=i < len(args.posonlyargs))
        for i, a in enumerate(positional)
    )
    keyword_only = tuple(
        Param(a.arg, default is None) for a, default in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    )
    return Signature(params, keyword_only, args.vararg is not None, args.kwarg is not None)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def misfit(call: ast.Call, sig: Signature) -> str | None:
    """Why `call` cannot bind to `sig`, or None when it can (or cannot be told: `*args`, `**kw`)."""
    by_name = {p.name: p for p in (*sig.positional, *sig.keyword_only)}
    unpacked = any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)
    count = len(call.args)
    if not unpacked and count > len(sig.positional) and not sig.varargs:
        return (
            f"it takes at most {_plural(len(sig.positional), 'positional argument')} and is "
            f"called with {count}"
        )
    filled = {p.name for p in sig.positional[:count]}
    for keyword in call.keywords:
        if keyword.arg is None:
            continue
        param = by_name.get(keyword.arg)
        if param is not None and not param.positional_only:
            filled.add(param.name)
        elif not sig.varkw:
            return f"it has no parameter named {keyword.arg!r}"
    if unpacked:
        return None
    missing = [
        p.name for p in (*sig.positional[count:], *sig.keyword_only) if p.required and p.name not in filled
    ]
    if missing:
        return f"it requires {', '.join(repr(m) for m in missing)}, which the call does not pass"
    return None

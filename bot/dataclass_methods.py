"""receipt's frozen dataclasses without compiling most of their methods.

On Python 3.11, `dataclasses` writes each generated method as source text and `exec`s it: about
six compilations per frozen class, some 130 classes on a `receipt check`, a sixth of its start-up.
`install` has `__setattr__`, `__delattr__`, `__eq__`, `__hash__` and `__repr__` of the classes
defined in receipt's own modules made as closures over the field names instead, doing what the
generated source does in the same order (the same tuples compared and hashed, the same text, the
same errors); `__init__`, whose source carries the defaults and annotations, is still compiled.
Any other class, and any other Python (whose `dataclasses` differs), is left to `dataclasses`.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

_PACKAGE = "bot."
_PATCHED = ("_frozen_get_del_attr", "_hash_fn", "_repr_fn", "_cmp_fn")
_INSTALLED = "_receipt_closures"

Getter = Callable[[object], tuple[Any, ...]]


def _getter(names: Sequence[str]) -> Getter:
    """The fields' values as one tuple, as `(self.a,self.b,)` gives them."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _ours(module_globals: dict[str, Any]) -> bool:
    return str(module_globals.get("__name__", "")).startswith(_PACKAGE)


def _placed(method: Any, module_globals: dict[str, Any]) -> Any:
    """`method` as the class's module's own, as `exec` in that module's globals makes it."""
    method.__module__ = module_globals["__name__"]
    return method


def _frozen_get_del_attr(original: Any) -> Any:
    def make(cls: Any, fields: Sequence[Any], module_globals: dict[str, Any]) -> Any:
        if not _ours(module_globals):
            return original(cls, fields, module_globals)
        names = tuple(f.name for f in fields)
        error = dataclasses.FrozenInstanceError

        def __setattr__(self: Any, name: str, value: Any) -> None:
            if type(self) is cls or name in names:
                raise error(f"cannot assign to field {name!r}")
            super(cls, self).__setattr__(name, value)

        def __delattr__(self: Any, name: str) -> None:
            if type(self) is cls or name in names:
                raise error(f"cannot delete field {name!r}")
            super(cls, self).__delattr__(name)

        return _placed(__setattr__, module_globals), _placed(__delattr__, module_globals)

    return make


def _hash_fn(original: Any) -> Any:
    def make(fields: Sequence[Any], module_globals: dict[str, Any]) -> Any:
        if not _ours(module_globals):
            return original(fields, module_globals)
        values = _getter([f.name for f in fields])

        def __hash__(self: Any) -> int:
            return hash(values(self))

        return _placed(__hash__, module_globals)

    return make


def _repr_fn(original: Any) -> Any:
    def make(fields: Sequence[Any], module_globals: dict[str, Any]) -> Any:
        if not _ours(module_globals):
            return original(fields, module_globals)
        names = tuple(f.name for f in fields)

        def __repr__(self: Any) -> str:
            shown = ", ".join([f"{name}={getattr(self, name)!r}" for name in names])
            text: str = self.__class__.__qualname__ + f"({shown})"
            return text

        return vars(dataclasses)["_recursive_repr"](_placed(__repr__, module_globals))

    return make


def _tuple_names(text: str) -> list[str] | None:
    """The field names of `_tuple_str`'s text `(self.a,self.b,)`; None for any other text."""
    if text == "()":
        return []
    if not (text.startswith("(") and text.endswith(",)")):
        return None
    parts = text[1:-2].split(",")
    if not all(p.startswith("self.") and p[5:].isidentifier() for p in parts):
        return None
    return [p[5:] for p in parts]


def _cmp_fn(original: Any) -> Any:
    def make(name: str, op: str, self_tuple: str, other_tuple: str, *, globals: dict[str, Any]) -> Any:
        names = _tuple_names(self_tuple)
        if name != "__eq__" or names is None or not _ours(globals):
            return original(name, op, self_tuple, other_tuple, globals=globals)
        values = _getter(names)

        def __eq__(self: Any, other: Any) -> Any:
            if other.__class__ is self.__class__:
                return values(self) == values(other)
            return NotImplemented

        return _placed(__eq__, globals)

    return make


def install(version: tuple[int, int] = (sys.version_info.major, sys.version_info.minor)) -> bool:
    """Replace `dataclasses`' method writers for receipt's classes (once); False where the
    `dataclasses` of this Python is not the one these closures copy."""
    if version != (3, 11) or getattr(dataclasses, _INSTALLED, False):
        return False
    for name, wrap in zip(_PATCHED, (_frozen_get_del_attr, _hash_fn, _repr_fn, _cmp_fn), strict=True):
        setattr(dataclasses, name, wrap(getattr(dataclasses, name)))
    setattr(dataclasses, _INSTALLED, True)
    return True

"""The frozen dataclasses' closure methods against the methods `dataclasses` compiles: the same
classes defined twice, in a module of receipt's (the closures) and in one of no package (the
compiled methods), must agree on every comparison, hash, repr and refused assignment."""

from __future__ import annotations

import dataclasses
import itertools
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from bot import dataclass_methods

_CLASSES = """
from dataclasses import dataclass, field
from typing import ClassVar

@dataclass(frozen=True, slots=True)
class Empty:
    pass

@dataclass(frozen=True, slots=True)
class One:
    a: object

@dataclass(frozen=True, slots=True)
class Many:
    a: object
    b: object = 0
    c: object = field(default=None, compare=False)
    d: object = field(default=None, repr=False)
    e: object = field(default=None, hash=False)
    f: object = field(default=None, compare=False, hash=True)
    g: ClassVar[int] = 3

@dataclass(frozen=True)
class Plain:
    a: object
    b: object = 1

@dataclass(frozen=True)
class Child(Plain):
    c: object = 2

@dataclass(frozen=True, order=True)
class Ordered:
    a: object
    b: object = 0

@dataclass(frozen=True, eq=False)
class NoEq:
    a: object

@dataclass(unsafe_hash=True)
class Unsafe:
    a: object

@dataclass
class Mutable:
    a: object
    b: object = 0
"""
_NAMES = ("Empty", "One", "Many", "Plain", "Child", "Ordered", "NoEq", "Unsafe", "Mutable")
_WRITTEN = ("__setattr__", "__delattr__", "__eq__", "__hash__", "__repr__")


class _Odd:
    """A field value whose comparisons answer oddly or fail."""

    def __init__(self, answer: object) -> None:
        self.answer = answer

    def __eq__(self, other: object) -> Any:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    def __hash__(self) -> int:
        return 7

    def __repr__(self) -> str:
        if isinstance(self.answer, Exception):
            raise self.answer
        return f"Odd({self.answer!r})"


_NAN = float("nan")
_VALUES: tuple[object, ...] = (
    1, 1.0, True, _NAN, float("nan"), "x", None, [], [1], (1, 2), _Odd("yes"), _Odd(ValueError("no")),
)  # fmt: skip


def _module(name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses reads the class's module's globals from sys.modules
    try:
        exec(_CLASSES, module.__dict__)
    finally:
        del sys.modules[name]
    return module


@pytest.fixture(scope="module")
def twins() -> tuple[types.ModuleType, types.ModuleType]:
    assert dataclass_methods.install() is False  # bot's import installed them already
    return _module("bot.probe_dataclasses"), _module("probe_dataclasses")


def _outcome(call: Callable[[], object]) -> tuple[str, object]:
    try:
        return "value", call()
    except Exception as exc:
        return type(exc).__name__, str(exc)


def _instances(module: types.ModuleType, name: str) -> Iterator[object]:
    cls = getattr(module, name)
    arity = {"Empty": 0, "One": 1, "NoEq": 1, "Unsafe": 1}.get(name, 2)
    for values in itertools.product(_VALUES, repeat=arity):
        yield cls(*values)
    if name == "Many":
        for values in itertools.product(_VALUES[:6], repeat=3):
            yield cls(1, values[0], c=values[1], d=values[2], e=values[0], f=values[1])
    if name == "Child":
        yield cls(1, 2, c=[])


def test_the_closures_are_written_for_receipts_modules_alone(
    twins: tuple[types.ModuleType, types.ModuleType],
) -> None:
    ours, theirs = twins
    for name in _NAMES:
        mine, compiled = getattr(ours, name), getattr(theirs, name)
        assert set(vars(mine)) == set(vars(compiled)), name
        for method in _WRITTEN:
            if method in vars(compiled) and callable(vars(compiled)[method]):
                here = getattr(vars(mine)[method], "__wrapped__", vars(mine)[method])
                there = getattr(vars(compiled)[method], "__wrapped__", vars(compiled)[method])
                assert there.__code__.co_filename == "<string>"
                assert here.__code__.co_filename == dataclass_methods.__file__, (name, method)
                assert vars(mine)[method].__qualname__ == vars(compiled)[method].__qualname__
                assert vars(mine)[method].__module__ == "bot.probe_dataclasses"
    assert ours.Ordered.__lt__.__code__.co_filename == "<string>"  # an order is compiled, as ever


def test_comparisons_hashes_and_reprs_agree(twins: tuple[types.ModuleType, types.ModuleType]) -> None:
    ours, theirs = twins
    for name in _NAMES:
        pairs = list(zip(_instances(ours, name), _instances(theirs, name), strict=True))
        for (a, a_twin), (b, b_twin) in itertools.product(pairs, repeat=2):
            assert _outcome(lambda: a == b) == _outcome(lambda: a_twin == b_twin), (name, a_twin, b_twin)
            assert _outcome(lambda: a != b) == _outcome(lambda: a_twin != b_twin)
            assert _outcome(lambda: a.__eq__(b)) == _outcome(lambda: a_twin.__eq__(b_twin))
        for a, a_twin in pairs:
            assert _outcome(lambda: hash(a)) == _outcome(lambda: hash(a_twin)) or name in ("NoEq", "Mutable")
            assert _outcome(lambda: repr(a)) == _outcome(lambda: repr(a_twin))
            other = next(iter(_instances(ours, "Plain" if name != "Plain" else "Child")))
            twin_other = next(iter(_instances(theirs, "Plain" if name != "Plain" else "Child")))
            assert _outcome(lambda: a == other) == _outcome(lambda: a_twin == twin_other)
            assert _outcome(lambda: a.__eq__(1)) == _outcome(lambda: a_twin.__eq__(1))


def test_assignments_are_refused_alike(twins: tuple[types.ModuleType, types.ModuleType]) -> None:
    ours, theirs = twins
    for name in _NAMES:
        for a, a_twin in zip(_instances(ours, name), _instances(theirs, name), strict=True):
            for attribute in ("a", "b", "c", "zz"):
                assert _outcome(lambda: setattr(a, attribute, 5)) == _outcome(
                    lambda: setattr(a_twin, attribute, 5)
                ), (name, attribute)
                assert _outcome(lambda: delattr(a, attribute)) == _outcome(lambda: delattr(a_twin, attribute))
            break  # the refusal reads no value


def test_a_repr_that_reaches_itself_is_cut_alike(twins: tuple[types.ModuleType, types.ModuleType]) -> None:
    shown = []
    for module in twins:
        loop: list[object] = []
        instance = module.One(loop)
        loop.append(instance)
        shown.append(repr(instance))
    assert shown[0] == shown[1] == "One(a=[...])"


def test_the_field_names_are_read_only_from_dataclasses_own_tuple_text() -> None:
    assert dataclass_methods._tuple_names("()") == []
    assert dataclass_methods._tuple_names("(self.a,)") == ["a"]
    assert dataclass_methods._tuple_names("(self.a,self.b,)") == ["a", "b"]
    for other in ("(self.a)", "self.a,)", "(other.a,)", "(self.a.b,)", "(self.1,)"):
        assert dataclass_methods._tuple_names(other) is None


def test_an_unknown_tuple_text_is_left_to_dataclasses() -> None:
    made = dataclass_methods._cmp_fn(lambda *a, **k: "compiled")
    assert made("__eq__", "==", "(self.a.b,)", "(other.a.b,)", globals={"__name__": "bot.x"}) == "compiled"


def test_only_this_python_gets_them_and_only_once() -> None:
    assert dataclass_methods.install((3, 12)) is False
    assert dataclass_methods.install() is False
    assert getattr(dataclasses, dataclass_methods._INSTALLED) is True


def test_receipts_own_classes_have_them() -> None:
    from bot.engine.diff import FileDiff

    assert FileDiff.__eq__.__code__.co_filename == dataclass_methods.__file__
    assert FileDiff.__setattr__.__module__ == "bot.engine.diff"


def test_installing_wraps_each_writer_once(monkeypatch: pytest.MonkeyPatch) -> None:
    before = {name: getattr(dataclasses, name) for name in dataclass_methods._PATCHED}
    for name, writer in before.items():
        monkeypatch.setattr(dataclasses, name, writer)  # restored after the test
    monkeypatch.setattr(dataclasses, dataclass_methods._INSTALLED, False)
    assert dataclass_methods.install() is True
    assert all(getattr(dataclasses, name) is not writer for name, writer in before.items())
    assert dataclass_methods.install() is False


_FRESH = """
import sys
import bot
assert "dataclasses" not in sys.modules  # a command without dataclasses never loads them
from bot.engine.diff import FileDiff
import dataclasses, inspect
assert FileDiff.__eq__.__code__.co_filename.endswith("dataclass_methods.py")
assert dataclasses.__loader__.get_filename() == dataclasses.__file__ and inspect.getsource(dataclasses)
assert bot._ClosureMethods not in sys.meta_path
print("ok")
"""


def test_the_closures_are_installed_as_dataclasses_loads() -> None:
    done = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, check=False)
    assert done.stdout == "ok\n", done.stderr

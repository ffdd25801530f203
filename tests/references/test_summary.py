"""What `references` keeps of a module it has read: the facts callers see (names, parameters,
decorators, bases, the class a value instantiates), never the bodies, so a change of many large
modules costs memory in its definitions, not in its lines."""

from __future__ import annotations

import ast

from bot.engine.references.definitions import ModuleInfo, module_info
from bot.engine.references.world import dataclass_signature

SOURCE = """\
import os
from pkg import thing as alias
__all__ = ["Point", "work"]
registry = Registry(size=3)

def work(values, offset=1, *, scale: int = 2):
    total = compute(values, offset)
    return total

class Point(Base, metaclass=Meta):
    __slots__ = ("x", "y")
    x: int
    y: int = 0

    def __init__(self, x):
        self.z = inner_call(x)

    @staticmethod
    def make():
        return build_point()
"""

BODY_CALLS = {"compute", "inner_call", "build_point"}


def _reachable(info: ModuleInfo) -> set[str]:
    """The names of every call any node the summary holds can reach."""
    roots: list[ast.AST] = []
    for sites in info.bindings.values():
        roots += [n for b in sites for n in (b.node, b.value) if n is not None]
    for cls in info.classes.values():
        roots.append(cls.node)
        roots += [n for sites in cls.members.values() for b in sites for n in (b.node, b.value) if n]
    return {
        n.func.id
        for root in roots
        for n in ast.walk(root)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }


def test_the_summary_holds_no_body() -> None:
    info = module_info("m.py", SOURCE)
    assert info is not None
    assert not hasattr(info, "tree")
    assert _reachable(info).isdisjoint(BODY_CALLS)


def test_the_summary_keeps_what_callers_see() -> None:
    info = module_info("m.py", SOURCE)
    assert info is not None
    assert info.exports == {"Point", "work"}
    (work,) = info.bindings["work"]
    assert work.node is not None and [a.arg for a in work.node.args.args] == ["values", "offset"]
    (registry,) = info.bindings["registry"]
    assert isinstance(registry.value, ast.Call) and ast.unparse(registry.value.func) == "Registry"
    point = info.classes["Point"]
    assert [ast.unparse(b) for b in point.node.bases] == ["Base"]
    assert [k.arg for k in point.node.keywords] == ["metaclass"]
    fields = [s.target for s in point.node.body if isinstance(s, ast.AnnAssign)]
    assert [ast.unparse(t) for t in fields] == ["x", "y"]
    assert point.instance_attributes == {"x", "y", "z"}
    (make,) = point.members["make"]
    assert make.node is not None and [ast.unparse(d) for d in make.node.decorator_list] == ["staticmethod"]


def test_a_dataclass_constructor_reads_the_fields_the_summary_keeps() -> None:
    source = "@dataclass\nclass D:\n    x: int\n    ns.y: int = 0\n    z: str = ''\n    def m(self):\n        pass\n"
    info = module_info("d.py", source)
    assert info is not None
    signature = dataclass_signature(info.classes["D"])
    assert signature is not None
    assert [(p.name, p.required) for p in signature.positional] == [("x", True), ("z", False)]

"""One side of the change (the merge base or the head) as a set of modules names resolve in.

A name resolves to a target: a module, a function or class (with how it was reached: from a
module, a class or an instance), an instance of a class, something that exists but is not
followed further, a name that is not there, or unknown. Unknown is what dynamic Python gives:
star imports from outside the tree, module or class `__getattr__`, metaclasses and decorators,
bases that are not classes of this tree. Modules are parsed when a lookup first needs them.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from bot.engine.references.definitions import (
    DATACLASS,
    Binding,
    ClassInfo,
    Kind,
    ModuleInfo,
    module_info,
    read_module,
)
from bot.engine.references.modules import ModuleMap
from bot.engine.references.signature import Flavor, Param, Signature, dotted_name, flavor, signature_of

MAX_DEPTH = 24  # import chains and class hierarchies deeper than this are not followed
_DATACLASS_OPTIONS = frozenset({"frozen", "eq", "order", "repr", "unsafe_hash", "slots", "match_args"})


class Access(StrEnum):
    MODULE = "module"
    CLASS = "class"
    INSTANCE = "instance"


@dataclass(frozen=True, slots=True)
class ModuleT:
    path: str


@dataclass(frozen=True, slots=True)
class DefT:
    """A `def` or `class` statement of module `path`, reached through `access`."""

    path: str
    qualname: str
    binding: Binding
    access: Access = Access.MODULE


@dataclass(frozen=True, slots=True)
class InstanceT:
    cls: DefT


@dataclass(frozen=True, slots=True)
class ExistsT:
    path: str
    qualname: str
    line: int


@dataclass(frozen=True, slots=True)
class MissingT:
    """`owner` (a module's or class's dotted name) does not have `name`; `name` is empty when
    `owner` is a module that is not in the tree."""

    owner: str
    name: str = ""


@dataclass(frozen=True, slots=True)
class UnknownT:
    pass


UNKNOWN = UnknownT()
Target = ModuleT | DefT | InstanceT | ExistsT | MissingT | UnknownT
PRESENT = (ModuleT, DefT, InstanceT, ExistsT)


def _options(node: ast.ClassDef) -> set[str]:
    return {str(k.arg) for d in node.decorator_list if isinstance(d, ast.Call) for k in d.keywords}


def dataclass_signature(cls: ClassInfo) -> Signature | None:
    """The `__init__` that `@dataclass` writes for a class with no base classes and no `__init__`
    of its own, when every field
    is plain (a default, `field(default=…)` or `field(default_factory=…)`); None otherwise."""
    node = cls.node
    if node.bases or _options(node) - _DATACLASS_OPTIONS:
        return None
    params: list[Param] = []
    for stmt in node.body:
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        annotation = ast.unparse(stmt.annotation)
        if "ClassVar" in annotation:
            continue
        value = stmt.value
        required = value is None
        if isinstance(value, ast.Call) and dotted_name(value.func) in ("field", "dataclasses.field"):
            options = {k.arg for k in value.keywords}
            if options - {"default", "default_factory", "repr", "hash", "compare", "metadata"}:
                return None
            required = not options & {"default", "default_factory"}
        if "KW_ONLY" in annotation or "InitVar" in annotation:
            return None
        params.append(Param(stmt.target.id, required))
    return Signature(tuple(params))


class World:
    def __init__(
        self,
        modules: ModuleMap,
        texts: Mapping[str, str | None],
        memo: dict[tuple[str, str], ModuleInfo | None],
        either: ModuleMap,
    ) -> None:
        self.modules = modules
        self._texts = texts
        self._memo = memo
        self._either = either  # the modules of both sides: an import of none of them is not ours

    def info(self, path: str) -> ModuleInfo | None:
        text = self._texts.get(path)
        if text is None:
            return None
        key = (path, text)
        if key not in self._memo:
            self._memo[key] = module_info(path, text)
        return self._memo[key]

    def read(self, path: str) -> tuple[ast.Module, ModuleInfo] | None:
        """The module at `path` parsed, for a walk over its body; what it defines is remembered for
        `info`, which keeps no body."""
        text = self._texts[path]
        assert text is not None  # readers are chosen among the texts that could be read
        read = read_module(path, text)
        self._memo.setdefault((path, text), read[1] if read is not None else None)
        return read

    def module(self, importer: str, level: int, dotted: str) -> Target:
        """The module an import statement in `importer` names: missing only when the other side of
        the change has it; a module of neither side (the standard library, a dependency) is not
        followed."""
        if level:
            found = self.modules.relative(importer, level, dotted)
            elsewhere = self._either.relative(importer, level, dotted) is not None
            label = "." * level + dotted
        else:
            files = self.modules.find(dotted, importer)
            found = files[0] if len(files) == 1 else None
            elsewhere = not files and len(self._either.find(dotted, importer)) == 1
            label = dotted
        if found is not None:
            return ModuleT(found)
        return MissingT(label) if elsewhere else UNKNOWN

    def name_in(self, path: str, name: str, depth: int = 0) -> Target:
        """`name` looked up as an attribute of the module at `path` (`from module import name`)."""
        info = self.info(path)
        if info is None or depth > MAX_DEPTH:
            return UNKNOWN
        sites = info.bindings.get(name, ())
        if len(sites) == 1:
            return self.bound(path, name, sites[0], depth + 1)
        if sites:
            return ExistsT(path, name, sites[0].line)
        submodule = self.modules.submodule(path, name)
        if submodule is not None:
            return ModuleT(submodule)
        unknown = info.dynamic
        for star in info.stars:
            source = self.module(path, star.level, star.module)
            source_info = self.info(source.path) if isinstance(source, ModuleT) else None
            if source_info is None:
                unknown = True
            elif (
                (name in source_info.exports) if source_info.exports is not None else not name.startswith("_")
            ):
                found = self.name_in(source_info.path, name, depth + 1)
                if not isinstance(found, MissingT):
                    return found
        return UNKNOWN if unknown else MissingT(self.modules.dotted(path), name)

    def bound(self, path: str, name: str, binding: Binding, depth: int) -> Target:
        """What one binding of `name` in module `path` refers to."""
        if binding.kind in (Kind.FUNCTION, Kind.CLASS):
            return DefT(path, name, binding)
        if binding.kind is Kind.IMPORT:
            return self.module(path, 0, binding.module)
        if binding.kind is Kind.FROM:
            source = self.module(path, binding.level, binding.module)
            return self.name_in(source.path, binding.name, depth) if isinstance(source, ModuleT) else source
        instance = self.instance_of(path, binding.value, depth)
        return instance if instance is not None else ExistsT(path, name, binding.line)

    def chain(self, path: str, names: tuple[str, ...], depth: int = 0) -> Target:
        """`a.b.c` looked up in the module scope of `path`."""
        target = self.name_in(path, names[0], depth)
        for name in names[1:]:
            target = self.member(target, name, depth)
        return target

    def instance_of(self, path: str, value: ast.expr | None, depth: int) -> InstanceT | None:
        """`Cls(…)` in module `path`: an instance of that class, when `Cls` is one of this tree."""
        names = dotted_name(value.func) if isinstance(value, ast.Call) else None
        if names is None:
            return None
        found = self.chain(path, tuple(names.split(".")), depth + 1)
        return InstanceT(found) if isinstance(found, DefT) and found.binding.kind is Kind.CLASS else None

    def member(self, target: Target, name: str, depth: int = 0) -> Target:
        if isinstance(target, ModuleT):
            return self.name_in(target.path, name, depth + 1)
        if isinstance(target, DefT) and target.binding.kind is Kind.CLASS:
            return self.class_member(target, name, instance=False, depth=depth + 1)
        if isinstance(target, InstanceT):
            return self.class_member(target.cls, name, instance=True, depth=depth + 1)
        return target if isinstance(target, MissingT) else UNKNOWN

    def class_info(self, cls: DefT) -> ClassInfo | None:
        info = self.info(cls.path)
        return info.classes.get(cls.qualname) if info is not None else None

    def class_member(self, cls: DefT, name: str, *, instance: bool, depth: int) -> Target:
        """`name` on the class (or an instance of it), its bases followed while they are classes of
        this tree."""
        found = self.class_info(cls)
        if found is None or found.dynamic or depth > MAX_DEPTH:
            return UNKNOWN
        qualname = f"{cls.qualname}.{name}"
        sites = found.members.get(name, ())
        if len(sites) == 1 and sites[0].kind in (Kind.FUNCTION, Kind.CLASS):
            return DefT(cls.path, qualname, sites[0], Access.INSTANCE if instance else Access.CLASS)
        if sites or (instance and name in found.instance_attributes):
            return ExistsT(cls.path, qualname, sites[0].line if sites else found.node.lineno)
        unknown = False
        for base in found.node.bases:
            names = dotted_name(base)
            if names == "object":
                continue
            parent = self.chain(cls.path, tuple(names.split(".")), depth + 1) if names else UNKNOWN
            if not isinstance(parent, DefT) or parent.binding.kind is not Kind.CLASS:
                unknown = True
                continue
            inherited = self.class_member(parent, name, instance=instance, depth=depth + 1)
            if not isinstance(inherited, MissingT):
                return inherited
        return UNKNOWN if unknown else MissingT(f"{self.modules.dotted(cls.path)}.{cls.qualname}", name)

    def signature(self, target: Target) -> Signature | None:
        """The parameters a call of `target` binds to, when they can be known."""
        if not isinstance(target, DefT):
            return None
        node = target.binding.node
        if isinstance(node, ast.ClassDef):
            return self._constructor(target)
        assert node is not None
        kind = flavor(node.decorator_list)
        plain = signature_of(node.args)
        if kind is Flavor.STATIC:
            return plain
        if kind is Flavor.CLASS and target.access is not Access.MODULE:
            return plain.without_first()
        if kind is Flavor.PLAIN:
            return plain.without_first() if target.access is Access.INSTANCE else plain
        return None

    def _constructor(self, cls: DefT) -> Signature | None:
        found = self.class_info(cls)
        if found is None or "__new__" in found.members:
            return None
        decorators = {
            dotted_name(d.func if isinstance(d, ast.Call) else d) for d in found.node.decorator_list
        }
        if decorators & DATACLASS and "__init__" not in found.members:  # dataclass keeps an own __init__
            return dataclass_signature(found)
        init = self.class_member(cls, "__init__", instance=True, depth=0)
        return Signature() if isinstance(init, MissingT) else self.signature(init)

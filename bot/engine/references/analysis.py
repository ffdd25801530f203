"""`references`: call sites in the head tree that the change's edits to Python definitions broke.

1. The changed modules are read at the merge base and at the head: the names each binds, its
   classes' members, their signatures. A name whose binding differs is *interesting*.
2. A cheap word prefilter over every module of the head tree keeps the ones that mention an
   interesting name (and, repeated, the names re-exported under another name); only those are
   parsed in full and walked, scope by scope.
3. Each reference they make to an interesting name is resolved twice, in a world of the merge
   base's definitions and in a world of the head's, following imports (absolute, relative,
   `from pkg import mod`, re-exports, star imports inside the tree), class members and their
   bases. A reference that resolved (and whose call fitted) at the merge base and no longer does
   is a broken call site. Anything either world cannot resolve (a module outside the tree,
   `getattr`, `__getattr__`, a decorator, a metaclass) is not guessed at.
"""

from __future__ import annotations

import ast
from collections import ChainMap
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from bot.engine.change import Change
from bot.engine.references.changes import Proofs, changed_names
from bot.engine.references.definitions import Binding, ClassInfo, Kind, ModuleInfo
from bot.engine.references.modules import ModuleMap
from bot.engine.references.result import MAX_LISTED, BrokenReference, ReferenceKind, ReferencesResult
from bot.engine.references.signature import dotted_name, misfit
from bot.engine.references.uses import (
    TYPE_CHECKING,
    ImportUse,
    Scope,
    Site,
    Use,
    UsesWalker,
    local_scopes,
    walk,
)
from bot.engine.references.words import mentioning
from bot.engine.references.world import (
    MAX_DEPTH,
    PRESENT,
    UNKNOWN,
    Access,
    DefT,
    ExistsT,
    InstanceT,
    MissingT,
    ModuleT,
    Target,
    World,
)

_IMPORT_GUARDS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
_NAME_GUARDS = frozenset({"AttributeError", "NameError", "ImportError", "Exception", "BaseException"})
_CALL_GUARDS = frozenset({"TypeError", "Exception", "BaseException"})
_ALIAS_ROUNDS = 4
_MAX_NOTES = 10


@dataclass(frozen=True, slots=True)
class PythonTree:
    """The head tree's Python modules, as the gatherer read them for `references`.

    `texts` holds every `.py` path of the head tree (None where the file could not be read as
    text, or was not read because the change cannot reach a caller: `reaches_callers`);
    `incomplete` says why the gatherer could not read them all (then `texts` may be empty).
    """

    texts: Mapping[str, str | None] = field(default_factory=dict)
    incomplete: str | None = None


def _re_exported(info: ModuleInfo, names: set[str]) -> set[str]:
    """Names a module binds to an interesting name under another name (`from .m import old as new`)."""
    return {
        alias
        for alias, sites in info.bindings.items()
        if alias not in names and any(b.kind is Kind.FROM and b.name in names for b in sites)
    }


@dataclass
class _Analysis:
    head: World
    base: World
    moved: Mapping[str, str | None]  # deleted or renamed module paths: where each went (None: deleted)
    findings: list[BrokenReference] = field(default_factory=list)
    members: frozenset[str] = frozenset()  # every member name the head's classes (in the modules read) define

    # -- lookups from a reader's scopes

    def lookup(self, world: World, reader: str, scope: Scope, name: str, depth: int = 0) -> Target:
        if depth > MAX_DEPTH:
            return UNKNOWN
        for s in local_scopes(scope):
            if name in s.declared_global:
                break
            sites = [] if name in s.declared_nonlocal else s.sites.get(name, [])
            if sites:
                return self._site(world, reader, s, sites, depth)
        return world.name_in(reader, name)

    def _site(self, world: World, reader: str, scope: Scope, sites: list[Site], depth: int) -> Target:
        if len(sites) != 1:
            return UNKNOWN
        site = sites[0]
        owner = site.self_of or site.cls_of
        if owner is not None:
            info = world.info(reader)
            cls = info.classes.get(owner) if info is not None else None
            if cls is None:
                return UNKNOWN
            target = DefT(reader, owner, Binding(Kind.CLASS, cls.node.lineno, cls.node), Access.CLASS)
            return InstanceT(target) if site.self_of else target
        binding = site.binding
        if binding.kind in (Kind.FROM, Kind.IMPORT):
            return world.bound(reader, "", binding, depth + 1)
        expression = site.annotation
        outer = scope.parent or scope
        if expression is None and isinstance(binding.value, ast.Call):
            expression, outer = binding.value.func, scope
        chain = _names(expression)
        if chain is None:
            return UNKNOWN
        found = self.resolve(world, reader, outer, chain, depth + 1)
        return InstanceT(found) if isinstance(found, DefT) and found.binding.kind is Kind.CLASS else UNKNOWN

    def resolve(
        self, world: World, reader: str, scope: Scope, chain: tuple[str, ...], depth: int = 0
    ) -> Target:
        target = self.lookup(world, reader, scope, chain[0], depth)
        for name in chain[1:]:
            target = world.member(target, name)
        return target

    # -- findings

    def _where(self, world: World, target: Target) -> tuple[str, str]:
        """The dotted name of a target at the merge base, and where it was defined."""
        if isinstance(target, InstanceT):
            target = target.cls
        if isinstance(target, ModuleT):
            return world.modules.dotted(target.path), target.path
        assert isinstance(target, DefT | ExistsT)
        line = target.binding.line if isinstance(target, DefT) else target.line
        return f"{world.modules.dotted(target.path)}.{target.qualname}", f"{target.path}:{line}"

    def _missing(
        self, reader: str, line: int, expression: str, was: Target, gone: MissingT, *, guards: frozenset[str]
    ) -> None:
        dotted, where = self._where(self.base, was)
        if isinstance(was, ModuleT):
            target, moved = dotted, self.moved.get(where)
            fate = f"this change moves it to {moved}" if moved else "this change deletes it"
            why = f"module `{dotted}` no longer exists ({where} at the merge base; {fate})"
        elif not gone.name:
            target, why = gone.owner, f"module `{gone.owner}` no longer exists"
        else:
            target = f"{gone.owner}.{gone.name}"
            why = (
                f"`{gone.owner}` has no `{gone.name}` any more (it was defined at {where} at the merge base)"
            )
        message = (
            f"`{expression}` no longer resolves: {why}. Update this caller, or keep the old name "
            "(an alias or a deprecated wrapper)."
        )
        if TYPE_CHECKING in guards:
            message += " It is under `if TYPE_CHECKING:`: it breaks type checking, not the running code."
        self.findings.append(BrokenReference(reader, line, ReferenceKind.REMOVED, target, where, message))

    def check_import(self, reader: str, use: ImportUse) -> None:
        if use.guards & _IMPORT_GUARDS:
            return
        head, base = (self._imported(w, reader, use) for w in (self.head, self.base))
        module = self.base.module(reader, use.level, use.module)
        if (
            isinstance(head, MissingT)
            and not head.name
            and isinstance(base, PRESENT)
            and isinstance(module, ModuleT)
        ):
            base = module  # the module itself is gone: say where it went
        if isinstance(head, MissingT) and isinstance(base, PRESENT):
            dots = "." * use.level
            text = (
                f"import {use.module}" if use.name is None else f"from {dots}{use.module} import {use.name}"
            )
            self._missing(reader, use.line, text, base, head, guards=use.guards)

    def _imported(self, world: World, reader: str, use: ImportUse) -> Target:
        module = world.module(reader, use.level, use.module)
        if use.name is None or not isinstance(module, ModuleT):
            return module
        return world.name_in(module.path, use.name)

    def _subclass_may_define(self, use: Use) -> bool:
        """`self.name` where some class of the tree still defines `name`: `self` may be an instance
        of a subclass that does (a base class calling what its subclasses provide)."""
        if len(use.chain) != 2 or use.chain[1] not in self.members:
            return False
        sites = next((s.sites[use.chain[0]] for s in local_scopes(use.scope) if use.chain[0] in s.sites), [])
        return len(sites) == 1 and sites[0].self_of is not None

    def check_use(self, reader: str, use: Use) -> None:
        head = self.resolve(self.head, reader, use.scope, use.chain)
        base = self.resolve(self.base, reader, use.scope, use.chain)
        text = ".".join(use.chain) + ("(…)" if use.call is not None else "")
        if isinstance(head, MissingT) and isinstance(base, PRESENT):
            if not use.guards & _NAME_GUARDS and not self._subclass_may_define(use):
                self._missing(reader, use.line, text, base, head, guards=use.guards)
            return
        if use.call is None or use.guards & _CALL_GUARDS:
            return
        before, after = self.base.signature(base), self.head.signature(head)
        if before is None or after is None or misfit(use.call, before) is not None:
            return
        why = misfit(use.call, after)
        if why is not None:
            dotted, where = self._where(self.head, head)
            message = (
                f"`{text}` no longer fits `{dotted}` ({where}): {why}. The call fitted the "
                "definition at the merge base; update the call, or keep the old parameters "
                "(a default, or a keyword kept for compatibility)."
            )
            self.findings.append(
                BrokenReference(reader, use.line, ReferenceKind.SIGNATURE, dotted, where, message)
            )


def _names(expression: ast.expr | None) -> tuple[str, ...] | None:
    name = dotted_name(expression) if expression is not None else None
    return tuple(name.split(".")) if name else None


def _classes_of(world: World, path: str) -> Iterable[ClassInfo]:
    info = world.info(path)
    assert info is not None  # a reader parsed
    return info.classes.values()


def _deduplicated(findings: list[BrokenReference]) -> list[BrokenReference]:
    """One finding per removed name per file (its first use), and one per broken call."""
    seen: set[tuple[str, str, int]] = set()
    kept: list[BrokenReference] = []
    for f in sorted(findings, key=BrokenReference.sort_key):
        key = (f.path, f.id, f.line if f.kind is ReferenceKind.SIGNATURE else 0)
        if key not in seen:
            seen.add(key)
            kept.append(f)
    return kept


def _changed_python(change: Change) -> Iterator[tuple[str | None, str | None, str | None, str | None]]:
    """(old path, new path, base text, head text) of each changed file that is a module on a side."""
    for f in change.diff.files:
        old = f.old_path if f.old_path is not None and f.old_path.endswith(".py") else None
        new = f.new_path if f.new_path is not None and f.new_path.endswith(".py") else None
        if (old or new) and not f.binary and not f.is_submodule:
            texts = change.texts_of(f)
            yield old, new, texts.base, texts.head


def reaches_callers(change: Change) -> bool:
    """Whether the change can break a call site elsewhere, so the check needs the head tree's other
    modules read: only by changing, moving or removing a module that existed at the base (a new
    module changes no name anything already used)."""
    return any(old is not None for old, _, _, _ in _changed_python(change))


@dataclass
class _Progress:
    """What could not be followed: `notes` by design (dynamic uses, files that never parsed),
    `gaps` where a broken call site could hide (a changed file that does not parse here)."""

    notes: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)


def _interesting(
    base: World,
    head: World,
    changed: Mapping[str, tuple[str | None, str | None]],
    moved: Mapping[str, str | None],
    progress: _Progress,
    *,
    proofs: Proofs | None = None,
) -> set[str]:
    """The names the changed modules (by base path: their base and head texts) may change."""
    proofs = proofs or Proofs()
    names: set[str] = set()
    for old, (base_text, head_text) in changed.items():
        if (
            old not in moved
            and base_text is not None
            and head_text is not None
            and proofs.unchanged(base_text, head_text)
        ):
            continue  # what would be read whole below finds nothing either
        before = base.info(old)
        if before is None:
            continue  # not Python at the merge base (or not readable): nothing a caller relied on
        if old in moved:
            names.add(base.modules.dotted(old).rpartition(".")[2])
            if moved[old] is None:
                continue
        after = head.info(moved.get(old) or old)
        if after is None:
            progress.gaps.append(f"{moved.get(old) or old} does not parse here")
            continue
        try:
            names |= changed_names(before, after)
        except RecursionError:
            progress.gaps.append(f"{old} is nested too deeply to compare")
    return names


def _readers(
    head: World, texts: Mapping[str, str | None], names: set[str], touched: set[str], progress: _Progress
) -> list[tuple[str, UsesWalker]]:
    """The modules that mention an interesting name, walked; re-exports under other names are
    followed for a few rounds."""
    remaining = {p: t for p, t in texts.items() if t is not None}
    selected: dict[str, ast.Module] = {}
    pending = set(names)
    for _ in range(_ALIAS_ROUNDS):
        found = mentioning(remaining, pending)
        aliases: set[str] = set()
        for path in found:
            del remaining[path]
            read = head.read(path)
            if read is None:  # a file the change left alone never ran either; one it wrote may hide a caller
                (progress.gaps if path in touched else progress.notes).append(f"{path} does not parse here")
                continue
            selected[path] = read[0]
            aliases |= _re_exported(read[1], names)
        names |= aliases
        pending = aliases
        if not pending:
            break
    walked: list[tuple[str, UsesWalker]] = []
    interesting = frozenset(names)
    for path in sorted(selected):
        try:
            walked.append((path, walk(selected.pop(path), interesting)))
        except RecursionError:
            progress.gaps.append(f"{path} is nested too deeply to follow")
    return walked


def analyze(change: Change, tree: PythonTree, proofs: Proofs | None = None) -> ReferencesResult | None:
    """The `references` check for `change`, or None when the repository holds no Python at all.
    `proofs` holds what was proven of the changed modules while excess read them."""
    head_texts: dict[str, str | None] = dict(tree.texts)
    base_texts: dict[str, str | None] = {}
    moved: dict[str, str | None] = {}
    for old, new, base_text, head_text in _changed_python(change):
        if new is not None:
            head_texts[new] = head_text
        if old is not None:
            base_texts[old] = base_text
            if old != new:
                moved[old] = new
    if not head_texts and not base_texts:
        return None
    memo: dict[tuple[str, str], ModuleInfo | None] = {}
    base_view = ChainMap(base_texts, head_texts)
    either = ModuleMap(base_view)  # the base side's paths include the head's: added files stay visible
    head = World(ModuleMap(head_texts), head_texts, memo, either)
    base = World(either, base_view, memo, either)
    progress = _Progress()
    changed = {old: (text, head_texts.get(old)) for old, text in base_texts.items()}
    names = _interesting(base, head, changed, moved, progress, proofs=proofs)
    touched = {new for _, new, _, _ in _changed_python(change) if new is not None}
    readers = _readers(head, head_texts, names, touched, progress) if names else []
    members = {m for path, _ in readers for c in _classes_of(head, path) for m in c.members}
    analysis = _Analysis(head, base, moved, members=frozenset(members))
    for path, walker in readers:
        for use in walker.imports:
            analysis.check_import(path, use)
        for each in walker.uses:
            analysis.check_use(path, each)
        progress.notes += [f"getattr(…, {d.name!r}) at {path}:{d.line}" for d in walker.dynamic]
    found = _deduplicated(analysis.findings)
    notes = progress.notes[:_MAX_NOTES] + (
        [f"{len(progress.notes) - _MAX_NOTES} more"] if len(progress.notes) > _MAX_NOTES else []
    )
    gaps = [g for g in (tree.incomplete, *progress.gaps) if g]
    return ReferencesResult(
        findings=tuple(found[:MAX_LISTED]),
        changed_modules=len(base_texts),
        readers=len(readers),
        notes=tuple(notes),
        incomplete="; ".join(gaps) if gaps else None,
        left_out=max(0, len(found) - MAX_LISTED),
    )

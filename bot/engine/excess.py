"""The excess field: how much more a change rewrote than it had to.

C is a file's base version, M the head's, G the base with the reference patch applied. Over the
changed text files, `distance = Σ Lev(C, M) / Σ max(|C|, |M|)` in tokens (tokens.py, distance.py).
With a reference, `reference_distance` is the same over the files the reference touches, and
`excess = nd(M, C) − nd(G, C)` over the union of the files either side touches, where a file one
side leaves alone counts with its base text on that side. `formatting_share` is the part of the
change as written that is formatting: edits to comments, line breaks and quote style (tokens the
significant view drops or reads alike), and changed whitespace between tokens kept on both sides;
`added_complexity` is the cognitive complexity the change added to the Python functions it touched,
against G when there is a reference and against C otherwise.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Protocol

from bot.engine.bounds import MAX_EDIT_CELLS
from bot.engine.change import Change
from bot.engine.complexity import (
    FunctionComplexity,
    Unit,
    decides,
    function_complexities,
    labelled,
    unit_complexities,
    unit_names,
)
from bot.engine.diff import FileDiff, FileStatus
from bot.engine.distance import EditCount, difference, edit_count, layout_count, total
from bot.engine.fan import Fan, in_order
from bot.engine.gitpath import display_path
from bot.engine.manifest import ExcessPolicy
from bot.engine.patching import PatchApplyError, Reference, apply_file, base_path, measurable
from bot.engine.tokens import Tokenizer, TokenMode, is_python


@dataclass(frozen=True, slots=True)
class ReferenceInfo:
    source: str
    digest: str


class Exclusion(StrEnum):
    """Why a changed file has no part in the numbers."""

    BINARY = "binary"
    NOT_A_FILE = "symlink or submodule"
    UNREADABLE = "too large or not text"


@dataclass(frozen=True, slots=True)
class Excluded:
    path: str
    reason: Exclusion


@dataclass(frozen=True, slots=True)
class ComplexityChange:
    path: str
    function: str
    delta: int


@dataclass(frozen=True, slots=True)
class ExcessResult:
    # The receipt's `excess` fields (receipt.py serializes these; the names are a contract).
    distance: float | None = None
    reference: ReferenceInfo | None = None
    reference_distance: float | None = None
    excess: float | None = None
    formatting_share: float | None = None
    added_complexity: int | None = None
    alarm: bool = False
    alarm_reasons: tuple[str, ...] = ()
    # What the summary explains the numbers with; not part of the receipt JSON.
    files: int = 0
    union_distance: float | None = None  # nd(M, C) over the union, the left side of `excess`
    union_reference_distance: float | None = None  # nd(G, C) over the union, the right side
    excluded: tuple[Excluded, ...] = ()
    unparsed: tuple[str, ...] = ()  # Python files read by the tokenizer alone: they do not parse
    complexity_changes: tuple[ComplexityChange, ...] = ()
    complexity_unmeasured: tuple[str, ...] = ()  # Python files whose functions could not be read
    too_large: int | None = None  # characters of text, when above TEXT_LIMIT: nothing was measured
    estimated: tuple[str, ...] = ()  # files compared in blocks, past MAX_EDIT_CELLS (distance.py)

    @property
    def not_measured(self) -> str | None:
        """Why the numbers are absent, or which files they only estimate (the receipt's
        `excess.not_measured`): a limit, every changed file left out, or files compared in blocks;
        None when every file was measured exactly or there was nothing to measure."""
        if self.too_large is not None:
            return (
                f"the changed files hold {self.too_large:,} characters of text, above the {TEXT_LIMIT:,} "
                "the excess metrics read in one receipt"
            )
        if self.distance is None and self.union_distance is None and self.excluded:
            return "every changed file was left out: " + left_out(self.excluded)
        if self.estimated:
            return estimated_text(", ".join(display_path(p) for p in self.estimated))
        return None


def estimated_text(shown: str) -> str:
    """Files compared in blocks (`shown`, as the medium writes paths), and why, as the receipt and
    the summary say it."""
    return (
        f"compared in blocks, not token by token ({shown}): their two versions are too far apart for "
        f"the {MAX_EDIT_CELLS:,} cells of edit distance one file gets, so only what lies between the "
        "runs of tokens both hold once was compared, and their edits count as an upper bound"
    )


def left_out(excluded: tuple[Excluded, ...]) -> str:
    """How many files were left out for each reason."""
    counts = Counter(e.reason.value for e in excluded)
    return ", ".join(f"{n} file{'' if n == 1 else 's'} ({reason})" for reason, n in sorted(counts.items()))


# The metrics read every changed file whole (parse, unparse, tokenize, edit distance; each top-level
# statement two versions share once) at a few megabytes a second; past this many characters of C, M
# and G a receipt would take minutes, so the numbers are left out and the receipt says so
# (`excess.not_measured`). A limit is a count, not a clock: the same change always gets the same receipt.
TEXT_LIMIT = 16 * 1024 * 1024


# A file is known by where its base version lives, so a rename on one side only still pairs with the
# other side's edit; a new file (added, or a copy) by its own path.
_Key = tuple[str, bool]


def _key(file: FileDiff) -> _Key:
    if file.status in (FileStatus.ADDED, FileStatus.COPIED):
        return file.path, True
    return base_path(file), False


@dataclass(frozen=True, slots=True)
class _Version:
    """Two versions of one file: `before` is C (or G), `after` is M (or G)."""

    label: str  # the path a reviewer knows the file by; it also chooses the tokenizer
    before: str
    after: str


class _Measure:
    """Token counts for one file at a time; every text is read once, every piece a text shares with
    another version once (tokens.py, pychunks.py). `forget` drops what one file's texts left behind,
    so a large change holds one file's tokens and trees at a time, not every file's."""

    def __init__(self) -> None:
        self.tokenizer = Tokenizer()
        self.unparsed: set[str] = set()
        self.estimated: set[str] = set()
        self._units: dict[str, tuple[Unit, ...] | None] = {}
        self._names: dict[str, list[str] | None] = {}

    def forget(self) -> None:
        self.tokenizer = Tokenizer()
        self.unparsed = set()
        self.estimated = set()
        self._units = {}
        self._names = {}

    def count(self, version: _Version) -> EditCount:
        pair = self.tokenizer.pair(version.label, version.before, version.after)
        if is_python(version.label) and pair.mode is not TokenMode.NORMALIZED:
            self.unparsed.add(version.label)
        count = edit_count(pair.left, pair.right)
        if count.estimated:
            self.estimated.add(version.label)
        return count

    def layout(self, version: _Version, count: EditCount) -> tuple[int, int]:
        """The file's edits as written, and how many of them are formatting: token edits the
        significant view does not see (comments, line breaks, quotes), and changed gaps. The two
        views count slightly different units, so never below zero."""
        before, after = self.tokenizer.written_pair(version.label, version.before, version.after)
        layout = layout_count(before.tokens, before.gaps, after.tokens, after.gaps)
        if layout.estimated:
            self.estimated.add(version.label)
        return (
            layout.token_edits + layout.gap_edits,
            max(0, layout.token_edits - count.edits) + layout.gap_edits,
        )

    def complexities(self, text: str) -> tuple[FunctionComplexity, ...] | None:
        """`function_complexities(text)`, read a top-level statement at a time: each unit lies in one
        piece, and lines count on from the pieces before. A piece that does not parse alone sends the
        reading back to the whole text."""
        pieces = self.tokenizer.pieces(text)
        if len(pieces) == 1:
            return function_complexities(text, self.tokenizer.tree)
        units: list[Unit] = []
        lines = 0
        for piece in pieces:
            found = self._piece_units(piece)
            if found is None:
                return function_complexities(text, self.tokenizer.tree)
            units.extend((name, line + lines, total) for name, line, total in found)
            lines += piece.count("\n")
        return labelled(units)

    def _shallow_names(self, piece: str) -> list[str] | None:
        """The units' names of a piece, from its code (`Tokenizer.shallow_code`), once per piece:
        a piece both texts share is asked for by each."""
        if piece not in self._names:
            code = self.tokenizer.shallow_code(piece)
            self._names[piece] = None if code is None else unit_names(*code)
        return self._names[piece]

    def _piece_units(self, piece: str) -> tuple[Unit, ...] | None:
        if piece not in self._units:
            self._units[piece] = unit_complexities(piece, self.tokenizer.tree)
        return self._units[piece]

    def complexity_pair(self, before: str, after: str) -> tuple[dict[str, int], dict[str, int]] | None:
        """Each unit's complexity by label in both texts, or None if either cannot be read; a unit
        both texts hold in a top-level statement they share may be left out (it adds nothing).

        Where no name is defined twice on a side (so every label is a name), a shared statement is
        compiled, not parsed: its functions' names are enough, and so is a changed one without a
        keyword that can add complexity (all its units have 0). Otherwise every unit is read."""
        shared = set(self.tokenizer.pieces(before)) & set(self.tokenizer.pieces(after))
        old, new = self._distinct(before, shared), self._distinct(after, shared)
        if old is not None and new is not None:
            return old, new
        read = self.complexities(before), self.complexities(after)
        if read[0] is None or read[1] is None:
            return None
        return {f.name: f.complexity for f in read[0]}, {f.name: f.complexity for f in read[1]}

    def _distinct(self, text: str, shared: set[str]) -> dict[str, int] | None:
        """The complexity of each unit of `text` outside the `shared` pieces, in source order, when
        every unit's name in `text` is distinct; None when that is not certain."""
        names: list[str] = []
        found: dict[str, int] = {}
        for piece in self.tokenizer.pieces(text):
            kept = piece not in shared
            # A piece whose tree was read already (a visitor parsed it) is read off the tree,
            # which costs less than compiling it.
            defined = (
                self._shallow_names(piece)
                if not self.tokenizer.parsed(piece) and (not kept or not decides(piece))
                else None
            )
            if defined is not None:
                names.extend(defined)
                found.update(dict.fromkeys(defined if kept else (), 0))
                continue
            units = self._piece_units(piece)
            if units is None:
                return None
            names.extend(name for name, _, _ in units)
            found.update((name, total) for name, _, total in units if kept)
        return found if len(set(names)) == len(names) else None


class Visitor(Protocol):
    """Another reader of each changed file's base and head texts, handed the tokenizer excess holds
    them in while it reads them. `references` proves there what it can of a module
    (references/changes.py: `Proofs`), cutting and parsing with the same memos, so a statement the
    versions do not share is parsed once for both. `read` may run in another process (fan.py): what
    it learns it returns, and `keep` is handed that, in the files' order, where the numbers are added
    up."""

    def read(self, path: str, base: str, head: str, tokenizer: Tokenizer) -> bool | None: ...

    def keep(self, base: str, head: str, note: bool | None) -> None: ...


def _before(file: FileDiff, base: str) -> str:
    """C of a file: a copy is a new file (the base has nothing at its path), whatever it was copied from."""
    return "" if file.status is FileStatus.COPIED else base


def _exclusion(file: FileDiff, before: str | None, after: str | None) -> Exclusion | None:
    if file.binary:
        return Exclusion.BINARY
    if file.is_symlink or file.is_submodule:
        return Exclusion.NOT_A_FILE
    if before is None or after is None:
        return Exclusion.UNREADABLE
    return None


@dataclass(frozen=True, slots=True)
class _Side:
    """The text files one side (candidate or reference) changed, and those left out of the numbers."""

    versions: dict[_Key, _Version]
    excluded: tuple[Excluded, ...]
    left_out: frozenset[_Key]


def _candidate(change: Change) -> _Side:
    versions: dict[_Key, _Version] = {}
    excluded: list[Excluded] = []
    for file in change.diff.files:
        texts = change.texts_of(file)
        reason = _exclusion(file, texts.base, texts.head)
        if reason is not None:
            excluded.append(Excluded(file.path, reason))
            continue
        assert texts.base is not None and texts.head is not None
        versions[_key(file)] = _Version(file.path, _before(file, texts.base), texts.head)
    return _Side(versions, tuple(excluded), frozenset(_key(f) for f in change.diff.files) - versions.keys())


@dataclass(frozen=True, slots=True)
class _Bases:
    """Where the base versions of the files a reference touches come from, looked up by path."""

    by_old_path: dict[str, FileDiff]  # the candidate's changes, by the path of their base version
    replaced: frozenset[str]  # paths the reference deletes: an addition there is a change of type

    @classmethod
    def of(cls, change: Change, reference: Reference) -> _Bases:
        by_old_path: dict[str, FileDiff] = {}
        for candidate in change.diff.files:
            if candidate.old_path is not None:
                by_old_path.setdefault(candidate.old_path, candidate)
        deleted = frozenset(
            f.old_path for f in reference.diff.files if f.status is FileStatus.DELETED and f.old_path
        )
        return cls(by_old_path, deleted)


def _reference_base(file: FileDiff, change: Change, reference: Reference, bases: _Bases) -> str | None:
    """C for a file the reference touches: from the candidate's change, else from the reference's texts."""
    if file.status is FileStatus.ADDED:
        exists = file.path in reference.base_texts or file.path in bases.by_old_path
        if exists and file.path not in bases.replaced:
            raise PatchApplyError(file.path, 0, "", "it adds the file, which the base already has")
        return ""
    path = base_path(file)
    candidate = bases.by_old_path.get(path)
    if candidate is not None:
        return change.texts_of(candidate).base
    if path not in reference.base_texts:
        raise PatchApplyError(path, 0, "", "the base has no such file")
    return reference.base_texts[path]


def _reference(change: Change, reference: Reference) -> _Side:
    """G for every text file the reference touches; PatchApplyError when it does not apply."""
    versions: dict[_Key, _Version] = {}
    excluded: list[Excluded] = []
    bases = _Bases.of(change, reference)
    for file in reference.diff.files:
        base = _reference_base(file, change, reference, bases) if measurable(file) else None
        reason = _exclusion(file, base, base)
        if reason is not None:
            excluded.append(Excluded(file.path, reason))
            continue
        assert base is not None
        versions[_key(file)] = _Version(file.path, _before(file, base), apply_file(base, file))
    return _Side(
        versions, tuple(excluded), frozenset(_key(f) for f in reference.diff.files) - versions.keys()
    )


def check_reference(change: Change, reference: Reference) -> None:
    """Raise PatchApplyError unless the reference applies to the base (gatherers check before testing)."""
    _reference(change, reference)


@dataclass(frozen=True, slots=True)
class _Complexity:
    """One Python file's part in `added_complexity`: CC(after) − CC(before) and the functions whose
    complexity changed; `added` is None when either side could not be read."""

    added: int | None
    changes: tuple[ComplexityChange, ...] = ()


def _complexity(measure: _Measure, version: _Version) -> _Complexity:
    """Functions a change leaves alone have equal complexity on both sides, so this is what the change
    added to the functions it touched; a new function counts in full, a deleted one negatively."""
    both = measure.complexity_pair(version.before, version.after)
    if both is None:
        return _Complexity(None)
    old, new = both
    changes = []
    for name in [*new, *(n for n in old if n not in new)]:
        delta = new.get(name, 0) - old.get(name, 0)
        if delta:
            changes.append(ComplexityChange(version.label, name, delta))
    return _Complexity(sum(new.values()) - sum(old.values()), tuple(changes))


def _added_complexity(
    parts: list[tuple[str, _Complexity]],
) -> tuple[int | None, list[ComplexityChange], list[str]]:
    """Added cognitive complexity: Σ over the touched Python files, in the order given; None when no
    Python file could be measured."""
    added = [part.added for _, part in parts if part.added is not None]
    changes = [c for _, part in parts for c in part.changes]
    unmeasured = [label for label, part in parts if part.added is None]
    return (sum(added) if added else None), changes, unmeasured


@dataclass(frozen=True, slots=True)
class _Part:
    """What one file adds to the numbers, and what the visitor noted of it (`_Tally` adds them up)."""

    key: _Key
    count: EditCount | None  # nd(M, C), when the candidate changed the file
    gold_count: EditCount | None  # nd(G, C), when the reference changed it
    head_side: EditCount | None  # nd(M, C) over the union
    gold_side: EditCount | None  # nd(G, C) over the union
    complexity: tuple[str, _Complexity] | None
    raw_edits: int
    formatting: int
    unparsed: tuple[str, ...]
    estimated: tuple[str, ...]
    note: bool | None


@dataclass
class _Tally:
    """What the files measured so far add up to."""

    counts: dict[_Key, EditCount] = field(default_factory=dict)  # nd(M, C)
    gold_counts: dict[_Key, EditCount] = field(default_factory=dict)  # nd(G, C)
    head_side: dict[_Key, EditCount] = field(default_factory=dict)  # nd(M, C) over the union
    gold_side: dict[_Key, EditCount] = field(default_factory=dict)  # nd(G, C) over the union
    complexity: dict[_Key, tuple[str, _Complexity]] = field(default_factory=dict)
    unparsed: set[str] = field(default_factory=set)
    estimated: set[str] = field(default_factory=set)
    raw_edits: int = 0
    formatting: int = 0

    def add(self, part: _Part) -> None:
        if part.count is not None:
            self.counts[part.key] = part.count
        if part.gold_count is not None:
            self.gold_counts[part.key] = part.gold_count
        if part.head_side is not None:
            self.head_side[part.key] = part.head_side
        if part.gold_side is not None:
            self.gold_side[part.key] = part.gold_side
        if part.complexity is not None:
            self.complexity[part.key] = part.complexity
        self.unparsed.update(part.unparsed)
        self.estimated.update(part.estimated)
        self.raw_edits += part.raw_edits
        self.formatting += part.formatting


def _unchanged(known: _Version) -> _Version:
    """A file one side leaves alone: its base text on that side."""
    return _Version(known.label, known.before, known.before)


@dataclass(frozen=True, slots=True)
class _Files:
    """The files one receipt measures, and how: `measured` reads some of the `keys` (fan.py)."""

    mine: _Side
    theirs: _Side | None
    union: frozenset[_Key]
    visitor: Visitor | None

    def measured(self, keys: Sequence[_Key]) -> list[_Part]:
        measure = _Measure()
        parts = []
        for key in keys:
            parts.append(self._file(measure, key))
            measure.forget()
        return parts

    def _file(self, measure: _Measure, key: _Key) -> _Part:
        """Every number one file adds, read in one go so that its texts can be forgotten after."""
        ours = self.mine.versions.get(key)
        note = None
        if ours is not None and self.visitor is not None:
            note = self.visitor.read(ours.label, ours.before, ours.after, measure.tokenizer)
        gold = self.theirs.versions.get(key) if self.theirs is not None else None
        compared = ours  # (C, M) for the complexity, or (G, M) when there is a reference
        sides: tuple[_Version, _Version] | None = None  # (M, G) over the union, a left-alone side as C
        if self.theirs is not None:
            compared = None
            if key in self.union:
                known = ours or gold
                assert known is not None
                sides = (ours or _unchanged(known), gold or _unchanged(known))
                compared = _Version(known.label, sides[1].after, sides[0].after)
        # The complexity first: the trees it parses (of the statements two versions do not share)
        # also tell the token reading that those statements parse, which it would otherwise compile.
        complexity = None
        if compared is not None and is_python(compared.label):
            complexity = (compared.label, _complexity(measure, compared))
        count = gold_count = head_side = gold_side = None
        raw = formatting = 0
        if ours is not None:
            count = measure.count(ours)
            raw, formatting = measure.layout(ours, count)
        if gold is not None:
            gold_count = measure.count(gold)
        if sides is not None:
            head, ref = sides
            head_side = count if count is not None else measure.count(head)
            gold_side = gold_count if gold_count is not None else measure.count(ref)
        return _Part(
            key,
            count,
            gold_count,
            head_side,
            gold_side,
            complexity,
            raw,
            formatting,
            tuple(sorted(measure.unparsed)),
            tuple(sorted(measure.estimated)),
            note,
        )

    def weight(self, key: _Key) -> int:
        """How much reading `key` costs, near enough: the characters of its texts."""
        return sum(
            len(v.before) + len(v.after)
            for side in (self.mine, self.theirs)
            if side is not None and (v := side.versions.get(key)) is not None
        )


def measure_excess(
    change: Change,
    reference: Reference | None = None,
    *,
    visitor: Visitor | None = None,
    fan: Fan = in_order,
) -> ExcessResult:
    """Every number of the excess field, not yet judged against a policy (see `judge_excess`);
    `visitor` reads each changed file's two texts before they are (none when above TEXT_LIMIT), and
    `fan` decides where the files are read (fan.py): the numbers are the same wherever.

    Raises PatchApplyError when the reference does not apply to the base.
    """
    mine = _candidate(change)
    theirs = _reference(change, reference) if reference is not None else None
    size = sum(
        len(v.before) + len(v.after) for side in (mine, theirs) if side for v in side.versions.values()
    )
    if size > TEXT_LIMIT:
        return ExcessResult(
            reference=ReferenceInfo(reference.source, reference.digest) if reference else None,
            files=len(mine.versions),
            too_large=size,
        )
    union: frozenset[_Key] = frozenset()
    gold_only: list[_Key] = []
    if theirs is not None:
        union = frozenset((mine.versions.keys() | theirs.versions.keys()) - mine.left_out - theirs.left_out)
        gold_only = [key for key in theirs.versions if key not in mine.versions]
    files = _Files(mine, theirs, union, visitor)
    keys = [*mine.versions, *gold_only]
    tally = _Tally()
    for part in fan(files.measured, keys, [files.weight(key) for key in keys]):
        tally.add(part)
        ours = mine.versions.get(part.key)
        if visitor is not None and ours is not None:
            visitor.keep(ours.before, ours.after, part.note)
    share = (tally.formatting / tally.raw_edits if tally.raw_edits else 0.0) if mine.versions else None
    result = ExcessResult(
        distance=total(list(tally.counts.values())).value, formatting_share=share, files=len(mine.versions)
    )
    excluded = list(mine.excluded)
    order = list(mine.versions)  # the complexity's order: the diff's, or the union's (sorted)
    if reference is not None and theirs is not None:
        excluded.extend(theirs.excluded)
        order = sorted(union)
        head_total = total([tally.head_side[key] for key in order])
        gold_total = total([tally.gold_side[key] for key in order])
        result = replace(
            result,
            reference=ReferenceInfo(reference.source, reference.digest),
            reference_distance=total(list(tally.gold_counts.values())).value,
            excess=difference(head_total, gold_total),
            union_distance=head_total.value,
            union_reference_distance=gold_total.value,
        )
    added, changes, unmeasured = _added_complexity(
        [tally.complexity[k] for k in order if k in tally.complexity]
    )
    return replace(
        result,
        added_complexity=added,
        excluded=tuple(sorted(set(excluded), key=lambda e: (e.path, e.reason.value))),
        unparsed=tuple(sorted(tally.unparsed)),
        estimated=tuple(sorted(tally.estimated)),
        complexity_changes=tuple(changes),
        complexity_unmeasured=tuple(unmeasured),
    )


def _above(value: float | None, limit: float | None) -> bool:
    return value is not None and limit is not None and value > limit


def judge_excess(result: ExcessResult, policy: ExcessPolicy) -> ExcessResult:
    """Raise the alarm for every limit the manifest sets and the numbers exceed; no limit, no alarm."""
    reasons: list[str] = []
    limits = (policy.max_distance, policy.max_excess, policy.max_added_complexity)
    if result.too_large is not None and any(limit is not None for limit in limits):
        reasons.append(
            f"excess could not be measured: {result.not_measured}, so the limits the policy sets "
            "cannot be checked"
        )
    if _above(result.distance, policy.max_distance):
        reasons.append(f"distance {result.distance:.3f} is above excess.max_distance {policy.max_distance:g}")
    if _above(result.excess, policy.max_excess):
        reasons.append(
            f"excess {result.excess:+.3f} over the reference is above excess.max_excess {policy.max_excess:g}"
        )
    if _above(result.added_complexity, policy.max_added_complexity):
        reasons.append(
            f"added cognitive complexity {result.added_complexity:+d} is above "
            f"excess.max_added_complexity {policy.max_added_complexity}"
        )
    return replace(result, alarm=bool(reasons), alarm_reasons=tuple(reasons))

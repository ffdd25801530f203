"""The excess field: how much more a change rewrote than it had to.

C is a file's base version, M the head's, G the base with the reference patch applied. Over the
changed text files, `distance = Σ Lev(C, M) / Σ max(|C|, |M|)` in tokens (tokens.py, distance.py).
With a reference, `reference_distance` is the same over the files the reference touches, and
`excess = nd(M, C) − nd(G, C)` over the union of the files either side touches, where a file one
side leaves alone counts with its base text on that side. `formatting_share` is the part of the
raw token change (comments, layout, quote style included) that normalization removes;
`added_complexity` is the cognitive complexity the change added to the Python functions it touched,
against G when there is a reference and against C otherwise.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum

from bot.engine.change import Change
from bot.engine.complexity import function_complexities
from bot.engine.diff import FileDiff, FileStatus
from bot.engine.distance import EditCount, Total, difference, edit_count, levenshtein, total
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


# The metrics read whole files (parse, unparse, tokenize, edit distance) at about a megabyte a second;
# past this many characters of C, M and G a receipt would take minutes, so the numbers are left out
# and said to be. A limit is a count, not a clock, so the same change always gets the same receipt.
TEXT_LIMIT = 4 * 1024 * 1024


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
    """Token counts for one evaluation; every text is read once."""

    def __init__(self) -> None:
        self.tokenizer = Tokenizer()
        self.unparsed: set[str] = set()

    def count(self, version: _Version) -> EditCount:
        pair = self.tokenizer.pair(version.label, version.before, version.after)
        if is_python(version.label) and pair.mode is not TokenMode.NORMALIZED:
            self.unparsed.add(version.label)
        return edit_count(pair.left, pair.right)

    def formatting_share(self, versions: dict[_Key, _Version], counts: dict[_Key, EditCount]) -> float | None:
        raw_edits = 0
        formatting = 0
        for key, version in versions.items():
            raw = levenshtein(*self.tokenizer.raw_pair(version.label, version.before, version.after))
            raw_edits += raw
            # the two views count slightly different units: normalization never adds formatting
            formatting += max(0, raw - counts[key].edits)
        if not versions:
            return None
        return formatting / raw_edits if raw_edits else 0.0


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


def _complexity(
    versions: Iterable[_Version], parse: Callable[[str], ast.Module | None]
) -> tuple[int | None, list[ComplexityChange], list[str]]:
    """Added cognitive complexity: Σ over the touched Python files of CC(after) − CC(before).

    Functions a change leaves alone have equal complexity on both sides, so this is what the change
    added to the functions it touched; a new function counts in full, a deleted one negatively.
    None when no Python file could be measured.
    """
    added = 0
    measured = 0
    changes: list[ComplexityChange] = []
    unmeasured: list[str] = []
    for version in versions:
        if not is_python(version.label):
            continue
        before = function_complexities(version.before, parse)
        after = function_complexities(version.after, parse)
        if before is None or after is None:
            unmeasured.append(version.label)
            continue
        measured += 1
        old = {f.name: f.complexity for f in before}
        new = {f.name: f.complexity for f in after}
        for name in [*new, *(n for n in old if n not in new)]:
            delta = new.get(name, 0) - old.get(name, 0)
            if delta:
                changes.append(ComplexityChange(version.label, name, delta))
        added += sum(new.values()) - sum(old.values())
    return (added if measured else None), changes, unmeasured


def _union(
    measure: _Measure,
    mine: _Side,
    counts: dict[_Key, EditCount],
    theirs: _Side,
    gold_counts: dict[_Key, EditCount],
) -> tuple[Total, Total, list[_Version]]:
    """nd(M, C) and nd(G, C) over the files either side touches, and the (G, M) pairs for complexity."""
    union = sorted((mine.versions.keys() | theirs.versions.keys()) - mine.left_out - theirs.left_out)
    head_side: list[EditCount] = []
    gold_side: list[EditCount] = []
    compared: list[_Version] = []
    for key in union:
        ours, gold = mine.versions.get(key), theirs.versions.get(key)
        known = ours or gold
        assert known is not None
        # a file one side leaves alone is its base text on that side
        head = ours if ours is not None else _Version(known.label, known.before, known.before)
        ref = gold if gold is not None else _Version(known.label, known.before, known.before)
        head_side.append(counts[key] if ours is not None else measure.count(head))
        gold_side.append(gold_counts[key] if gold is not None else measure.count(ref))
        compared.append(_Version(known.label, ref.after, head.after))
    return total(head_side), total(gold_side), compared


def measure_excess(change: Change, reference: Reference | None = None) -> ExcessResult:
    """Every number of the excess field, not yet judged against a policy (see `judge_excess`).

    Raises PatchApplyError when the reference does not apply to the base.
    """
    measure = _Measure()
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
    counts = {key: measure.count(v) for key, v in mine.versions.items()}
    result = ExcessResult(
        distance=total(list(counts.values())).value,
        formatting_share=measure.formatting_share(mine.versions, counts),
        files=len(mine.versions),
    )
    excluded = list(mine.excluded)
    compared = list(mine.versions.values())  # (C or G, M) for the complexity
    if reference is not None and theirs is not None:
        excluded.extend(theirs.excluded)
        gold_counts = {key: measure.count(v) for key, v in theirs.versions.items()}
        head_total, gold_total, compared = _union(measure, mine, counts, theirs, gold_counts)
        result = replace(
            result,
            reference=ReferenceInfo(reference.source, reference.digest),
            reference_distance=total(list(gold_counts.values())).value,
            excess=difference(head_total, gold_total),
            union_distance=head_total.value,
            union_reference_distance=gold_total.value,
        )
    added, changes, unmeasured = _complexity(compared, measure.tokenizer.tree)
    return replace(
        result,
        added_complexity=added,
        excluded=tuple(sorted(set(excluded), key=lambda e: (e.path, e.reason.value))),
        unparsed=tuple(sorted(measure.unparsed)),
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
            f"excess could not be measured: the changed files hold {result.too_large:,} characters, above "
            f"the {TEXT_LIMIT:,} the metrics read, so the limits the policy sets cannot be checked"
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

"""Locality: logical lines, formatting-only churn, and the manifest's budgets."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from bot.engine.diff import Diff, DiffLine, FileDiff
from bot.engine.findings import RuleId, Violation
from bot.engine.globs import matches
from bot.engine.groups import MANIFEST_PATH
from bot.engine.lexing import Lexicon, LineTokens, lexicon_for, tokenize_lines
from bot.engine.manifest import Manifest, Reformat


@dataclass(frozen=True, slots=True)
class BlockMeasure:
    logical: int
    formatting: int
    first_formatting_line: int | None


@dataclass(frozen=True, slots=True)
class FileMeasure:
    """Locality numbers of one file of the change."""

    file: FileDiff
    hunks: int
    logical_lines: int
    formatting_lines: int
    first_formatting_line: int | None


def measure_block(removed: Sequence[DiffLine], added: Sequence[DiffLine], lexicon: Lexicon) -> BlockMeasure:
    """Logical and formatting-only lines of one block (DESIGN: a one-operator fix is 1 line).

    Lines are those the language reads (`tokenize_lines`). Blank and comment-only lines do not
    count; removed/added pairs whose code tokens are equal cancel out. A pair, or the whole block,
    whose tokens *including comments* are equal is formatting-only (whitespace, wrapping, quote
    style), so editing a comment is not churn.
    """
    first = added[0].number if added else removed[0].number
    return _measured(
        [line.text for line in removed],
        [line.text for line in added],
        [line.number for line in added],
        first,
        lexicon,
    )


def _measured(
    removed: list[str], added: list[str], numbers: list[int], first: int, lexicon: Lexicon
) -> BlockMeasure:
    """`measure_block` of a block's texts: `numbers` are the added lines', `first` its first line's."""
    if not removed or not added:
        return _one_sided(removed or added, first, lexicon)
    old = [t for text in removed for t in tokenize_lines(text, lexicon)]
    new = [
        (number, t)
        for text, number in zip(added, numbers, strict=True)
        for t in tokenize_lines(text, lexicon)
    ]
    if len(old) == 1 and len(new) == 1:
        return _measure_pair(old[0], new[0][1], first)
    new_tokens = [t for _, t in new]
    if _joined(old, everything=True) == _joined(new_tokens, everything=True):
        return BlockMeasure(0, max(len(old), len(new)), first)
    if _joined(old, everything=False) == _joined(new_tokens, everything=False):
        return BlockMeasure(0, 0, None)
    old_code = Counter(t.code for t in old if t.code)
    pending_formatting = Counter(t.everything for t in old if t.code)
    unmatched_new = 0
    formatting = 0
    first_formatting: int | None = None
    for number, tokens in new:
        if not tokens.code:
            continue
        if old_code[tokens.code] > 0:
            old_code[tokens.code] -= 1
            if pending_formatting[tokens.everything] > 0:
                pending_formatting[tokens.everything] -= 1
                formatting += 1
                first_formatting = first_formatting or number
        else:
            unmatched_new += 1
    unmatched_old = sum(old_code.values())
    return BlockMeasure(max(unmatched_old, unmatched_new), formatting, first_formatting)


def _one_sided(texts: list[str], first: int, lexicon: Lexicon) -> BlockMeasure:
    """A block that only adds or only removes lines (a new file, a deleted one), as the general rule
    measures it — every line with code counts, and a block of blank lines is formatting — counting
    each line's tokens as they are read: a new file of a million lines would hold them all at once."""
    lines = with_code = 0
    commented = False
    for text in texts:
        for tokens in tokenize_lines(text, lexicon):
            lines += 1
            with_code += bool(tokens.code)
            commented = commented or bool(tokens.comment)
    if with_code:
        return BlockMeasure(with_code, 0, None)
    return BlockMeasure(0, 0, None) if commented else BlockMeasure(0, lines, first)


def _measure_pair(old: LineTokens, new: LineTokens, line: int) -> BlockMeasure:
    """The most common block, one line replaced by one: the general rule, without its bookkeeping."""
    if old.everything == new.everything:
        return BlockMeasure(0, 1, line)
    if old.code == new.code:
        return BlockMeasure(0, 0, None)
    return BlockMeasure(max(bool(old.code), bool(new.code)), 0, None)


def _joined(lines: Sequence[LineTokens], *, everything: bool) -> tuple[str, ...]:
    out: list[str] = []
    for tokens in lines:
        out.extend(tokens.everything if everything else tokens.code)
    return tuple(out)


def measure_file(file: FileDiff) -> FileMeasure:
    lexicon = lexicon_for(file.path)
    logical = formatting = 0
    first: int | None = None
    for hunk in file.hunks:
        for removed, added, numbers, first_line in hunk.changed_blocks():
            block = _measured(removed, added, numbers, first_line, lexicon)
            logical += block.logical
            formatting += block.formatting
            if first is None:
                first = block.first_formatting_line
    return FileMeasure(file, len(file.hunks), logical, formatting, first)


@dataclass(frozen=True, slots=True)
class BudgetUse:
    name: str
    used: int
    limit: int | None
    paths: tuple[str, ...] | None

    @property
    def exceeded(self) -> bool:
        return self.limit is not None and self.used > self.limit


@dataclass(frozen=True, slots=True)
class LocalityResult:
    measures: tuple[FileMeasure, ...]
    budgets: tuple[BudgetUse, ...]
    violations: tuple[Violation, ...]

    @property
    def logical_lines(self) -> int:
        return sum(m.logical_lines for m in self.measures)


def _uses(
    measures: Sequence[FileMeasure],
    prefix: str,
    paths: tuple[str, ...] | None,
    limits: tuple[int | None, int | None, int | None],
) -> list[BudgetUse]:
    files, hunks, logical = limits
    return [
        BudgetUse(f"{prefix}files", len(measures), files, paths),
        BudgetUse(f"{prefix}hunks", sum(m.hunks for m in measures), hunks, paths),
        BudgetUse(f"{prefix}logical_lines", sum(m.logical_lines for m in measures), logical, paths),
    ]


def _budget_violation(
    use: BudgetUse, measures: Sequence[FileMeasure], *, merged: int | None = None
) -> Violation:
    """A budget is a sum over files: the finding is about the change (path None), not one file.
    `merged`: the head side's count, when the merge side (`base..merge`) is the larger and decides."""
    unit = use.name.rsplit(".", 1)[-1]
    biggest = max(measures, key=lambda m: (m.logical_lines, m.hunks, m.file.path))
    where = f" for {', '.join(use.paths)}" if use.paths else ""
    who = "The change" if merged is None else "When merged onto the base, the change"
    also = "" if merged is None else f" (merge-base..head alone: {merged})"
    return Violation(
        RuleId.BUDGET,
        None,
        None,
        f"{who} uses {use.used} {unit.replace('_', ' ')}{where}{also}; the budget is "
        f"{use.limit}. Split it or drop what the fix does not need (largest here: {biggest.file.path!r}, "
        f"{biggest.logical_lines} logical lines), or a maintainer can raise budgets.{use.name} "
        f"in {MANIFEST_PATH}.",
        f"budgets.{use.name}",
    )


def _budget_uses(
    measures: Sequence[FileMeasure], manifest: Manifest
) -> list[tuple[BudgetUse, Sequence[FileMeasure]]]:
    """Every budget the manifest sets, with what one side of the change uses of it."""
    budgets = manifest.budgets
    found: list[tuple[BudgetUse, Sequence[FileMeasure]]] = [
        (use, measures)
        for use in _uses(measures, "", None, (budgets.files, budgets.hunks, budgets.logical_lines))
        if use.limit is not None
    ]
    for per in budgets.per_path:
        inside = [m for m in measures if any(matches(per.paths, p, manifest.patterns) for p in m.file.paths)]
        limits = (per.files, per.hunks, per.logical_lines)
        found.extend(
            (use, inside)
            for use in _uses(inside, f"per_path[{per.index}].", per.paths, limits)
            if use.limit is not None
        )
    return found


def evaluate_locality(
    diff: Diff, manifest: Manifest, merged: Sequence[FileMeasure] | None = None
) -> LocalityResult:
    """Budgets count the larger of the two sides: `diff` (merge-base..head) and, when given, the
    measures of `base..merge` (what merging would change)."""
    measures = tuple(measure_file(f) for f in diff.files)
    head_uses = _budget_uses(measures, manifest)
    merge_uses = _budget_uses(merged, manifest) if merged is not None else head_uses
    uses: list[BudgetUse] = []
    violations: list[Violation] = []
    for (head, inside), (merge, merged_inside) in zip(head_uses, merge_uses, strict=True):
        larger = merge.used > head.used
        use = merge if larger else head
        uses.append(use)
        if use.exceeded:
            violations.append(
                _budget_violation(use, merged_inside, merged=head.used)
                if larger
                else _budget_violation(use, inside)
            )
    if manifest.reformat is Reformat.FORBID:
        violations.extend(
            Violation(
                RuleId.REFORMAT,
                m.file.path,
                m.first_formatting_line,
                f"{m.formatting_lines} formatting-only line(s) in {m.file.path!r} (first at line "
                f"{m.first_formatting_line}): whitespace, wrapping or quoting changed but not the "
                "code. Revert the reformatting, or a maintainer can set locality.reformat: allow.",
                "locality.reformat",
            )
            for m in measures
            if m.formatting_lines
        )
    return LocalityResult(measures, tuple(uses), tuple(violations))

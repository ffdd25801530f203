"""The merge side in one sentence (Markdown and terminal): what merging would change, or why unknown.

A fast-forward says nothing: merging then changes exactly what `merge-base..head` does.
"""

from __future__ import annotations

from bot.engine.merging import MergeSource
from bot.engine.receipt import Receipt

_BY = {MergeSource.MERGE_TREE: "git merge-tree", MergeSource.GITHUB: "GitHub's test merge"}


def merge_sentence(receipt: Receipt) -> str | None:
    merge = receipt.merge
    if merge is None or merge.source is MergeSource.FAST_FORWARD:
        return None
    onto = f"onto the base {receipt.subject.base[:12]}"
    if merge.change is None:
        return f"as merged {onto}: cannot assess ({merge.problem})"
    c = merge.change
    result = (merge.commit or merge.tree or "")[:12]
    return (
        f"as merged {onto} ({_BY[merge.source]} {result}): {c.files} file(s), {c.hunks} hunk(s), "
        f"+{c.added_lines} -{c.removed_lines}, {c.logical_lines} logical line(s); path rules and "
        "budgets judge this side too"
    )

"""Work the engine may spread: independent items, each read by the same pure function.

The engine says what may run apart and how much each item weighs; its caller decides where it runs
(local/fanout.py deals the items out to forked processes on a machine with cores to spare). `work`
gives one result per item, in the items' order, and an item's result depends on that item alone,
so any subsequence of the items may be read apart. Whoever runs it, the answer is `work(items)`:
a receipt never depends on where its numbers were counted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Fan(Protocol):
    def __call__(
        self, work: Callable[[Sequence[T]], list[R]], items: Sequence[T], weights: Sequence[int]
    ) -> list[R]: ...


def in_order(work: Callable[[Sequence[T]], list[R]], items: Sequence[T], weights: Sequence[int]) -> list[R]:
    """Every item in this process, in order: the engine's default."""
    return work(items)

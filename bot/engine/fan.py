"""Work the engine may spread: independent items, each read by the same pure function.

The engine says what may run apart and how much each item weighs; its caller decides where it runs
(local/fanout.py runs slices of the items in forked processes on a machine with cores to spare).
Whoever runs it, the answer is `work(items)`: one result per item, in the items' order, and
`work(a + b) == work(a) + work(b)`, so a receipt never depends on where its numbers were counted.
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

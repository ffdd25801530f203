"""Paired bootstrap by task: the attempts of one task are not independent, so tasks are resampled.

Each metric of an arm is first averaged per task (over that task's attempts), then the difference of
two arms is taken task by task; a bootstrap replicate draws as many tasks as there are, with
replacement, and averages their differences. The interval is the percentile interval of the
replicates. The generator is `random.Random(seed)`, so the same seed and iterations give the same
interval on every machine; both are recorded in the report.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_SEED = 20260101
DEFAULT_ITERATIONS = 10_000
CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class Interval:
    estimate: float | None  # the mean of the per-task differences (None: no task)
    low: float | None
    high: float | None
    tasks: int

    def as_json(self) -> dict[str, Any]:
        return {"difference": self.estimate, "low": self.low, "high": self.high, "tasks": self.tasks}


def percentile(ordered: Sequence[float], q: float) -> float:
    """The order statistic at rank round(q·(n−1)) of a sorted sequence."""
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def replicates(columns: Sequence[Sequence[float]], *, iterations: int, seed: int) -> list[list[float]]:
    """For each column (one value per task, every column over the same tasks), the bootstrap
    replicates of its mean: the same resampled tasks serve every column (paired)."""
    n = len(columns[0]) if columns else 0
    if n == 0:
        return [[] for _ in columns]
    rng = random.Random(seed)
    population = range(n)
    out: list[list[float]] = [[] for _ in columns]
    for _ in range(iterations):
        picked = rng.choices(population, k=n)
        for column, sink in zip(columns, out, strict=True):
            sink.append(math.fsum(column[i] for i in picked) / n)
    return out


def intervals(
    columns: Sequence[Sequence[float]],
    *,
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = DEFAULT_SEED,
    confidence: float = CONFIDENCE,
) -> list[Interval]:
    """A percentile interval for the mean of each column of per-task differences."""
    alpha = 1 - confidence
    found: list[Interval] = []
    for column, reps in zip(columns, replicates(columns, iterations=iterations, seed=seed), strict=True):
        if not column:
            found.append(Interval(None, None, None, 0))
            continue
        ordered = sorted(reps)
        estimate = math.fsum(column) / len(column)
        found.append(
            Interval(
                estimate, percentile(ordered, alpha / 2), percentile(ordered, 1 - alpha / 2), len(column)
            )
        )
    return found


def mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def median(values: Sequence[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2

"""The paired bootstrap against cases whose answer is known in closed form."""

from __future__ import annotations

import math
from collections import Counter

from bot.replay.stats import intervals, percentile, replicates


def test_two_tasks_give_the_binomial_distribution_of_resampled_means() -> None:
    # Differences (0, 1): a resample of two tasks holds k ones with probability C(2,k)/4,
    # so its mean is 0, 0.5 or 1 with probabilities 1/4, 1/2, 1/4.
    iterations = 40_000
    counts = Counter(replicates([[0.0, 1.0]], iterations=iterations, seed=7)[0])
    for value, p in ((0.0, 0.25), (0.5, 0.5), (1.0, 0.25)):
        sigma = math.sqrt(p * (1 - p) / iterations)
        assert abs(counts[value] / iterations - p) < 4 * sigma, (value, counts)
    (interval,) = intervals([[0.0, 1.0]], iterations=iterations, seed=7)
    assert (interval.estimate, interval.low, interval.high, interval.tasks) == (0.5, 0.0, 1.0, 2)


def test_the_spread_of_replicates_is_the_plug_in_standard_error() -> None:
    # Var*(mean of a resample) = (1/n) · (1/n) Σ (d_i − d̄)², exactly, for the bootstrap distribution.
    d = [float(x) for x in (-1, 0, 0, 1, 1, 1, 0, -1, 1, 0, 1, 1)]
    n, iterations = len(d), 40_000
    mean = sum(d) / n
    expected = sum((x - mean) ** 2 for x in d) / n / n
    reps = replicates([d], iterations=iterations, seed=3)[0]
    centre = sum(reps) / iterations
    variance = sum((r - centre) ** 2 for r in reps) / iterations
    assert abs(centre - mean) < 4 * math.sqrt(expected / iterations)
    assert abs(variance / expected - 1) < 0.05  # Monte Carlo error of a variance from 40,000 draws: ~0.7%


def test_equal_differences_have_a_degenerate_interval_and_no_task_none() -> None:
    (same,) = intervals([[0.25, 0.25, 0.25]], iterations=500)
    assert (same.estimate, same.low, same.high) == (0.25, 0.25, 0.25)
    (empty,) = intervals([[]], iterations=500)
    assert (empty.estimate, empty.low, empty.high, empty.tasks) == (None, None, None, 0)


def test_seeded_and_paired() -> None:
    a = [0.0, 1.0, 0.0, 1.0, 1.0]
    first = replicates([a, [2 * x for x in a]], iterations=300, seed=11)
    again = replicates([a], iterations=300, seed=11)
    assert first[0] == again[0]  # the same seed, the same resamples
    assert first[1] == [2 * x for x in first[0]]  # every column resampled on the same tasks
    assert replicates([a], iterations=300, seed=12)[0] != first[0]


def test_percentile_ranks() -> None:
    ordered = [float(i) for i in range(101)]
    assert (percentile(ordered, 0.025), percentile(ordered, 0.5), percentile(ordered, 0.975)) == (
        2.0,
        50.0,
        98.0,
    )

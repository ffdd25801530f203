"""Benchmark: `receipt check --reference` over the 400 edit-fidelity tasks, three heads per task.

    .venv/bin/python bench/edit_fidelity.py [--tasks N]

Builds one repository (C of every task on main; a branch per task and variant, see
tests/excess/corpus.py), then runs the CLI in-process for every task and variant and, as a
baseline for the same range, `git diff main VARIANT/N` as a subprocess. Prints time per task and
the distribution of excess, formatting_share and added_complexity.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli import main
from bot.engine.excess import measure_excess
from bot.local.check import CheckOptions, local_inputs
from tests.excess import corpus

_HEADS = {
    "gold": "G, the reference fix itself",
    "reformatted": "G reformatted (quotes, spacing, wrapping, comments)",
    "guard": "G plus a guard clause at the top of task_func",
}


def _quantiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    return {
        "min": ordered[0],
        "p25": at(0.25),
        "median": at(0.5),
        "p75": at(0.75),
        "p95": at(0.95),
        "max": ordered[-1],
    }


def _row(name: str, values: list[float], fmt: str) -> str:
    q = _quantiles(values)
    return f"  {name:<22}" + "  ".join(f"{k} {format(v, fmt)}" for k, v in q.items())


def _check(repo: Path, task: corpus.Task, variant: str) -> tuple[float, dict[str, Any]]:
    patch = repo / "patches" / f"{task.slug}.patch"
    argv = ["check", "--repo", str(repo), "--base", "main", "--head", f"{variant}/{task.slug}"]
    out = io.StringIO()
    start = time.perf_counter()
    with redirect_stdout(out):
        code = main([*argv, "--reference", str(patch), "--no-tests", "--json", "-"])
    elapsed = time.perf_counter() - start
    if code not in (0, 1):  # 1 is a verdict: BigCodeBench/394's gold holds a zero-width space
        raise SystemExit(f"{task.task_id} {variant}: exit {code}")
    excess: dict[str, Any] = json.loads(out.getvalue())["excess"]
    return elapsed, excess


def _engine(repo: Path, task: corpus.Task, variant: str) -> float:
    """measure_excess alone, on inputs gathered beforehand: the metrics without git."""
    patch = repo / "patches" / f"{task.slug}.patch"
    options = CheckOptions(
        repo=repo, base="main", head=f"{variant}/{task.slug}", no_tests=True, reference=patch
    )
    inputs = local_inputs(options)
    start = time.perf_counter()
    measure_excess(inputs.change, inputs.reference)
    return time.perf_counter() - start


def _git_diff(repo: Path, task: corpus.Task, variant: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        ["git", "diff", "--no-color", "main", f"{variant}/{task.slug}", "--"],
        cwd=repo,
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - start


def run(limit: int | None) -> None:
    tasks = corpus.load_tasks()[:limit]
    vectors = corpus.load_vectors()
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        repo = corpus.build_repository(Path(scratch) / "repo", tasks)
        built = time.perf_counter() - start
        print(f"edit-fidelity corpus: {len(tasks)} tasks, Python {sys.version.split()[0]}")
        print(f"repository with {len(tasks) * len(corpus.VARIANTS)} heads built in {built:.1f} s")
        for variant in corpus.VARIANTS:
            times: list[float] = []
            baseline: list[float] = []
            engine: list[float] = []
            results: list[dict[str, Any]] = []
            for task in tasks:
                elapsed, excess = _check(repo, task, variant)
                times.append(elapsed)
                results.append(excess)
                baseline.append(_git_diff(repo, task, variant))
                engine.append(_engine(repo, task, variant))
            excesses = [r["excess"] for r in results]
            mean, base_mean = statistics.fmean(times), statistics.fmean(baseline)
            print(f"\n{variant}: head = {_HEADS[variant]}")
            print(
                f"  time per task          receipt check {mean * 1000:.1f} ms (median "
                f"{statistics.median(times) * 1000:.1f}, p95 {_quantiles(times)['p95'] * 1000:.1f}); "
                f"git diff {base_mean * 1000:.1f} ms; ratio {mean / base_mean:.1f}x"
            )
            print(
                f"  of which the metrics   measure_excess {statistics.fmean(engine) * 1000:.1f} ms "
                f"(median {statistics.median(engine) * 1000:.1f}, p95 {_quantiles(engine)['p95'] * 1000:.1f})"
            )
            print(
                f"  excess                 == 0: {sum(e == 0 for e in excesses)}, "
                f"> 0: {sum(e > 0 for e in excesses)}, < 0: {sum(e < 0 for e in excesses)}"
            )
            print(_row("excess", excesses, ".4f"))
            print(_row("distance", [r["distance"] for r in results], ".4f"))
            print(_row("formatting_share", [r["formatting_share"] for r in results], ".3f"))
            print(_row("added_complexity", [float(r["added_complexity"]) for r in results], ".0f"))
            if variant == "gold":
                same = sum(
                    r["reference_distance"] == vectors[t.task_id]["nd_gold_vs_buggy"]
                    for t, r in zip(tasks, results, strict=True)
                )
                print(f"  reference_distance equal to the paper's nd: {same}/{len(tasks)}")


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, help="only the first N tasks")
    args = parser.parse_args()
    if not corpus.available():
        raise SystemExit(f"edit-fidelity data not found at {corpus.DATA_DIR}")
    run(args.tasks)


if __name__ == "__main__":
    cli()

"""The content scan as installed (default policy) on the clean corpus of bench/content_rules.py, for
this tree and a baseline revision, run alternately in fresh processes so that a loaded machine
slows both alike; with `--from-diff-bytes`, the `secret` rule from the diff's bytes instead (the
diff parse and the building of the added text included).

    .venv/bin/python bench/content_paired.py --baseline b8e5823 [--pairs 7] [--from-diff-bytes] [--cpu]

`--cpu` times each scan by the process's CPU time instead of the wall clock: on a machine loaded
past its cores, waiting for one is not the scan's cost. `--processes N` runs the scan as `receipt
check` does (`content_violations` over N processes, local/fanout.py); a tree without that runs it
in one. With `--cpu` the time is then the CPU of the process and of its children together.

The baseline is exported with `git archive` into a temporary directory and imported from there;
each process builds the corpus, scans once untimed, then reports the best of five scans. Printed:
each pair, the medians, their ratio, and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _cpu() -> float:
    """CPU time of this process and of the children it has waited for."""
    return sum(
        usage.ru_utime + usage.ru_stime
        for usage in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    )


def _one(tree: Path, *, from_bytes: bool, cpu: bool, processes: int | None) -> float:
    """Best of five default scans (or secret scans from diff bytes), in a fresh process importing
    the engine from `tree`."""
    sys.path[:0] = [str(tree), str(tree / "bench")]
    from content_rules import stdlib_corpus

    from bot.cli import tune_gc
    from bot.engine.change import Change, change_from_diff
    from bot.engine.content.secrets import SecretsRule
    from bot.engine.manifest import Manifest
    from bot.engine.rules import content_violations

    data = stdlib_corpus(None).encode("utf-8", "surrogateescape")
    change = change_from_diff(data)
    tune_gc()

    clock = (_cpu if processes else time.process_time) if cpu else time.perf_counter
    spread = partial(content_violations, manifest=Manifest())
    if processes:
        try:
            from bot.local.fanout import Forked
        except ImportError:  # a tree from before the scan could be spread: in one process
            pass
        else:
            spread = partial(content_violations, manifest=Manifest(), fan=Forked(processes))

    def scan() -> float:
        start = clock()
        if from_bytes:
            list(SecretsRule().scan(change_from_diff(data), Manifest()))
            return clock() - start
        spread(Change(change.diff, change.digest, change.texts))
        return clock() - start

    scan()
    return min(scan() for _ in range(5))


def _run(tree: Path, *, from_bytes: bool, cpu: bool, processes: int | None) -> float:
    flag = ["--from-diff-bytes"] * from_bytes + ["--cpu"] * cpu
    flag += ["--processes", str(processes)] if processes else []
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(tree), *flag], check=True, capture_output=True, text=True
    )
    return float(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="revision to compare with (git archive of it)")
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--from-diff-bytes", action="store_true", help="the secret rule from diff bytes")
    parser.add_argument("--cpu", action="store_true", help="CPU time instead of the wall clock")
    parser.add_argument("--processes", type=int, help="the scan as receipt check runs it, over N processes")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        tree = Path(args.child)
        found = _one(tree, from_bytes=args.from_diff_bytes, cpu=args.cpu, processes=args.processes)
        print(f"{found:.4f}")
        return 0
    if not args.baseline:
        parser.error("--baseline is required")
    print("load average before: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    with tempfile.TemporaryDirectory() as scratch:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.baseline], check=True, capture_output=True
        )
        subprocess.run(["tar", "-x", "-C", scratch], input=archive.stdout, check=True)
        ours: list[float] = []
        theirs: list[float] = []
        for pair in range(args.pairs):
            first, second = (ROOT, Path(scratch)) if pair % 2 == 0 else (Path(scratch), ROOT)
            times = {
                tree: _run(tree, from_bytes=args.from_diff_bytes, cpu=args.cpu, processes=args.processes)
                for tree in (first, second)
            }
            ours.append(times[ROOT])
            theirs.append(times[Path(scratch)])
            print(f"pair {pair + 1}: this tree {ours[-1]:.3f} s, {args.baseline} {theirs[-1]:.3f} s")
    mine, base = statistics.median(ours), statistics.median(theirs)
    print(f"medians: this tree {mine:.3f} s, {args.baseline} {base:.3f} s; ratio {mine / base:.2f}")
    print("load average after: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

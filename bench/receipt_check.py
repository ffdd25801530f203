"""Wall time and peak memory of `receipt check` beside `git diff` over the same range.

    .venv/bin/python bench/receipt_check.py [--repeat N]

Builds two synthetic repositories in a temporary directory — a typical change (10 files, 300 changed
lines) and a large one (2,000 files, 200,000 changed lines; changed = added + removed) — and times,
in the same run, `git diff` over the range (the baseline: the least any tool reading the change must
do) and the full `receipt check --no-tests` as a user runs it, interpreter start included. Each
command runs in its own process; peak memory is that process's maximum resident set size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}  # fmt: skip


@dataclass(frozen=True)
class Shape:
    name: str
    files: int
    lines_per_file: int
    changed_per_file: int  # lines modified per file: each is one removed and one added line


TYPICAL = Shape("typical", files=10, lines_per_file=120, changed_per_file=15)
LARGE = Shape("large", files=2_000, lines_per_file=400, changed_per_file=50)


def _git(root: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | _GIT_ENV
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _source(shape: Shape, index: int, changed: bool) -> str:
    lines = []
    step = shape.lines_per_file // shape.changed_per_file
    for n in range(shape.lines_per_file):
        edited = changed and n % step == 0 and n // step < shape.changed_per_file
        op = "+" if edited else "-"
        lines.append(
            f"    total_{n} = compute(values[{n}], offset {op} {index}, scale={n % 7})  # step {n}\n"
        )
    return f"def function_{index}(values, offset):\n" + "".join(lines) + "    return total_0\n"


def build(root: Path, shape: Shape) -> None:
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    for i in range(shape.files):
        path = root / f"pkg{i % 40}" / f"module_{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(_source(shape, i, changed=False))
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    _git(root, "checkout", "-q", "-b", "pr")
    for i in range(shape.files):
        (root / f"pkg{i % 40}" / f"module_{i}.py").write_text(_source(shape, i, changed=True))
    _git(root, "commit", "-q", "-am", "change")


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_mib: float


def measure(command: list[str], cwd: Path) -> Run:
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{command[0]} failed: {process.stderr.read().decode() if process.stderr else ''}")
    return Run(elapsed, usage.ru_maxrss / 1024)


def median(runs: list[Run]) -> Run:
    return Run(statistics.median(r.seconds for r in runs), max(r.peak_mib for r in runs))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    receipt = [sys.executable, "-m", "bot.cli", "check", "--base", "main", "--head", "pr", "--no-tests",
               "--json", os.devnull]  # fmt: skip
    git_diff = ["git", "diff", "--find-renames", "main...pr"]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, median of {args.repeat} runs")
    print(f"{'change':<8} {'files':>6} {'changed':>8} {'git diff':>10} {'receipt':>10} {'ratio':>7} ", end="")
    print(f"{'git MiB':>8} {'receipt MiB':>12}")
    with tempfile.TemporaryDirectory(prefix="receipt-bench-") as scratch:
        for shape in (TYPICAL, LARGE):
            root = Path(scratch) / shape.name
            build(root, shape)
            repeat = args.repeat if shape is TYPICAL else max(1, args.repeat // 2)
            base = median([measure(git_diff, root) for _ in range(repeat)])
            ours = median([measure(receipt, root) for _ in range(repeat)])
            changed = shape.files * shape.changed_per_file * 2
            ratio = ours.seconds / base.seconds
            print(
                f"{shape.name:<8} {shape.files:>6} {changed:>8} {base.seconds:>9.3f}s {ours.seconds:>9.3f}s ",
                end="",
            )
            print(f"{ratio:>6.1f}x {base.peak_mib:>8.1f} {ours.peak_mib:>12.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

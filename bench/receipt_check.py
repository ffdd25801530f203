"""Start-up, and `receipt check` at every size, beside `git diff` over the same range.

    .venv/bin/python bench/receipt_check.py [--repeat N] [--only NAME ...] [--processes N]

Start-up: `python -c pass` (the interpreter alone), `receipt --help`, and `receipt check --no-tests`
on a typical change (10 files, 500 changed lines). Scaling: synthetic repositories of Python files
from 1,000 to 400,000 changed lines (changed = added + removed), one huge file, and 5,000 small files;
each row times, in the same run, `git diff` over the range (the baseline: the least any tool reading
the change must do) and the full `receipt check --no-tests` as a user runs it, interpreter start
included. Runs are interleaved (git diff, receipt, git diff, receipt, …) so a change in the machine's
load falls on both; figures are medians. Peak memory is the largest maximum resident set of the
receipt process and the processes it forks to read the change (`--processes`, passed on to it).
The load average is printed before and after: other processes slow every figure alike. The
package's bytecode is compiled first, as an installed receipt's is. Measured in December 2026, the
200k row peaks at about 235 MiB and the 400k row at about 440 MiB; on a shared machine, run the
large rows alone with `--only`.
"""

from __future__ import annotations

import argparse
import json
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
    scattered: bool = False  # the edits spread over every function, rather than run together

    @property
    def changed(self) -> int:
        return self.files * self.changed_per_file * 2


TYPICAL = Shape("typical", files=10, lines_per_file=300, changed_per_file=25)
SHAPES = (
    Shape("1k", files=20, lines_per_file=300, changed_per_file=25),
    Shape("10k", files=68, lines_per_file=500, changed_per_file=74),
    Shape("10k-spread", files=68, lines_per_file=500, changed_per_file=74, scattered=True),
    Shape("28k", files=195, lines_per_file=500, changed_per_file=73),
    Shape("200k", files=1_364, lines_per_file=500, changed_per_file=74),
    Shape("400k", files=2_728, lines_per_file=500, changed_per_file=74),
    Shape("huge-file", files=1, lines_per_file=100_000, changed_per_file=5_000),
    Shape("5000-small", files=5_000, lines_per_file=12, changed_per_file=2),
)


def _git(root: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | _GIT_ENV
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _edited(shape: Shape) -> frozenset[int]:
    """The lines that change. A real change edits some functions of a file and leaves the rest: the
    edits run together from the file's middle; `scattered` spreads them over every function."""
    body = [n for n in range(shape.lines_per_file) if n % 50]  # the def lines stay
    if shape.scattered:
        step = len(body) / shape.changed_per_file
        return frozenset(body[int(i * step)] for i in range(shape.changed_per_file))
    first = (len(body) - shape.changed_per_file) // 2
    return frozenset(body[first : first + shape.changed_per_file])


def _source(shape: Shape, index: int, changed: bool) -> str:
    """A module of one function per 50 lines (a test file's shape: many small functions)."""
    lines = []
    edited = _edited(shape) if changed else frozenset()
    for n in range(shape.lines_per_file):
        if n % 50 == 0:
            lines.append(f"def function_{index}_{n}(values, offset):\n")
            continue
        op = "+" if n in edited else "-"
        lines.append(f"    total_{n} = compute(values[{n}], offset {op} {index}, scale={n % 7})  # {n}\n")
    return "".join(lines) + "    return total_1\n"


def _path(root: Path, index: int) -> Path:
    return root / f"pkg{index % 40}" / f"module_{index}.py"


def build(root: Path, shape: Shape) -> None:
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    for i in range(shape.files):
        path = _path(root, i)
        path.parent.mkdir(exist_ok=True)
        path.write_text(_source(shape, i, changed=False))
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    _git(root, "checkout", "-q", "-b", "pr")
    for i in range(shape.files):
        _path(root, i).write_text(_source(shape, i, changed=True))
    _git(root, "commit", "-q", "-am", "change")


@dataclass(frozen=True)
class Run:
    seconds: float  # wall time
    cpu: float  # user + system time of the process and its children (git): less sensitive to load
    peak_mib: float


def measure(command: list[str], cwd: Path) -> Run:
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{command[0]} failed: {process.stderr.read().decode() if process.stderr else ''}")
    return Run(elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def interleaved(commands: list[list[str]], cwd: Path, repeat: int) -> list[Run]:
    """Each command `repeat` times, taking turns; the median time and the largest peak of each."""
    runs: list[list[Run]] = [[] for _ in commands]
    for _ in range(repeat):
        for command, out in zip(commands, runs, strict=True):
            out.append(measure(command, cwd))
    return [
        Run(
            statistics.median(r.seconds for r in out),
            statistics.median(r.cpu for r in out),
            max(r.peak_mib for r in out),
        )
        for out in runs
    ]


_ROOT = Path(__file__).resolve().parents[1]
_RECEIPT = [sys.executable, "-m", "bot.cli"]
_CHECK = [*_RECEIPT, "check", "--base", "main", "--head", "pr", "--no-tests", "--json"]
_GIT_DIFF = ["git", "diff", "--find-renames", "main...pr"]


def _excess_note(root: Path) -> str:
    """Whether excess was measured: the receipt's own word, read from its JSON."""
    out = root / "receipt.json"
    subprocess.run([*_CHECK, str(out)], cwd=root, capture_output=True, check=False)
    excess = json.loads(out.read_text())["excess"]
    if excess.get("distance") is None:
        return "excess not measured: " + str(excess.get("not_measured", "(no reason given)"))
    return f"excess measured (distance {excess['distance']:.3f})"


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command per small row")
    parser.add_argument("--only", nargs="*", help="rows to run (start-up, typical, 1k, 10k, …)")
    parser.add_argument("--processes", type=int, help="passed to receipt check (default: one per core)")
    args = parser.parse_args()
    processes = ["--processes", str(args.processes)] if args.processes else []
    timed = [*_CHECK[:-1], *processes, "--json", os.devnull]
    wanted = set(args.only or [])
    known = {"start-up", TYPICAL.name, *(shape.name for shape in SHAPES)}
    if wanted - known:
        parser.error(f"unknown row(s): {', '.join(sorted(wanted - known))}; rows: {', '.join(sorted(known))}")
    # An installed receipt has its bytecode compiled (pip does it); a checkout run with
    # PYTHONDONTWRITEBYTECODE would otherwise compile every module on every start.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(_ROOT / "bot")], check=True)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {_load()}")
    print(f"medians of interleaved runs ({args.repeat} per small row, fewer for large rows)\n")
    with tempfile.TemporaryDirectory(prefix="receipt-bench-") as scratch:
        root = Path(scratch) / TYPICAL.name
        build(root, TYPICAL)
        # The typical check is timed beside interpreter start, so either name runs the start-up rows.
        if not wanted or wanted & {"start-up", TYPICAL.name}:
            start = interleaved(
                [[sys.executable, "-c", "pass"], [*_RECEIPT, "--help"], timed], root, args.repeat * 2
            )
            print("start-up (wall, and CPU: user + system)")
            names = ("python -c pass", "receipt --help", f"receipt check, typical ({TYPICAL.changed} lines)")
            for name, run in zip(names, start, strict=True):
                print(f"  {name:<38} {run.seconds:7.3f}s  {run.cpu:7.3f}s  {run.peak_mib:6.1f} MiB")
            print()
        header = f"{'change':<11} {'files':>6} {'changed':>8} {'git diff':>9} {'receipt':>9} {'ratio':>7}"
        print(f"{header} {'cpu':>8} {'git cpu':>8} {'ratio':>6} {'MiB':>7}  excess")
        for shape in SHAPES:
            if wanted and shape.name not in wanted:
                continue
            root = Path(scratch) / shape.name
            build(root, shape)
            repeat = args.repeat if shape.changed <= 30_000 else max(1, args.repeat // 2)
            base, ours = interleaved([_GIT_DIFF, timed], root, repeat)
            print(
                f"{shape.name:<11} {shape.files:>6} {shape.changed:>8} {base.seconds:>8.3f}s "
                f"{ours.seconds:>8.3f}s {ours.seconds / base.seconds:>6.0f}x {ours.cpu:>7.2f}s "
                f"{base.cpu:>7.3f}s {ours.cpu / max(base.cpu, 1e-3):>5.0f}x {ours.peak_mib:>7.1f}  "
                f"{_excess_note(root)}",
                flush=True,
            )
    print(f"\n{_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

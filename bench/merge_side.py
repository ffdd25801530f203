"""What judging the merge costs `receipt check`: a fast-forward beside a base that moved on.

    .venv/bin/python bench/merge_side.py [--repeat N]

The typical change of bench/receipt_check.py (10 modules, 500 changed lines) is checked twice in the
same run, interleaved: against its fork point (a fast-forward: no merge is computed, `base..merge` is
the change itself) and against a base that moved on by one unrelated commit (`git merge-tree
--write-tree`, a second diff, its paths and budgets judged). Figures are medians of whole
`receipt check --no-tests` processes, interpreter start included; the ratio is the moved base's time
over the fast-forward's. The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.receipt_check import _RECEIPT, TYPICAL, _git, _load, build, interleaved


def _check(base: str) -> list[str]:
    return [*_RECEIPT, "check", "--base", base, "--head", "pr", "--no-tests", "--json", os.devnull]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="runs of each command")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {_load()}")
    with tempfile.TemporaryDirectory(prefix="receipt-bench-") as scratch:
        root = Path(scratch) / TYPICAL.name
        build(root, TYPICAL)
        fork = subprocess.run(["git", "rev-parse", "main"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()  # fmt: skip
        _git(root, "checkout", "-q", "main")
        (root / "docs").mkdir()
        (root / "docs" / "later.md").write_text("an unrelated commit on the base\n")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", "the base moves on")
        fast, moved = interleaved([_check(fork), _check("main")], root, args.repeat)
    print(
        f"typical change ({TYPICAL.files} files, {TYPICAL.changed} changed lines), medians of {args.repeat}"
    )
    print(f"  fast-forward (base = fork point)     {fast.seconds:7.3f}s  {fast.peak_mib:6.1f} MiB")
    print(f"  base moved on (git merge-tree)       {moved.seconds:7.3f}s  {moved.peak_mib:6.1f} MiB")
    print(f"  ratio                                {moved.seconds / fast.seconds:7.2f}x")
    print(_load())
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The content scan as installed on real changes: the last first-parent commits of clones of real
repositories, each commit's change from its first parent, read the way `receipt check` reads it.

    .venv/bin/python bench/content_history.py GIT_DIR... [--commits 150] [--repeat 1]

The clean corpus of bench/content_rules.py is one change adding the whole standard library, dense in
the constructs `dangerous` resolves (eval, exec, pickle, os.system, getattr on modules); this
measures the changes maintainers actually receive. Nothing fetched is part of the repository: pass
any clones (bare or not). For each commit, untimed, the diff and the texts of both sides are read
from git (the gather); then, on one core (CPU time, the collector set as `receipt check` sets it),
the content scan of the parsed change under the built-in policy, parsing the diff's bytes, building
the added text and each rule alone on it (where the time goes). The scan is timed first and, by
default, once: a cache kept between evaluations (an earlier version kept eight texts' parses)
flatters a second run of the same change, which no receipt makes; `--repeat N` takes the best of
N. MB/s is of added text (added lines with their newlines), summed over every commit, so large
commits weigh as they cost; the slowest commits are listed with their size.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bot and tools (precision.py)

from bot.cli import tune_gc
from bot.engine import MAX_DIFF_BYTES, ReceiptError
from bot.engine.change import Change, parse_bounded
from bot.engine.content.added import added_files
from bot.engine.manifest import Manifest
from bot.engine.rules import CONTENT_RULES, content_violations
from bot.gather import Revisions
from bot.gather.core import build_change
from bot.local.git import Git
from bot.local.source import LocalSource
from tools.precision import first_parent_pairs, repo_name


@dataclass(frozen=True, slots=True)
class Timed:
    repo: str
    commit: str
    added: int  # bytes of added text
    parse: float
    scan: float
    parts: dict[str, float]  # building the added text, then each rule alone on it


def best(repeat: int, run: Callable[[], object]) -> float:
    fastest = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        run()
        fastest = min(fastest, time.process_time() - started)
    return fastest


def added_size(change: Change) -> int:
    return sum(len(f.text) for file in added_files(change) for f in file.fragments)


def timed_commits(directory: Path, count: int, repeat: int) -> list[Timed]:
    git = Git(directory.resolve())
    source = LocalSource(git)
    name = repo_name(directory)
    out = []
    for parent, commit in first_parent_pairs(git, count):
        data = git.diff(parent, commit, limit=MAX_DIFF_BYTES)
        try:
            change = build_change(source, data, Revisions(parent, commit, parent))
        except ReceiptError:
            continue  # too large to assess: the receipt measures nothing there either
        out.append(timed(name, commit, data, change, repeat))
    return out


def timed(name: str, commit: str, data: bytes, change: Change, repeat: int) -> Timed:
    manifest = Manifest()
    # The scan first: what it leaves in a cache (a text's parse kept between evaluations) would
    # flatter a scan timed after the parts, or the second of several runs.
    scan = best(repeat, lambda: content_violations(change, manifest))
    parse = best(repeat, lambda: parse_bounded(data))
    files = added_files(change)
    parts = {"added text": best(repeat, lambda: added_files(change))} | {
        rule.__class__.__name__.removesuffix("Rule"): best(
            repeat, lambda rule=rule: list(rule.scan(change, manifest, files, files))
        )
        for rule in CONTENT_RULES
    }
    return Timed(name, commit, added_size(change), parse, scan, parts)


def rate(size: int, seconds: float) -> str:
    return f"{size / 1e6 / seconds:.1f}" if seconds else "—"


def report(rows: Sequence[Timed]) -> None:
    print("| repository | commits | MB added | parse s | scan s | MB/s scan | MB/s parse + scan |")
    print("|---|---|---|---|---|---|---|")
    for name in dict.fromkeys(r.repo for r in rows):
        mine = [r for r in rows if r.repo == name]
        _row(name, mine)
    _row("**all**", rows)
    print("\nWhere the time goes, over every commit (each part alone, CPU seconds):\n")
    parts = rows[0].parts if rows else {}
    print(", ".join(f"{part} {sum(r.parts[part] for r in rows):.3f}" for part in parts) or "—")
    scans = sorted(r.scan for r in rows)
    if scans:
        middle, high = scans[len(scans) // 2], scans[min(len(scans) - 1, len(scans) * 95 // 100)]
        print(
            f"\nPer commit: median {middle * 1e3:.1f} ms, 95th percentile {high * 1e3:.1f} ms, "
            f"most {scans[-1] * 1e3:.1f} ms."
        )
    print("\nSlowest commits (scan):\n")
    for r in sorted(rows, key=lambda r: -r.scan)[:8]:
        costly = max(r.parts, key=lambda part: r.parts[part])
        print(
            f"- {r.repo}@{r.commit[:10]}: {r.scan:.3f} s, {r.added / 1e3:.0f} kB added, "
            f"{rate(r.added, r.scan)} MB/s; most of it {costly} ({r.parts[costly]:.3f} s)"
        )


def _row(name: str, rows: Sequence[Timed]) -> None:
    size = sum(r.added for r in rows)
    parse, scan = sum(r.parse for r in rows), sum(r.scan for r in rows)
    print(
        f"| {name} | {len(rows)} | {size / 1e6:.2f} | {parse:.3f} | {scan:.3f} | {rate(size, scan)} "
        f"| {rate(size, parse + scan)} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--commits", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    tune_gc()
    rows = [t for repo in args.repos for t in timed_commits(repo, args.commits, args.repeat)]
    report(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: `receipt replay` over the 400 edit-fidelity tasks, three scripted arms, one attempt each.

    .venv/bin/python bench/replay_corpus.py [--tasks N] [--keep DIR]

Builds the corpus as a repository with 400 merged pull requests (tests/replay/corpus_repo.py), then
runs the three commands as a user would, in-process: `replay tasks --last N` (each task's
BigCodeBench tests hidden and run with unittest), `replay run` with the arms gold, reformatted and
guard (scripted: each writes its version of the task's file and a Codex-style trace), `replay
report` (JSON and HTML), and `receipt inspect` on the report. Prints the time of each step, the
time per task and per attempt, and the report's figures.
"""

from __future__ import annotations

import argparse
import io
import json
import shlex
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli import main
from tests.replay import corpus_repo


def _step(name: str, argv: list[str]) -> tuple[float, int, str]:
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    elapsed = time.perf_counter() - start
    print(f"{name:<8} {elapsed:8.1f} s  exit {code}")
    return elapsed, code, out.getvalue() + err.getvalue()


def run(limit: int | None, keep: Path | None) -> None:
    tasks = corpus_repo.load(limit)
    with tempfile.TemporaryDirectory() as scratch:
        where = keep or Path(scratch)
        start = time.perf_counter()
        # the same corpus gives the same commits, so a kept directory resumes its run
        repo = where / "repo" if (where / "repo").exists() else corpus_repo.build(where / "repo", tasks)
        arms = corpus_repo.oracle(where / "oracle", tasks)
        print(f"edit-fidelity replay: {len(tasks)} tasks, Python {sys.version.split()[0]}")
        print(f"repository of {len(tasks)} merged pull requests built in {time.perf_counter() - start:.1f} s")
        task_file, run_dir = where / "tasks" / "tasks.jsonl", where / "run"
        task_file.parent.mkdir(exist_ok=True)
        command = f"{shlex.quote(sys.executable)} -m unittest -q {{tests}}"
        _, _, text = _step(
            "tasks",
            [
                "replay",
                "tasks",
                "--repo",
                str(repo),
                "--last",
                str(len(tasks)),
                "--test-command",
                command,
                "--out",
                str(task_file),
            ],
        )
        print("        ", text.splitlines()[0] if text else "")
        arm_args = [a for name, cmd in arms.items() for a in ("--arm", f"{name}={cmd}")]
        ran, _, text = _step(
            "run",
            [
                "replay",
                "run",
                "--tasks",
                str(task_file),
                "--run-dir",
                str(run_dir),
                "--repo",
                str(repo),
                *arm_args,
            ],
        )
        print("        ", text.strip())
        attempts = len(tasks) * len(arms)
        print(
            f"time per task {ran / len(tasks):.2f} s ({len(arms)} arms), per attempt {ran / attempts:.2f} s"
        )
        report, html = where / "report.json", where / "report.html"
        _, _, text = _step(
            "report",
            ["replay", "report", "--run-dir", str(run_dir), "--json", str(report), "--html", str(html)],
        )
        _, _, checked = _step("inspect", ["inspect", str(report)])
        print("        ", checked.strip().splitlines()[-1])
        body = json.loads(report.read_text())
        print(text)
        for arm, s in body["arms"].items():
            e = s["excess"]
            print(
                f"{arm}: functional {s['functional_rate']:.4f} faithful {s['faithful_rate']:.4f} "
                f"statuses {s['statuses']} excess mean {e['mean']} median {e['median']} n {e['count']} "
                f"added_complexity mean {s['added_complexity']['mean']} surface "
                f"{ {k: v['mean'] for k, v in s['review_surface'].items()} } "
                f"violations {s['scope_violations']} trace read-before-edit "
                f"{s['trace']['read_before_edit']['mean']}, tests-after-last-edit "
                f"{s['trace']['tests_after_last_edit']['mean']}"
            )
        for c in body["comparisons"]:
            print(
                f"{c['arm']} - {c['baseline']}: "
                + "; ".join(
                    f"{m} {c[m]['difference']} [{c[m]['low']}, {c[m]['high']}] n={c[m]['tasks']}"
                    for m in ("functional", "faithful", "excess", "added_complexity")
                )
            )
        print(f"html {html.stat().st_size} bytes, json {report.stat().st_size} bytes")


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, help="only the first N tasks")
    parser.add_argument("--keep", type=Path, help="build in this directory and keep it")
    args = parser.parse_args()
    run(args.tasks, args.keep)


if __name__ == "__main__":
    cli()

"""`receipt replay tasks|run|report`: the subcommands' arguments and what each does with them."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_FAIL = 0, 1


def add_replay_parser(sub: Any) -> None:
    """Register `replay` with its three subcommands on the CLI's subparsers."""
    replay = sub.add_parser("replay", help="replay merged changes as tasks for coding agents, and report")
    commands = replay.add_subparsers(dest="replay_command", required=True, parser_class=type(replay))

    tasks = commands.add_parser("tasks", help="merged changes → a JSONL task set")
    tasks.add_argument("--repo", type=Path, default=Path(), help="repository (default: .)")
    tasks.add_argument("--branch", default="HEAD", help="whose first-parent history to read (default: HEAD)")
    which = tasks.add_mutually_exclusive_group()
    which.add_argument("--last", type=int, metavar="N", help="the last N merged changes (default: 20)")
    which.add_argument(
        "--pr", type=int, action="append", default=[], metavar="N", help="pull request numbers"
    )
    which.add_argument("--commit", action="append", default=[], metavar="REV", help="merge commits")
    tasks.add_argument(
        "--test-command", help="test command ({tests}: the hidden test files), else tests.command"
    )
    hidden = tasks.add_mutually_exclusive_group()
    hidden.add_argument(
        "--hidden-tests", action="append", default=[], metavar="GLOB", help="test files to hide"
    )
    hidden.add_argument(
        "--no-hidden-tests", action="store_true", help="hide nothing: tests are part of the gold"
    )
    tasks.add_argument("--critical", action="append", default=[], metavar="ID", help="mark a task critical")
    tasks.add_argument(
        "--verify",
        action="store_true",
        help="run the tests: skip changes whose tests fail on the merge or pass on the base",
    )
    tasks.add_argument("--out", type=Path, default=Path("-"), help="task set file (default: stdout)")

    run = commands.add_parser("run", help="run every arm on every task, isolated; resumable")
    run.add_argument("--tasks", type=Path, required=True, help="the JSONL task set")
    run.add_argument(
        "--arm",
        action="append",
        default=[],
        metavar="NAME=COMMAND|FILE",
        help="a candidate agent: a shell command, or an arm file (.yml, .yaml, .json)",
    )
    run.add_argument(
        "--arm-file", action="append", default=[], type=Path, metavar="FILE", help="an arm file, named by it"
    )
    run.add_argument("--attempts", type=int, default=1, metavar="K", help="attempts per task and arm")
    run.add_argument("--run-dir", type=Path, required=True, help="where attempts are stored (resumes)")
    run.add_argument("--repo", type=Path, default=Path(), help="the replayed repository (default: .)")
    run.add_argument("--agent-timeout", type=float, default=1800.0, metavar="SECONDS", help="per attempt")
    run.add_argument(
        "--pass-env", action="append", default=[], metavar="NAME", help="variable for the agents"
    )
    run.add_argument("--manifest", type=Path, help="judge every attempt by this policy instead of the base's")

    report = commands.add_parser("report", help="the report of a run: JSON, HTML, and a gate")
    report.add_argument("--run-dir", type=Path, required=True)
    report.add_argument("--json", type=Path, help="write the report JSON here ('-': stdout)")
    report.add_argument("--html", type=Path, help="write the HTML report here")
    report.add_argument("--baseline", help="the arm the others are compared with (default: the first)")
    report.add_argument(
        "--require", action="append", default=[], metavar="METRIC>=X", help="gate requirement"
    )
    report.add_argument("--critical", action="append", default=[], metavar="ID", help="a critical task")
    report.add_argument("--seed", type=int, default=None, help="bootstrap seed")
    report.add_argument("--iterations", type=int, default=None, help="bootstrap iterations")


def _cmd_tasks(args: argparse.Namespace, write: Callable[[Path, str], None]) -> int:
    from bot.local.git import Git
    from bot.replay.score import verify_tasks
    from bot.replay.tasks import (
        HIDDEN_TESTS,
        SKIP_RULES,
        MineOptions,
        Selection,
        mine,
        task_set_bytes,
    )

    if args.last is not None and args.last < 1:
        from bot.replay.errors import ReplayError

        raise ReplayError("--last must be at least 1")
    git = Git.open(args.repo)
    hidden = () if args.no_hidden_tests else tuple(args.hidden_tests) or HIDDEN_TESTS
    options = MineOptions(args.test_command, hidden, tuple(args.critical), git.origin_repo())
    selection = Selection(args.branch, args.last, tuple(args.pr), tuple(args.commit))
    candidates = mine(git, selection, options)
    if args.verify:
        candidates = verify_tasks(git, candidates, dict(os.environ))
    tasks = [c.task for c in candidates if c.task is not None]
    skipped = [c.skipped for c in candidates if c.skipped is not None]
    write(args.out, task_set_bytes(tasks).decode("utf-8"))
    counts: dict[str, int] = {}
    for s in skipped:
        counts[s.rule] = counts.get(s.rule, 0) + 1
    listed = ", ".join(f"{n} {rule}" for rule, n in sorted(counts.items()))
    print(
        f"{len(candidates)} merged change(s) examined: {len(tasks)} task(s), {len(skipped)} skipped"
        + (f" ({listed})" if listed else ""),
        file=sys.stderr,
    )
    for s in skipped:
        detail = f": {s.detail}" if s.detail else ""
        print(f"  skipped {s.commit[:12]} {s.rule} — {SKIP_RULES[s.rule]}{detail}", file=sys.stderr)
    return EXIT_OK


def _cmd_run(args: argparse.Namespace, write: Callable[[Path, str], None]) -> int:
    del write
    from bot.replay.arms import parse_arms
    from bot.replay.runner import RunOptions, run
    from bot.replay.tasks import check_name

    for name in args.pass_env:
        check_name(name, "--pass-env")
    options = RunOptions(
        tasks_file=args.tasks,
        run_dir=args.run_dir,
        arms=parse_arms(args.arm, args.arm_file),
        repo=args.repo,
        attempts=args.attempts,
        agent_timeout=args.agent_timeout,
        pass_env=tuple(args.pass_env),
        manifest=args.manifest,
    )
    summary = run(options)
    sys.stdout.write(summary.text(args.run_dir))
    return EXIT_OK


def _cmd_report(args: argparse.Namespace, write: Callable[[Path, str], None]) -> int:
    from bot.engine import render_json
    from bot.replay.html import render_html
    from bot.replay.report import ReportOptions, build_report, parse_requirement
    from bot.replay.stats import DEFAULT_ITERATIONS, DEFAULT_SEED
    from bot.replay.store import Store

    options = ReportOptions(
        baseline=args.baseline,
        require=tuple(parse_requirement(r) for r in args.require),
        critical=tuple(args.critical),
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        iterations=DEFAULT_ITERATIONS if args.iterations is None else args.iterations,
    )
    if options.iterations < 1:
        from bot.replay.errors import ReplayError

        raise ReplayError("--iterations must be at least 1")
    store = Store.open(args.run_dir.resolve())
    body = build_report(store, store.all_finished(), options)
    if args.json is not None:
        write(args.json, render_json(body))
    if args.html is not None:
        write(args.html, render_html(body))
    if args.json is None or str(args.json) != "-":
        sys.stdout.write(summary_text(body))
    return EXIT_OK if body["gate"]["pass"] else EXIT_FAIL


def summary_text(body: dict[str, Any]) -> str:
    """The report in a few lines for the terminal."""

    def pct(value: float | None) -> str:
        return "–" if value is None else f"{100 * value:.1f}%"

    lines = [f"task set {body['run']['task_set']['digest']} ({body['run']['task_set']['tasks']} tasks)"]
    for arm, s in body["arms"].items():
        excess = s["excess"]["mean"]
        lines.append(
            f"  {arm}: functional {pct(s['functional_rate'])}, faithful {pct(s['faithful_rate'])}, "
            f"infrastructure {s['statuses']['infrastructure']}, excess (passing) "
            f"{'–' if excess is None else f'{excess:.4f}'}"
        )
    for c in body["comparisons"]:
        f = c["faithful"]
        if f["difference"] is not None:
            interval = f"[{f['low']:+.3f}, {f['high']:+.3f}]"
            lines.append(f"  {c['arm']} − {c['baseline']}: faithful {f['difference']:+.3f} {interval}")
    for verdict in body["gate"]["arms"]:
        lines.append(f"gate {verdict['arm']}: {'pass' if verdict['pass'] else 'fail'}")
        lines.extend(f"  {failure}" for failure in verdict["failures"])
    return "\n".join(lines) + "\n"


COMMANDS = {"tasks": _cmd_tasks, "run": _cmd_run, "report": _cmd_report}


def run_replay(args: argparse.Namespace, write: Callable[[Path, str], None]) -> int:
    return COMMANDS[args.replay_command](args, write)

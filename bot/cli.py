"""The `receipt` command: main(argv) -> int. Exit 0 pass, 1 fail, 2 usage or configuration error."""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from bot import __version__
from bot.engine import (
    EXIT_CODES,
    MANIFEST_PATH,
    Conclusion,
    ManifestError,
    ManifestSource,
    ReceiptError,
    display_path,
    json_schema,
    load_manifest,
    manifest_paths,
    render_json,
    render_markdown,
    render_terminal,
)
from bot.gather import UsageError
from bot.jsonread import JsonInputError, load_json_object
from bot.local.check import CheckOptions, run_check
from bot.local.git import Git, GitError
from bot.local.inspect import inspect_receipt
from bot.replay.commands import add_replay_parser, run_replay
from bot.replay.verify import inspect_report, is_report

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"receipt: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="receipt",
        description="A receipt for a change: semantic, scope, "
        "locality and excess, judged by the policy committed on the base branch.",
    )
    parser.add_argument("--version", action="version", version=f"receipt {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = sub.add_parser("check", help="write a receipt for the change base...head")
    check.add_argument("--repo", type=Path, default=Path(), help="repository (default: .)")
    check.add_argument("--base", help="base revision (default: origin/HEAD, main or master)")
    check.add_argument("--head", default="HEAD", help="head revision (default: HEAD)")
    check.add_argument("--manifest", type=Path, help="policy file to use instead of the base's")
    check.add_argument("--reference", type=Path, help="reference (gold) patch for excess")
    check.add_argument(
        "--description", type=Path, help="the change's description for the report (default: head's message)"
    )
    tests = check.add_mutually_exclusive_group()
    tests.add_argument("--test-command", help="shell command run in a sandboxed copy of the head")
    tests.add_argument("--no-tests", action="store_true", help="do not run any tests")
    check.add_argument("--json", type=Path, help="write the receipt JSON here ('-': stdout)")
    check.add_argument("--markdown", type=Path, help="write the Markdown summary here")

    validate = sub.add_parser("validate", help="validate a manifest (default: " + MANIFEST_PATH + ")")
    validate.add_argument("file", nargs="?", type=Path, default=Path(MANIFEST_PATH))

    explain = sub.add_parser("explain", help="show which rule decides each path, and why")
    explain.add_argument("paths", nargs="+")
    explain.add_argument(
        "--manifest", type=Path, help=f"policy file (default: {MANIFEST_PATH} in the working tree)"
    )

    inspect = sub.add_parser(
        "inspect", help="verify a receipt's (or a replay report's) digest and the digests it names"
    )
    inspect.add_argument("receipt", type=Path)
    inspect.add_argument("--repo", type=Path, default=Path(), help="repository to check against")
    inspect.add_argument("--run", type=Path, help="a replay report's run directory (default: as it records)")

    sub.add_parser("schema", help="print the manifest's JSON Schema")

    serve = sub.add_parser("serve", help="run the GitHub App: webhook, receipt pages and workers")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    sub.add_parser("worker", help="run only the App's workers (for split deployments)")
    sub.add_parser("migrate", help="bring the App's database schema up to date")
    receive = sub.add_parser("receive", help="run the App on a saved delivery and print what it would post")
    receive.add_argument("--event", required=True, help="the X-GitHub-Event name, e.g. pull_request")
    receive.add_argument("--payload", required=True, type=Path, help="the delivery's JSON payload")
    add_replay_parser(sub)
    return parser


def _write(target: Path, text: str) -> None:
    """Write `target` whole or not at all: a temporary file beside it, renamed over it. The rename
    replaces whatever is at the path (a symlink planted there is replaced, not followed). Called
    only once the test run, and every process it started, is over."""
    if str(target) == "-":
        sys.stdout.write(text)
        return
    temporary: str | None = None
    try:
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError as exc:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise UsageError(f"{target}: cannot write: {exc.strerror}") from exc


def _cmd_check(args: argparse.Namespace) -> int:
    receipt = run_check(
        CheckOptions(
            repo=args.repo,
            base=args.base,
            head=args.head,
            manifest_file=args.manifest,
            test_command=args.test_command,
            no_tests=args.no_tests,
            reference=args.reference,
            description=args.description,
        )
    )
    body = receipt.as_json()
    if args.json is not None:
        _write(args.json, render_json(body))
    if args.markdown is not None:
        _write(args.markdown, render_markdown(receipt) + "\n")
    if args.json is None or str(args.json) != "-":
        sys.stdout.write(render_terminal(receipt))
    return EXIT_CODES[Conclusion(receipt.verdict.conclusion)]


def _cmd_validate(args: argparse.Namespace) -> int:
    try:
        data = args.file.read_bytes()
    except OSError as exc:
        raise UsageError(f"{args.file}: cannot read: {exc.strerror}") from exc
    load_manifest(data, str(args.file), ManifestSource.FILE)
    print(f"{args.file}: valid receipt manifest (version 1)")
    return EXIT_OK


def _cmd_explain(args: argparse.Namespace) -> int:
    from bot.engine import explain

    path: Path = args.manifest or Path(MANIFEST_PATH)
    try:
        data: bytes | None = path.read_bytes()
    except FileNotFoundError:
        if args.manifest is not None:
            raise UsageError(f"{path}: no such file") from None
        data = None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror}") from exc
    loaded = load_manifest(data, str(path) if data is not None else MANIFEST_PATH, ManifestSource.FILE)
    print(f"policy: {path if data is not None else 'built-in default (no ' + MANIFEST_PATH + ')'}")
    for name in args.paths:
        explanation = explain(name.removeprefix("./"), loaded.manifest, manifest_paths(loaded))
        print(display_path(explanation.path))
        for line in explanation.lines:
            print(f"  {line}")
    return EXIT_OK


def _cmd_inspect(args: argparse.Namespace) -> int:
    try:
        data = args.receipt.read_bytes()
    except OSError as exc:
        raise UsageError(f"{args.receipt}: cannot read: {exc.strerror}") from exc
    try:
        body: Any = load_json_object(data, str(args.receipt))
    except JsonInputError as exc:
        raise UsageError(exc.problem) from exc
    if is_report(body):
        checked = inspect_report(body, args.run)
        for line in checked.lines:
            print(line)
        return EXIT_OK if checked.ok else EXIT_FAIL
    try:
        git: Git | None = Git.open(args.repo)
    except GitError:
        git = None
    report = inspect_receipt(body, git)
    for line in report.lines:
        print(line)
    return EXIT_OK if report.ok else EXIT_FAIL


def _cmd_schema(args: argparse.Namespace) -> int:
    del args
    print(json.dumps(json_schema(), indent=2, sort_keys=False))
    return EXIT_OK


def _cmd_serve(args: argparse.Namespace) -> int:
    from bot.server.serve import serve

    return serve(args.host, args.port)


def _cmd_worker(args: argparse.Namespace) -> int:
    del args
    from bot.server.serve import worker

    return worker()


def _cmd_migrate(args: argparse.Namespace) -> int:
    del args
    from bot.server.serve import migrate

    return migrate()


def _cmd_receive(args: argparse.Namespace) -> int:
    from bot.server.serve import receive

    try:
        return receive(args.event, args.payload)
    except OSError as exc:
        raise UsageError(f"{args.payload}: cannot read: {exc.strerror}") from exc
    except ValueError as exc:
        raise UsageError(f"{args.payload}: {exc}") from exc


def _cmd_replay(args: argparse.Namespace) -> int:
    return run_replay(args, _write)


_COMMANDS = {
    "check": _cmd_check, "validate": _cmd_validate, "explain": _cmd_explain,
    "inspect": _cmd_inspect, "schema": _cmd_schema, "serve": _cmd_serve, "worker": _cmd_worker,
    "migrate": _cmd_migrate, "receive": _cmd_receive, "replay": _cmd_replay,
}  # fmt: skip


def tune_gc() -> None:
    """A large change is a few hundred thousand small immutable objects and no cycles worth
    collecting in a short-lived process; the default young-generation threshold (700) would run
    the collector thousands of times over them (measured: a quarter of a 200,000-line check)."""
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


def main(argv: Sequence[str] | None = None) -> int:
    tune_gc()
    args = _parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args)
    except ManifestError as exc:
        print(f"receipt: invalid manifest ({len(exc.issues)} problem(s)):\n{exc}", file=sys.stderr)
        return EXIT_FAIL if args.command == "validate" else EXIT_USAGE
    except ReceiptError as exc:
        print(f"receipt: error: {exc.problem}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())

"""The `receipt` command: main(argv) -> int.

Exit 0 pass, 1 fail, 2 usage or configuration error; 70 when receipt itself fails (one line on
stderr, never a traceback), 74 when stdout cannot be written (closed, a full disk), 130 when
interrupted, 141 when the reader of stdout went away.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import json
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from bot import __version__
from bot.engine.errors import ReceiptError
from bot.engine.groups import MANIFEST_PATH
from bot.replay.commands import add_replay_parser

if TYPE_CHECKING:
    from bot.local.git import Git

# Every other module loads in the command that needs it: `receipt --help` and `receipt validate`
# must not pay for the rules, the engine and git (bench/receipt_check.py measures start-up).

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
EXIT_INTERNAL = 70  # sysexits' EX_SOFTWARE: receipt itself failed, which is never a verdict
EXIT_OUTPUT = 74  # sysexits' EX_IOERR: stdout is closed or cannot be written (a full disk)
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C
EXIT_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool whose reader went away (`| head`)
_PROJECT = Path(__file__).resolve().parent.parent


class _OutputError(Exception):
    """Standard output could not be written: the environment's failure, not receipt's."""


class _GuardedStdout:
    """sys.stdout, with a failure to write it told apart from receipt's own failures: a closed
    stdout (`receipt schema >&-`, where Python sets sys.stdout to None) or a full disk ends the
    command with one line and EXIT_OUTPUT, never "internal error". A reader that went away is
    still a BrokenPipeError, which ends quietly."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def _call(self, name: str, *args: Any) -> Any:
        if self._stream is None:
            raise _OutputError("standard output is closed")
        try:
            return getattr(self._stream, name)(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputError(exc.strerror or str(exc)) from None

    def write(self, text: str) -> int:
        return int(self._call("write", text))

    def flush(self) -> None:
        self._call("flush")

    def __getattr__(self, name: str) -> Any:
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"receipt: error: {message}\n")


def _port(text: str) -> int:
    """A TCP port, refused by argparse (exit 2) rather than by the socket layer deep in a server."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is outside 0-65535")
    return port


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


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
    check.add_argument(
        "--processes",
        type=_positive,
        help="processes that read a large change (default: one per core, at most 4; 1: this one alone)",
    )

    validate = sub.add_parser(
        "validate", help=f"validate a manifest (default: {MANIFEST_PATH} at the top of the repository)"
    )
    validate.add_argument("file", nargs="?", type=Path)

    explain = sub.add_parser("explain", help="show which rule decides each path, and why")
    explain.add_argument(
        "paths", nargs="+", help="paths relative to the current directory, as git takes them"
    )
    explain.add_argument(
        "--manifest",
        type=Path,
        help=f"policy file (default: {MANIFEST_PATH} at the top of the working tree)",
    )

    inspect = sub.add_parser(
        "inspect", help="verify a receipt's (or a replay report's) digest and the digests it names"
    )
    inspect.add_argument("receipt", type=Path)
    inspect.add_argument(
        "--repo", type=Path, help="repository holding the receipt's commits (default: the current one)"
    )
    inspect.add_argument("--run", type=Path, help="a replay report's run directory (default: as it records)")

    schema = sub.add_parser("schema", help="print the JSON Schema of the manifest (or of a replay arm file)")
    schema.add_argument(
        "of",
        nargs="?",
        choices=("manifest", "replay-arm"),
        default="manifest",
        help="which file (default: manifest)",
    )

    whatif = sub.add_parser(
        "whatif", help="how the last merged changes would be judged under a new manifest (no tests run)"
    )
    whatif.add_argument("--manifest", type=Path, required=True, help="the new manifest")
    whatif.add_argument("--last", type=_positive, default=20, help="how many merged changes (default: 20)")
    whatif.add_argument("--repo", type=Path, default=Path(), help="the repository (default: the current one)")
    whatif.add_argument("--branch", default="HEAD", help="whose first-parent history (default: HEAD)")
    whatif.add_argument("--markdown", type=Path, help="also write the table as Markdown to FILE")

    serve = sub.add_parser("serve", help="run the GitHub App: webhook, receipt pages and workers")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="port (default: 8000)")
    worker = sub.add_parser("worker", help="run only the App's workers (for split deployments)")
    worker.add_argument("--host", default="127.0.0.1", help="address of --port (default: 127.0.0.1)")
    worker.add_argument("--port", type=_port, help="serve /healthz and /metrics on this port (default: none)")
    worker.add_argument("--supervised", action="store_true", help=argparse.SUPPRESS)  # serve's own child
    sub.add_parser("migrate", help="bring the App's database schema up to date")
    receive = sub.add_parser("receive", help="run the App on a saved delivery and print what it would post")
    receive.add_argument("--event", required=True, help="the X-GitHub-Event name, e.g. pull_request")
    receive.add_argument("--payload", required=True, type=Path, help="the delivery's JSON payload")
    add_replay_parser(sub)
    return parser


def _read(path: Path, limit: int) -> bytes:
    """The file, no more of it than its reader accepts (`limit`, and one byte to tell it is over)."""
    from bot.fileread import read_limited
    from bot.gather import UsageError

    try:
        return read_limited(path, limit)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror}") from exc


class _Output:
    """Where a file the command writes goes, decided before any test runs (the run could put a
    pipe, a device or a symlink at the path): a device or a named pipe there then (/dev/null,
    /dev/stdout, a pipe a reader waits on) is opened then and written in place; a symlink there
    then is the user's, followed to where it pointed then; anything else is replaced whole
    (a temporary file renamed over the path), whatever the run left there."""

    def __init__(self, target: Path) -> None:
        self.target, self.path, self._fd = target, target, None
        if str(target) == "-":
            return
        try:
            mode = os.stat(target).st_mode  # follows a symlink: /dev/stdout is one
        except OSError:  # nothing there yet, or a symlink to nothing yet (written where it points)
            mode = 0
        if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
            from bot.gather import UsageError

            try:  # without waiting: a pipe nobody reads is an error, not a hang
                self._fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                reason = "a named pipe nobody reads" if exc.errno == errno.ENXIO else exc.strerror
                raise UsageError(f"{target}: cannot write: {reason}") from exc
            os.set_blocking(self._fd, True)
        elif os.path.islink(target):
            self.path = Path(os.path.realpath(target))

    def write(self, text: str) -> None:
        """Write the whole text; called only once the test run, and every process it started, is over."""
        from bot.gather import UsageError

        if str(self.target) == "-":
            sys.stdout.write(text)
            return
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(text)
            except OSError as exc:
                raise UsageError(f"{self.target}: cannot write: {exc.strerror}") from exc
            return
        import tempfile

        temporary: str | None = None
        try:
            fd, temporary = tempfile.mkstemp(
                dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"
            )
            os.fchmod(fd, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, self.path)
        except OSError as exc:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
            raise UsageError(f"{self.target}: cannot write: {exc.strerror}") from exc


def _write(target: Path, text: str) -> None:
    _Output(target).write(text)


def _cmd_check(args: argparse.Namespace) -> int:
    from bot.engine import EXIT_CODES, Conclusion, render_json, render_terminal
    from bot.local.check import CheckOptions, run_check
    from bot.local.sealed import imports_sealed

    # What the outputs are is decided before the tests run: the run can put a pipe at either path.
    json_out = None if args.json is None else _Output(args.json)
    markdown_out = None if args.markdown is None else _Output(args.markdown)
    with imports_sealed():
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
                processes=args.processes,
            )
        )
        body = receipt.as_json()
        if json_out is not None:
            json_out.write(render_json(body))
        if markdown_out is not None:
            from bot.engine import render_markdown

            markdown_out.write(render_markdown(receipt) + "\n")
        if args.json is None or str(args.json) != "-":
            sys.stdout.write(render_terminal(receipt))
    return EXIT_CODES[Conclusion(receipt.verdict.conclusion)]


def _here() -> tuple[Git, str] | None:
    """The repository holding the current directory and the directory's place in it, as git finds
    them ('' at the top, else ending in '/'); None outside a repository."""
    from bot.local.git import Git, GitError

    try:
        return Git.enclosing(Path())
    except GitError:
        return None


def _default_manifest(here: tuple[Git, str] | None) -> Path:
    """The repository's manifest, as a path from the current directory (as git would print it)."""
    if here is None:
        return Path(MANIFEST_PATH)
    return Path(os.path.relpath(here[0].root / MANIFEST_PATH))


def _cmd_validate(args: argparse.Namespace) -> int:
    from bot.engine import MAX_MANIFEST_BYTES, ManifestSource, load_manifest, one_line

    file: Path = args.file if args.file is not None else _default_manifest(_here())
    load_manifest(_read(file, MAX_MANIFEST_BYTES), str(file), ManifestSource.FILE)
    print(f"{one_line(str(file))}: valid receipt manifest (version 1)")
    return EXIT_OK


def repository_path(name: str, prefix: str) -> str:
    """A path given on the command line, relative to the current directory at `prefix` in the
    repository, as the repository names it. UsageError for a path that names nothing in it."""
    from bot.gather import UsageError

    if not name:
        raise UsageError("explain: an empty path names no file; give one such as src/app.py")
    if name.startswith("/"):
        raise UsageError(
            f"explain: {name!r} is absolute; give the path relative to the current directory, "
            "inside the repository"
        )
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise UsageError(
            f"explain: {name!r} goes up with '..'; give a path inside the repository without '..'"
        )
    if not parts:
        raise UsageError(f"explain: {name!r} is a directory itself; give a path of a file in it")
    return prefix + "/".join(parts)


def _cmd_explain(args: argparse.Namespace) -> int:
    from bot.engine import (
        MAX_MANIFEST_BYTES,
        ManifestSource,
        display_path,
        explain,
        load_manifest,
        manifest_paths,
        one_line,
    )

    here = _here()
    names = [repository_path(name, here[1] if here else "") for name in args.paths]
    path: Path = args.manifest if args.manifest is not None else _default_manifest(here)
    absent = args.manifest is None and not path.exists()  # then the built-in policy applies
    data = None if absent else _read(path, MAX_MANIFEST_BYTES)
    loaded = load_manifest(data, str(path) if data is not None else MANIFEST_PATH, ManifestSource.FILE)
    policy = one_line(str(path)) if data is not None else f"built-in default (no {MANIFEST_PATH})"
    print(f"policy: {policy}")
    for name in names:
        explanation = explain(name, loaded.manifest, manifest_paths(loaded))
        print(display_path(explanation.path))
        for line in explanation.lines:
            print(f"  {one_line(line)}")
    return EXIT_OK


def _cmd_inspect(args: argparse.Namespace) -> int:
    from bot.engine import one_line
    from bot.gather import UsageError
    from bot.jsonread import MAX_PAYLOAD_BYTES, JsonInputError, load_json_object
    from bot.local.git import Git
    from bot.local.inspect import inspect_receipt
    from bot.replay.verify import inspect_report, is_report

    data = _read(args.receipt, MAX_PAYLOAD_BYTES)
    try:
        body: Any = load_json_object(data, str(args.receipt), max_bytes=MAX_PAYLOAD_BYTES)
    except JsonInputError as exc:
        raise UsageError(exc.problem) from exc
    if is_report(body):
        checked = inspect_report(body, args.run)
        for line in checked.lines:
            print(one_line(line))
        return EXIT_OK if checked.ok else EXIT_FAIL
    if args.repo is not None:
        git: Git | None = Git.open(args.repo)
    else:
        here = _here()
        git = here[0] if here is not None else None
    report = inspect_receipt(body, git)
    for line in report.lines:
        print(one_line(line))
    return EXIT_OK if report.ok else EXIT_FAIL


def _cmd_whatif(args: argparse.Namespace) -> int:
    from bot.engine import MANIFEST_PATH, MAX_MANIFEST_BYTES, ManifestSource, load_manifest
    from bot.engine.render.whatif_text import whatif_markdown, whatif_terminal
    from bot.local.whatif import WhatIfOptions, whatif_rows

    # invalid: exit 2, once
    load_manifest(_read(args.manifest, MAX_MANIFEST_BYTES), str(args.manifest), ManifestSource.FILE)
    rows = whatif_rows(WhatIfOptions(args.repo, args.manifest, branch=args.branch, last=args.last))
    names = {"base": f"each change's base {MANIFEST_PATH}", "new": str(args.manifest)}
    print(whatif_terminal(rows, **names), end="")
    if args.markdown is not None:
        _write(args.markdown, whatif_markdown(rows, **names))
    return EXIT_OK


def _cmd_schema(args: argparse.Namespace) -> int:
    if args.of == "replay-arm":
        from bot.replay.arms import json_schema as arm_schema

        print(json.dumps(arm_schema(), indent=2, sort_keys=False))
        return EXIT_OK
    from bot.engine import json_schema

    print(json.dumps(json_schema(), indent=2, sort_keys=False))
    return EXIT_OK


def _cmd_serve(args: argparse.Namespace) -> int:
    from bot.server.metricsdir import shared_metrics

    with shared_metrics():
        from bot.server.serve import serve

        return serve(args.host, args.port)


def _cmd_worker(args: argparse.Namespace) -> int:
    from bot.server.serve import worker

    return worker(supervised=args.supervised, host=args.host, port=args.port)


def _cmd_migrate(args: argparse.Namespace) -> int:
    del args
    from bot.server.serve import migrate

    return migrate()


def _cmd_receive(args: argparse.Namespace) -> int:
    from bot.gather import UsageError
    from bot.server.serve import receive

    try:
        return receive(args.event, args.payload)
    except OSError as exc:
        raise UsageError(f"{args.payload}: cannot read: {exc.strerror}") from exc
    except ValueError as exc:
        raise UsageError(f"{args.payload}: {exc}") from exc


def _cmd_replay(args: argparse.Namespace) -> int:
    from bot.replay.commands import run_replay

    return run_replay(args, _write)


_COMMANDS = {
    "check": _cmd_check, "validate": _cmd_validate, "explain": _cmd_explain,
    "inspect": _cmd_inspect, "schema": _cmd_schema, "serve": _cmd_serve, "worker": _cmd_worker,
    "migrate": _cmd_migrate, "whatif": _cmd_whatif, "receive": _cmd_receive, "replay": _cmd_replay,
}  # fmt: skip


def tune_gc() -> None:
    """A large change is a few hundred thousand small immutable objects and no cycles worth
    collecting in a short-lived process; the default young-generation threshold (700) would run
    the collector thousands of times over them (measured: a quarter of a 200,000-line check)."""
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


def _frame(exc: BaseException) -> str:
    """Where an exception was raised: receipt's own files by their path in the project."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    file = Path(last.filename)
    shown = file.relative_to(_PROJECT) if file.is_relative_to(_PROJECT) else Path(*file.parts[-2:])
    return f" (at {shown.as_posix()}:{last.lineno} in {last.name})"


def _run(args: argparse.Namespace) -> int:
    try:
        try:
            os.getcwd()
        except FileNotFoundError:
            from bot.gather import UsageError

            raise UsageError("the current directory no longer exists; cd into one that does") from None
        return _COMMANDS[args.command](args)
    except ReceiptError as exc:
        from bot.engine import ManifestError, one_line

        if isinstance(exc, ManifestError):
            print(f"receipt: invalid manifest ({len(exc.issues)} problem(s)):\n{exc}", file=sys.stderr)
            return EXIT_FAIL if args.command == "validate" else EXIT_USAGE
        print(f"receipt: error: {one_line(exc.problem)}", file=sys.stderr)
        return EXIT_USAGE
    except (BrokenPipeError, _OutputError):
        raise
    except Exception as exc:
        # A bug, not a verdict: one line naming it, so a user is never shown a stack trace.
        from bot.engine import one_line

        what = one_line(f"{type(exc).__name__}: {str(exc)[:300]}{_frame(exc)}")
        print(
            f"receipt: internal error in {args.command!r}: {what}; this is a bug in receipt, "
            "please report it with the command that caused it",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def _discard_stdout() -> None:
    """The reader went away: point stdout at /dev/null, so the interpreter's last flush of what is
    still buffered has nowhere to fail ("Exception ignored ... BrokenPipeError")."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):  # not a real file (a capture), or none at all
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    """Raises nothing but SystemExit (argparse: --help, --version and usage errors)."""
    given = sys.stdout
    sys.stdout = _GuardedStdout(given)
    try:
        try:
            tune_gc()
            return _run(_parser().parse_args(argv))
        finally:
            sys.stdout.flush()  # here, so that a closed pipe is handled below rather than at exit
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_PIPE
    except _OutputError as exc:
        _discard_stdout()
        print(f"receipt: cannot write to standard output: {exc}", file=sys.stderr)
        return EXIT_OUTPUT
    except KeyboardInterrupt:
        print("receipt: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        sys.stdout = given


if __name__ == "__main__":
    sys.exit(main())

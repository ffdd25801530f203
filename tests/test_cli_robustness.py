"""No traceback reaches a user: closed pipes end quietly, bugs are one line and exit 70, and every
subcommand answers hostile arguments with a message, never a stack trace."""

from __future__ import annotations

import itertools
import json
import os
import shlex
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.cli import EXIT_INTERNAL, EXIT_PIPE, main
from bot.local.check import CheckOptions, resolve_revisions, run_check
from bot.local.git import Git, GitError
from tests.gitrepo import GitRepo

ROOT = Path(__file__).resolve().parents[1]


def _receipt(
    *args: str, cwd: Path = ROOT, stdout: int | None = subprocess.PIPE, buffered: bool = True
) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        check=False,
        timeout=120,
    )


def _into_closed_pipe(
    *args: str, cwd: Path = ROOT, buffered: bool = True
) -> subprocess.CompletedProcess[bytes]:
    """Run with stdout a pipe whose reader has already gone, as `receipt ... | head -0` would."""
    read, write = os.pipe()
    os.close(read)
    try:
        return _receipt(*args, cwd=cwd, stdout=write, buffered=buffered)
    finally:
        os.close(write)


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("args", [("schema",), ("explain", "a.py", "b.py"), ("--help",), ("--version",)])
def test_a_closed_pipe_ends_quietly(args: tuple[str, ...], buffered: bool) -> None:
    done = _into_closed_pipe(*args, buffered=buffered)
    assert done.stderr == b""  # not even "Exception ignored" at interpreter shutdown
    # argparse prints --help and --version itself and ignores a failed write when it is immediate
    assert done.returncode == EXIT_PIPE or (
        args[0].startswith("--") and not buffered and done.returncode == 0
    )


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_a_receipt_into_a_closed_pipe_ends_quietly(pr: GitRepo, buffered: bool) -> None:
    done = _into_closed_pipe("check", "--base", "main", "--no-tests", cwd=pr.root, buffered=buffered)
    assert (done.returncode, done.stderr) == (EXIT_PIPE, b"")
    json_out = ("check", "--base", "main", "--no-tests", "--json", "-")
    done = _into_closed_pipe(*json_out, cwd=pr.root, buffered=buffered)
    assert (done.returncode, done.stderr) == (EXIT_PIPE, b"")


@pytest.mark.parametrize(
    ("redirect", "reason"),
    [(">&-", "standard output is closed"), (">/dev/full", "No space left on device")],
    ids=["closed", "full"],
)
@pytest.mark.parametrize("args", ["schema", "explain a.py", "--help", "--version"])
def test_stdout_that_cannot_be_written_is_one_line_and_its_own_exit_status(
    args: str, redirect: str, reason: str
) -> None:
    if redirect == ">/dev/full" and not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    done = subprocess.run(
        f"{shlex.quote(sys.executable)} -m bot.cli {args} {redirect}",
        shell=True,
        cwd=ROOT,
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == cli.EXIT_OUTPUT
    assert done.stderr.decode() == f"receipt: cannot write to standard output: {reason}\n"


def test_a_receipt_to_a_closed_stdout_is_still_written_to_its_file(pr: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "receipt.json"
    done = subprocess.run(
        f"{shlex.quote(sys.executable)} -m bot.cli check --base main --no-tests --json {out} >&-",
        shell=True,
        cwd=pr.root,
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == cli.EXIT_OUTPUT, done.stderr
    assert json.loads(out.read_text())["schema"] == "receipt/1"


def test_head_of_a_real_pipeline_sees_the_first_line_and_nothing_on_stderr() -> None:
    done = subprocess.run(
        f"{shlex.quote(sys.executable)} -m bot.cli schema | head -1",
        shell=True,
        cwd=ROOT,
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"{\n", b"")


def test_an_unexpected_exception_is_one_line_naming_what_failed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(args: object) -> int:
        raise KeyError("surprise\nsecond line")

    monkeypatch.setitem(cli._COMMANDS, "schema", broken)
    assert main(["schema"]) == EXIT_INTERNAL
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("receipt: internal error in 'schema': KeyError: 'surprise\\nsecond line' (at ")
    assert "tests/test_cli_robustness.py:" in lines[0] and "please report it" in lines[0]


def test_an_interrupt_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setitem(cli._COMMANDS, "schema", interrupted)
    assert main(["schema"]) == cli.EXIT_INTERRUPTED
    assert capsys.readouterr().err == "receipt: interrupted\n"


def test_exit_codes_are_distinct_from_verdicts_and_documented() -> None:
    assert (
        len(
            {
                cli.EXIT_OK, cli.EXIT_FAIL, cli.EXIT_USAGE, EXIT_INTERNAL, cli.EXIT_OUTPUT, EXIT_PIPE,
                cli.EXIT_INTERRUPTED,
            }
        )
        == 7
    )  # fmt: skip
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for code in (EXIT_INTERNAL, cli.EXIT_OUTPUT, EXIT_PIPE, cli.EXIT_INTERRUPTED):
        assert f"**{code}**" in readme


# --- every subcommand, hostile arguments -----------------------------------------------------------


@pytest.fixture
def hostile(tmp_path: Path, pr: GitRepo) -> dict[str, str]:
    """Files and directories no command expects."""
    made = {
        "repo": str(pr.root),
        "dir": str(tmp_path / "a directory"),
        "newline": str(tmp_path / "new\nline"),
        "binary": str(tmp_path / "binary"),
        "latin1": str(tmp_path / "latin1.yml"),
        "deep_yaml": str(tmp_path / "deep.yml"),
        "deep_json": str(tmp_path / "deep.json"),
        "odd_receipt": str(tmp_path / "odd.json"),
        "not_a_diff": str(tmp_path / "not.patch"),
        "huge_number": str(tmp_path / "number.json"),
        "missing": str(tmp_path / "missing"),
        "plain": str(tmp_path / "plain"),
        "policy": str(tmp_path / "policy.yml"),
    }
    Path(made["policy"]).write_text("version: 1\n")
    Path(made["dir"]).mkdir()
    Path(made["newline"]).mkdir()
    Path(made["binary"]).write_bytes(b"\xff\xfe\x00\x01\x80binary\x00")
    Path(made["latin1"]).write_bytes(b'version: 1\npaths:\n  allow: ["\xe9"]\n')
    Path(made["deep_yaml"]).write_text("[" * 20_000 + "]" * 20_000)
    Path(made["deep_json"]).write_text("[" * 100_000 + "]" * 100_000)
    Path(made["odd_receipt"]).write_text(
        '{"schema": "receipt/1", "subject": {"merge_base": 5, "head": [], "base": {}},'
        ' "manifest": {"source": "base", "path": 7}, "change": 3, "excess": "x", "digest": 1}'
    )
    Path(made["not_a_diff"]).write_text("not a diff\n")
    Path(made["huge_number"]).write_text("1e999999")
    Path(made["plain"]).mkdir()
    return made


# (arguments with {name} placeholders, the exit statuses allowed): each is refused with a message, as
# a usage error (2) or an invalid manifest (1 from validate); an internal error (70) would be a bug.
HOSTILE: list[tuple[tuple[str, ...], set[int]]] = [
    (("check", "--repo", "{missing}"), {2}),
    (("check", "--repo", "{repo}", "--processes", "0"), {2}),
    (("check", "--repo", "{repo}", "--processes", "many"), {2}),
    (("check", "--repo", "{binary}"), {2}),
    (("check", "--repo", "{plain}"), {2}),
    (("check", "--repo", "{newline}"), {2}),
    (("check", "--repo", "{repo}", "--base", "no-such-revision"), {2}),
    (("check", "--repo", "{repo}", "--base", "main\nHEAD"), {2}),
    (("check", "--repo", "{repo}", "--base", "x" * 100_000), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--head", ""), {2}),
    (("check", "--repo", "{repo}", "--base", "--all"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--manifest", "{dir}"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--manifest", "{binary}"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--manifest", "{latin1}"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--manifest", "{missing}"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--manifest", "{deep_yaml}"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--reference", "{dir}"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--reference", "{binary}"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--reference", "{not_a_diff}"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--reference", "{missing}"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--no-tests", "--json", "{dir}"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--no-tests", "--markdown", "{missing}/x.md"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--test-command", ""), {0, 1}),
    (("check", "--repo", "{repo}", "--base", "main", "--test-command", "exit 3"), {1}),
    (("check", "--repo", "{repo}", "--base", "main", "--no-tests", "--test-command", "true"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--no-tests", "--description", "{missing}"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--no-tests", "--description", "{dir}"), {2}),
    (("check", "--repo", "{repo}", "--base", "main", "--no-tests", "--description", "{binary}"), {0, 2}),
    (("check", "--bogus"), {2}),
    (("validate", "{missing}"), {2}),
    (("validate", "{dir}"), {2}),
    (("validate", "{newline}"), {2}),
    (("validate", ""), {2}),
    (("validate", "{binary}"), {1}),
    (("validate", "{latin1}"), {1}),
    (("validate", "{deep_yaml}"), {1}),
    (("validate", "{odd_receipt}"), {1}),
    (("explain", ""), {2}),
    (("explain", "../x"), {2}),
    (("explain", "/etc/passwd"), {2}),
    (("explain", "a\nb"), {0}),
    (("explain", "\x1b[31mred"), {0}),
    (("explain", "x" * 100_000), {0}),
    (("explain", "--manifest", "{dir}", "a"), {2}),
    (("explain", "--manifest", "{binary}", "a"), {2}),
    (("explain", "--manifest", "{missing}", "a"), {2}),
    (("explain", "--manifest", "{deep_yaml}", "a"), {2}),
    (("explain",), {2}),
    (("inspect", "{missing}"), {2}),
    (("inspect", "{dir}"), {2}),
    (("inspect", "{binary}"), {2}),
    (("inspect", "{latin1}"), {2}),
    (("inspect", "{huge_number}"), {2}),
    (("inspect", "{odd_receipt}"), {1}),
    (("inspect", "{odd_receipt}", "--repo", "{repo}"), {1}),
    (("inspect", "{odd_receipt}", "--repo", "{binary}"), {2}),
    (("inspect", "{odd_receipt}", "--repo", "{plain}"), {2}),
    (("inspect", "{deep_json}"), {2}),
    (("schema", "extra"), {2}),
    (("serve", "--port", "99999999"), {2}),
    (("serve", "--port", "-1"), {2}),
    (("serve", "--port", "http"), {2}),
    (("receive", "--event", "pull_request", "--payload", "{missing}"), {2}),
    (("receive", "--event", "pull_request", "--payload", "{dir}"), {2}),
    (("receive", "--event", "pull_request", "--payload", "{binary}"), {2}),
    (("receive", "--event", "pull_request", "--payload", "{deep_json}"), {2}),
    (("receive", "--event", "pull_request"), {2}),
    (("replay", "tasks", "--repo", "{binary}"), {2}),
    (("replay", "tasks", "--repo", "{plain}"), {2}),
    (("replay", "tasks", "--repo", "{repo}", "--last", "-5"), {2}),
    (("replay", "run", "--tasks", "{binary}", "--run-dir", "{dir}", "--arm", "a=true"), {2}),
    (("replay", "run", "--tasks", "{dir}", "--run-dir", "{dir}", "--arm", "a=true"), {2}),
    (("replay", "report", "--run-dir", "{binary}"), {2}),
    (("replay", "report", "--run-dir", "{missing}"), {2}),
    (("replay",), {2}),
    (("whatif", "--manifest", "{missing}", "--repo", "{repo}"), {2}),
    (("whatif", "--manifest", "{dir}", "--repo", "{repo}"), {2}),
    (("whatif", "--manifest", "{binary}", "--repo", "{repo}"), {2}),
    (("whatif", "--manifest", "{deep_yaml}", "--repo", "{repo}"), {2}),
    (("whatif", "--manifest", "{policy}", "--repo", "{repo}", "--last", "0"), {2}),
    (("whatif", "--manifest", "{policy}", "--repo", "{repo}", "--last", "9" * 40), {0}),
    (("whatif", "--manifest", "{policy}", "--repo", "{repo}", "--branch", "no-such-branch"), {2}),
    (("whatif", "--manifest", "{policy}", "--repo", "{plain}"), {2}),
    (("whatif", "--manifest", "{policy}", "--repo", "{repo}", "--markdown", "{missing}/x.md"), {2}),
    (("whatif", "--repo", "{repo}"), {2}),
    (("worker", "--port", "http"), {2}),
    (("migrate", "extra"), {2}),
    (("--help",), {0}),
    (("--version",), {0}),
    (("check", "--help"), {0}),
    (("no-such-command",), {2}),
    ((), {2}),
]


def _run_in_process(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(args)
    except SystemExit as exit_:  # argparse: --help, --version and usage errors
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(("template", "allowed"), HOSTILE, ids=lambda v: repr(v)[:60])
def test_hostile_arguments_get_a_message_never_a_traceback(
    template: tuple[str, ...],
    allowed: set[int],
    hostile: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(hostile["plain"])  # not a repository
    # the App's commands read their settings from the environment: a complete one, all local
    monkeypatch.setenv("RECEIPT_WEBHOOK_SECRET", "hostile-test")
    monkeypatch.setenv("RECEIPT_DATABASE_URL", f"sqlite:///{hostile['plain']}/app.sqlite")
    args = [a.format(**hostile) if "{" in a and "}" in a else a for a in template]
    code, out, err = _run_in_process(args, capsys)
    assert "Traceback" not in out + err
    assert code in allowed, (code, err[-500:])
    if code not in (0, 1):
        assert err.strip(), "a refusal says why"
    if code == 2 and not err.startswith(("usage:", "receipt: invalid manifest")):
        assert len(err.splitlines()) == 1, err  # one message, on one line


@pytest.mark.parametrize(
    "args",
    [
        ("validate", "{deep_yaml}"),
        ("inspect", "{deep_json}"),
        ("explain", "x\ny", "../z"),
        ("check", "--repo", "{binary}"),
        ("--version",),
    ],
)
def test_hostile_arguments_from_a_real_process_print_no_traceback(
    args: tuple[str, ...], hostile: dict[str, str]
) -> None:
    done = _receipt(*(a.format(**hostile) for a in args), cwd=Path(hostile["plain"]))
    assert b"Traceback" not in done.stdout + done.stderr
    assert done.returncode in (0, 1, 2, EXIT_INTERNAL)


@pytest.mark.parametrize("command", [("migrate",), ("worker",), ("serve", "--port", "0")])
@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("postgresql://receipt:hunter2@127.0.0.1:1/receipt", "cannot reach the database at "),
        ("mysql://receipt:hunter2@127.0.0.1/receipt", "not 'mysql'"),
        ("not a url", "not 'not a url'"),
        ("sqlite:////proc/no-such-directory/receipt.sqlite3", "cannot reach the database at sqlite:"),
    ],
    ids=["unreachable", "unsupported", "nonsense", "no-directory"],
)
def test_a_database_receipt_cannot_open_is_a_configuration_error(
    command: tuple[str, ...],
    url: str,
    said: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RECEIPT_WEBHOOK_SECRET", "hostile-test")
    monkeypatch.setenv("RECEIPT_DATABASE_URL", url)
    monkeypatch.delenv("RECEIPT_QUEUE_URL", raising=False)
    done = _receipt(*command)
    code, out, err = done.returncode, done.stdout.decode(), done.stderr.decode()
    assert code == 2, err
    assert err.startswith("receipt: error: ") and said in err and len(err.splitlines()) == 1
    assert "hunter2" not in out + err


def test_a_check_from_a_deleted_directory_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    for args in (["check"], ["validate"], ["explain", "a"], ["inspect", str(tmp_path / "r.json")]):
        code, out, err = _run_in_process(args, capsys)
        assert "Traceback" not in out + err
        assert code == 2, (args, err)


def test_a_receipt_written_to_a_named_pipe_leaves_the_pipe_in_place(pr: GitRepo, tmp_path: Path) -> None:
    # `--json /dev/stdout` and friends: renaming a file over a device or a pipe would replace the
    # node itself (for root, /dev/stdout for everyone); such a target is written in place.
    fifo = tmp_path / "receipt.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader waits on it from the start
    try:
        assert (
            main(["check", "--repo", str(pr.root), "--base", "main", "--no-tests", "--json", str(fifo)]) == 0
        )
        out = os.read(reader, 1 << 20)  # the receipt is far smaller than a pipe's buffer
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert json.loads(out)["schema"] == "receipt/1"


def _resolved(revs: list[str], how: Callable[[list[str]], list[str]]) -> list[str] | str:
    try:
        return how(revs)
    except GitError as exc:
        return f"GitError: {exc.problem}"


_SPELLINGS = [
    "main", "pr", "HEAD", "HEAD~1", "pr^", "main^{commit}", "nope", "main..pr", "main...pr", "pr^!",
    "--all", "-x", "--git-dir", "--end-of-options", "src/a.py", "pr:src/a.py", "main^{tree}", "", "@",
]  # fmt: skip


def test_revisions_resolved_together_are_those_resolved_one_at_a_time(pr: GitRepo) -> None:
    pr.write("main..pr", "a file named like a range, in the working tree\n")
    git = Git.open(pr.root)
    one_at_a_time = lambda revs: [git.resolve(r) for r in revs]  # noqa: E731
    (pr.root / "sub").mkdir()
    for base, head in itertools.product(_SPELLINGS, ["pr", "HEAD", "nope", "main..pr", "-x"]):
        revs = [base, head]
        alone = _resolved(revs, one_at_a_time)
        assert _resolved(revs, git.resolve_all) == alone, revs
        for where in (pr.root, pr.root / "sub"):
            opened = Git.open(where, revs)  # resolved by the command that finds the repository
            assert opened == git and _resolved(revs, opened.resolve_all) == alone, (revs, where)
            for sha in alone if isinstance(alone, list) else ():
                assert opened.resolve_tree(sha) == Git(pr.root).resolve_tree(sha), revs  # asked alongside


def _git_commands(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The arguments of every git command run from now on (the pinned `-c` settings left out)."""
    commands: list[tuple[str, ...]] = []
    real = Git._completed

    def counting(args: tuple[str, ...], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        commands.append(args)
        return real(args, **kwargs)

    monkeypatch.setattr(Git, "_completed", staticmethod(counting))
    return commands


def test_the_object_format_is_asked_once_for_every_isolated_command(
    pr: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    pr.checkout("main")
    pr.write("other.py", "y = 1\n")
    pr.commit("the base moves on: merging is not a fast-forward")
    commands = _git_commands(monkeypatch)
    run_check(CheckOptions(repo=pr.root, base="main", head="pr", no_tests=True))
    asked = [c for c in commands if "--show-object-format" in c]
    # two diffs (base..head, base..merge) and the merge-tree each run in the scratch repository;
    # the layout they read is asked by the command that finds the repository
    assert any(c[0] == "merge-tree" for c in commands) and len(asked) == 1
    assert asked[0][:2] == ("rev-parse", "--show-toplevel")


def test_a_check_asks_git_nothing_twice(pr: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    commands = _git_commands(monkeypatch)
    run_check(CheckOptions(repo=pr.root, base="main", head="pr", no_tests=True))
    rev_parses = [c for c in commands if c[0] == "rev-parse"]
    # the repository, its layout, the commits and their trees (the fast-forward's merge)
    assert len(rev_parses) == 1 and not any(c[-1].endswith("^{tree}") and "--verify" in c for c in commands)


def test_a_repository_opened_from_a_subdirectory_reads_its_objects(pr: GitRepo) -> None:
    (pr.root / "deep" / "er").mkdir(parents=True)
    git = Git.open(pr.root / "deep" / "er")
    assert git.root == pr.root.resolve()
    assert git.diff("main", "pr") == Git.open(pr.root).diff("main", "pr") != b""


def test_two_revisions_that_name_commits_are_resolved_by_one_git_process(
    pr: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    git = Git.open(pr.root)
    commands = _git_commands(monkeypatch)
    revisions = resolve_revisions(git, "main", "pr")
    assert [git.resolve("main"), git.resolve("pr")] == [revisions.base, revisions.head]
    assert [c[0] for c in commands[:2]] == ["rev-parse", "merge-base"]

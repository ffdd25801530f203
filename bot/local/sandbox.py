"""Run a command of the code under review in a throwaway copy of a commit, isolated from the caller.

`run_in_sandbox` is the one entry point (tests, and later agents run by replay, go through it):

- **The copy.** A new repository in a temporary directory, holding only the commit, fetched from
  the caller's repository as a pack (depth 1: `git rev-parse HEAD` is the real commit) and checked
  out with hooks off and neither the user's global nor the system git config read (no filters, no
  LFS). It has no `git worktree` link, no alternates, no remote: nothing in it leads back to the
  caller.
- **The process.** `_supervisor.py` runs the command (with `sh -c` for a shell command): in a new
  PID and mount namespace where the platform allows it, else as a child subreaper (Linux), else in
  a session of its own; stdin is /dev/null; the environment is `minimal_environment`'s, with a
  `HOME` and `TMPDIR` of the run's own. In a namespace the caller's work tree and receipt's own
  installation are read-only and the caller's git directory hidden, the mounts locked. Elsewhere
  receipt is a subreaper too while the run lasts, for what a killed supervisor leaves behind; it is
  not dumpable meanwhile.
- **The clock.** Output is read against a deadline, never waited for: at `limit` seconds less a
  short grace every process of the run is stopped, and `run_in_sandbox` returns within `limit`.
- **What is trusted afterwards.** Nothing the run could write, except as evidence about the run:
  the tree's fingerprints before and after (the filesystem gate) and the files named in `collect`,
  read after every process of the run is gone. Once a run starts, a caller holding
  `sealed.imports_sealed()` imports nothing more.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

from bot.engine.semantic import SideEffect, SideEffectKind
from bot.jsonread import JsonInputError, load_json_object
from bot.local import _supervisor, sealed
from bot.local.fsgate import compare, fingerprint
from bot.local.git import Git, GitError

SUPERVISOR = Path(__file__).with_name("_supervisor.py")
MAX_OUTPUT_BYTES = 256 << 10  # the end of the output is kept; the receipt shows less
MAX_COLLECTED_BYTES = 64 << 20
_GRACE_SECONDS = 5.0  # the most the teardown may take, inside the limit
_DRAIN_SECONDS = 2.0  # how long output may stay open after the command ended, outside a namespace
_LONG_PATH = 2048  # a directory path past this is moved up before it is emptied (the limit is 4096)
_PR_GET_DUMPABLE, _PR_SET_DUMPABLE, _PR_SET_CHILD_SUBREAPER, _PR_GET_CHILD_SUBREAPER = 3, 4, 36, 37

# Passed through to the command, when set; everything else (tokens, cloud credentials, the CI's
# own variables) is withheld unless the manifest's tests.environment names it.
PASSED_THROUGH = (
    "PATH", "LANG", "LANGUAGE", "TZ", "TERM", "USER", "LOGNAME", "SHELL", "CI",
    "JAVA_HOME", "GOROOT", "GOPATH", "GOFLAGS", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN",
    "VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT", "NVM_DIR", "NODE_OPTIONS",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
)  # fmt: skip
PASSED_PREFIXES = ("LC_",)
PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")


@dataclass(frozen=True, slots=True)
class Collected:
    """A file the run was expected to write, as found after it: `existed_before` says the copy
    already had it; `data` is None when it was absent (or not a regular file: see `problem`)."""

    path: str
    existed_before: bool
    data: bytes | None = None
    modified_ns: int = 0
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class ProcessResult:
    exit_status: int | None  # None: it did not end by itself, or never started
    timed_out: bool
    start_error: str | None
    survivor: str | None  # a process that outlived the command and could not be made to stop
    elapsed_seconds: float
    output: bytes  # the last MAX_OUTPUT_BYTES of stdout and stderr, interleaved
    isolation: str  # what the run had, in words
    mode: str = ""  # namespace, subreaper or session


@dataclass(frozen=True, slots=True)
class SandboxRun:
    result: ProcessResult
    started_ns: int  # wall clock when the command started, for the age of collected files
    side_effects: tuple[SideEffect, ...] = ()
    collected: Mapping[str, Collected] = field(default_factory=dict)


def minimal_environment(source: Mapping[str, str], extra: Iterable[str] = ()) -> dict[str, str]:
    """The variables a command gets from `source`: PASSED_THROUGH, LC_*, proxies without
    credentials in them, and the names in `extra`."""
    wanted = {*PASSED_THROUGH, *extra}
    env = {k: v for k, v in source.items() if k in wanted or k.startswith(PASSED_PREFIXES)}
    env.update({k: v for k, v in source.items() if k in PROXIES and "@" not in v})
    return {k: v for k, v in env.items() if not k.startswith("GIT_")}


@cache
def platform_isolation() -> tuple[str, tuple[str, ...]]:
    """(mode, the `unshare` options that give it): what this machine allows, tried once."""
    unshare = shutil.which("unshare")
    if sys.platform.startswith("linux") and unshare:
        for flags in (("--user", "--map-root-user"), ()):
            argv = (unshare, *flags, "--pid", "--fork", "--mount-proc", "--kill-child", "--", "true")
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
                if done.returncode == 0:
                    return "namespace", (unshare, *flags, "--pid", "--fork", "--mount-proc", "--kill-child")
    return ("subreaper" if sys.platform.startswith("linux") else "session"), ()


def _describe(mode: str, notes: Sequence[str]) -> str:
    text = {
        "namespace": "own PID and mount namespace (every process ended with the run; the caller's "
        "work tree and receipt's installation read-only, its git directory hidden, the mounts locked)",
        "subreaper": "child subreaper (every descendant, daemons included, stopped with the run)",
        "session": "own session (its process group stopped with the run; a process that leaves the "
        "session is out of reach)",
    }.get(mode, mode)
    return text + "".join(f"; {n}" for n in notes)


def export_commit(git: Git, commit: str, tree: Path) -> None:
    """A new repository at `tree` holding `commit` alone, checked out. Raises GitError."""
    fresh = Git(tree)
    tree.mkdir()
    fresh.run("init", "--quiet", "--template=", isolated=True)
    # Neither side reads the user's global or system config (the only places git honours a command
    # such as uploadpack.packObjectsHook from); upload-pack reads the caller's repository, which
    # receipt reads anyway, so the ownership check a global safe.directory would pass is passed here.
    upload = "git -c uploadpack.allowAnySHA1InWant=true -c safe.directory=* upload-pack"
    fresh.run(
        "-c", "core.hooksPath=/dev/null", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
        "--depth=1", f"--upload-pack={upload}", str(git.root), commit, isolated=True,
    )  # fmt: skip
    fresh.run(
        "-c", "core.hooksPath=/dev/null", "-c", "advice.detachedHead=false",
        "checkout", "--quiet", "--detach", commit, isolated=True,
    )  # fmt: skip


def receipt_installation() -> list[Path]:
    """Where receipt's code and the Python running it live: the prefixes, and every directory on
    the module path (the current one for `python -m`)."""
    found = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *sys.path]
    return list(dict.fromkeys(Path(p or os.curdir).resolve() for p in found if os.path.isdir(p or os.curdir)))


def caller_directories(git: Git) -> tuple[Path, list[Path]]:
    """The caller's work tree, and its git directories (a worktree's own and the common one)."""
    out = git.run("rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", check=False)
    found = [Path(line) for line in out.decode("utf-8", "surrogateescape").splitlines() if line]
    return git.root, list(dict.fromkeys(p.resolve() for p in found if p.is_dir()))


def _watched(git_dirs: Sequence[Path]) -> dict[str, tuple[int, ...]]:
    """What in the caller's git directories can run code or change how git reads the repository
    (config, hooks, info), by inode and times: a write changes the ctime, which no one can set."""
    found: dict[str, tuple[int, ...]] = {}
    for number, git_dir in enumerate(git_dirs):
        label = ".git" if number == 0 else f".git (common directory {git_dir})"
        for name in ("config", "config.worktree", "hooks", "info", "commondir", "gitdir"):
            top = git_dir / name
            paths = [top, *sorted(top.rglob("*"))] if top.is_dir() and not top.is_symlink() else [top]
            for path in paths:
                try:
                    info = path.lstat()
                except OSError:
                    continue
                key = f"{label}/{path.relative_to(git_dir).as_posix()}"
                if stat.S_ISDIR(info.st_mode):  # its times change with what it holds, reported itself
                    found[key] = (info.st_mode, info.st_ino)
                else:
                    found[key] = (info.st_mode, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    return found


def _caller_effects(
    before: Mapping[str, tuple[int, ...]], after: Mapping[str, tuple[int, ...]]
) -> list[SideEffect]:
    detail = " (in the caller's repository, outside the test tree: check it before running git there)"
    effects = []
    for path in sorted(before.keys() | after.keys()):
        old, new = before.get(path), after.get(path)
        if old != new:
            kind = (
                SideEffectKind.CREATED
                if old is None
                else SideEffectKind.DELETED
                if new is None
                else SideEffectKind.MODIFIED
            )
            effects.append(SideEffect(path, kind, detail))
    return effects


def _inside(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def _outermost(directories: Sequence[Path], scratch: Path) -> tuple[list[Path], list[Path]]:
    """The directories to mount read-only (none inside another), and those left writable because
    the run's own scratch directory is inside them."""
    kept = [d for d in directories if _inside(scratch, d)]
    rest = [d for d in dict.fromkeys(directories) if d not in kept]
    return [d for d in rest if not any(o != d and _inside(d, o) for o in rest)], list(dict.fromkeys(kept))


class _Output:
    """The end of a stream, at most MAX_OUTPUT_BYTES of it."""

    def __init__(self) -> None:
        self.data = bytearray()

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > 2 * MAX_OUTPUT_BYTES:
            del self.data[: len(self.data) - MAX_OUTPUT_BYTES]

    def value(self) -> bytes:
        return bytes(self.data[-MAX_OUTPUT_BYTES:])


def _pump(selector: selectors.BaseSelector, sinks: Mapping[int, _Output], until: float) -> None:
    """Read whatever is ready until `until` or until every stream is closed."""
    while selector.get_map() and (left := until - time.monotonic()) > 0:
        for key, _ in selector.select(timeout=min(left, 0.2)):
            chunk = os.read(key.fd, 65536)
            if chunk:
                sinks[key.fd].add(chunk)
            else:
                selector.unregister(key.fd)


def _signal_group(pid: int, signum: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pid, signum)


class _Adopted:
    """In subreaper mode receipt is a child subreaper too while the run lasts: a process that a
    killed supervisor left behind becomes receipt's child rather than init's, and is stopped here.
    Receipt is also not dumpable meanwhile: a process of the run, of the same user, can neither read
    its memory and environment nor write them (/proc/PID/mem, ptrace)."""

    def __init__(self, mode: str) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
        self.adopting = mode == "subreaper" and self.libc is not None
        self.spare: frozenset[int] = frozenset()
        self.was = (ctypes.c_int(0), ctypes.c_int(1))

    def __enter__(self) -> _Adopted:
        if self.libc is not None:
            subreaper, dumpable = self.was
            self.libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(subreaper), 0, 0, 0)
            dumpable.value = self.libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)
            self.libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
            if self.adopting:
                self.spare = frozenset(_supervisor.children())
                self.adopting = self.libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        return self

    def stop_left(self) -> tuple[int, int]:
        """Stop what the run left with receipt: (how many were stopped, how many are left)."""
        return _supervisor.reap_children(0, self.spare) if self.adopting else (0, 0)

    def __exit__(self, *exc: object) -> None:
        if self.libc is not None:
            subreaper, dumpable = self.was
            if self.adopting:
                self.libc.prctl(_PR_SET_CHILD_SUBREAPER, subreaper.value, 0, 0, 0)
            self.libc.prctl(_PR_SET_DUMPABLE, 1 if dumpable.value != 0 else 0, 0, 0, 0)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def run_supervised(
    argv: Sequence[str],
    *,
    cwd: Path,
    environment: Mapping[str, str],
    limit: float,
    read_only: Sequence[Path] = (),
    hide: Sequence[Path] = (),
    stdin: Path | None = None,
) -> ProcessResult:
    """Run `argv` under the supervisor, in the best isolation the platform gives, for at most `limit`;
    its standard input is `stdin` (default /dev/null)."""
    started = time.monotonic()
    grace = min(_GRACE_SECONDS, limit / 10)
    mode, prefix = platform_isolation()
    try:
        source = os.open(stdin, os.O_RDONLY) if stdin is not None else None
    except OSError as exc:
        return ProcessResult(None, False, f"{stdin}: {exc.strerror}", None, 0.0, b"", _describe(mode, ()))
    report_read, report_write = os.pipe()
    lifeline_read, lifeline_write = os.pipe()  # only receipt holds the write end: its end is receipt's
    options = [
        *(a for d in read_only for a in ("--read-only", str(d))),
        *(a for d in hide for a in ("--hide", str(d))),
    ]
    command = [
        *prefix, sys.executable, "-I", "-B", str(SUPERVISOR), str(report_write), str(lifeline_read),
        f"{limit - grace / 2:.3f}", mode, *options, "--", *argv,
    ]  # fmt: skip
    sealed.run_starts()
    with _Adopted(mode) as adopted:
        try:
            process = subprocess.Popen(
                command,
                cwd=cwd,
                env=dict(environment),
                stdin=source if source is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                pass_fds=(report_write, lifeline_read),
            )
        except OSError as exc:
            for fd in (report_read, lifeline_write):
                os.close(fd)
            return ProcessResult(None, False, str(exc), None, 0.0, b"", _describe(mode, ()))
        finally:
            for fd in (report_write, lifeline_read):
                os.close(fd)
            if source is not None:
                os.close(source)
        try:
            ran = _supervise(process, report_read, mode, started=started, limit=limit, grace=grace)
        finally:
            os.close(lifeline_write)
        stopped, left = adopted.stop_left()
    status, timed_out, ended, output, report, left_open = ran
    facts = _report(report)
    error = facts.get("error")
    listed = facts.get("notes")
    notes = [str(n) for n in listed] if isinstance(listed, list) else []
    mode = str(facts.get("mode", mode))
    isolation = _describe(mode, notes)
    if isinstance(error, str):
        return ProcessResult(None, False, error, None, ended - started, output, isolation, mode)
    survivor = None
    if status is not None and status < 0:
        # The supervisor never dies by a signal of its own making: something of the run killed it.
        survivor = (
            f"its supervisor was killed ({_signal_name(-status)}) before it could stop what the command "
            f"started; receipt stopped {stopped} process(es) it left"
        )
        status = None
    if left:
        survivor = f"{left} process(es) the command started could not be stopped"
    elif left_open and survivor is None:
        survivor = "a process the command started outlived it and held its output open"
    return ProcessResult(status, timed_out, None, survivor, ended - started, output, isolation, mode)


def _supervise(
    process: subprocess.Popen[bytes],
    report_read: int,
    mode: str,
    *,
    started: float,
    limit: float,
    grace: float,
) -> tuple[int | None, bool, float, bytes, bytes, bool]:
    """Read the run's output against the deadline; stop it at `limit` less `grace`. Returns the
    supervisor's status (None when stopped), whether it timed out, when it ended, the output, the
    supervisor's report, and whether a process still held the output open after it."""
    assert process.stdout is not None
    output, report = _Output(), _Output()
    selector = selectors.DefaultSelector()
    selector.register(process.stdout.fileno(), selectors.EVENT_READ)
    selector.register(report_read, selectors.EVENT_READ)
    sinks = {process.stdout.fileno(): output, report_read: report}
    stop_at = started + limit - grace
    with selector, process, contextlib.closing(os.fdopen(report_read, "rb")):
        while process.poll() is None and time.monotonic() < stop_at:
            _pump(selector, sinks, min(stop_at, time.monotonic() + 0.2))
            if not selector.get_map():  # both streams closed: only the exit is left to wait for
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=max(0.0, stop_at - time.monotonic()))
        timed_out = process.poll() is None
        ended = time.monotonic()
        if timed_out:
            if mode == "namespace":
                _signal_group(process.pid, signal.SIGKILL)  # the kernel ends the namespace with it
            else:
                process.send_signal(signal.SIGTERM)  # the supervisor stops every descendant
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=grace / 2)
                _signal_group(process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(0.0, started + limit - time.monotonic()))
        drain_until = min(started + limit, time.monotonic() + (grace if timed_out else _DRAIN_SECONDS))
        _pump(selector, sinks, drain_until)
        left_open = process.stdout.fileno() in selector.get_map()
    status = None if timed_out else process.returncode
    return status, timed_out, ended, output.value(), report.value(), left_open


def _report(data: bytes) -> dict[str, object]:
    try:
        return load_json_object(data or b"{}", "the sandbox's report")
    except JsonInputError:
        return {}


def _collect(tree: Path, path: str, existed: bool) -> Collected:
    """The file at `path` in the tree, read without following a symlink anywhere along it."""
    where = tree
    for part in path.split("/"):
        where = where / part
        try:
            info = where.lstat()
        except FileNotFoundError:
            return Collected(path, existed)
        except OSError as exc:
            return Collected(path, existed, problem=exc.strerror)
        if stat.S_ISLNK(info.st_mode):
            return Collected(path, existed, problem=f"{where.relative_to(tree)} is a symlink")
    if not stat.S_ISREG(info.st_mode):
        return Collected(path, existed, problem="not a regular file")
    if info.st_size > MAX_COLLECTED_BYTES:
        return Collected(path, existed, problem=f"larger than {MAX_COLLECTED_BYTES >> 20} MiB")
    try:
        fd = os.open(where, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        return Collected(path, existed, problem=exc.strerror)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_COLLECTED_BYTES + 1)
    return Collected(path, existed, data[:MAX_COLLECTED_BYTES], info.st_mtime_ns)


def _remove(scratch: Path) -> None:
    """Delete the scratch directory whatever the run left in it: directories without permissions,
    and nesting of any depth (its own stack, no recursion; a directory whose path grows long is
    moved up to the top of the scratch directory first, so no path passes the system's limit).
    Never raises: what cannot be removed stays."""
    moved = 0
    pending: list[tuple[str, bool]] = [(str(scratch), False)]
    while pending:
        directory, emptied = pending.pop()
        if emptied:
            with contextlib.suppress(OSError):
                os.rmdir(directory)
            continue
        with contextlib.suppress(OSError):
            os.chmod(directory, 0o700)
        try:
            with os.scandir(directory) as listing:
                entries = [(entry.path, entry.is_dir(follow_symlinks=False)) for entry in listing]
        except OSError:
            continue
        pending.append((directory, True))
        for path, is_directory in entries:
            if not is_directory:
                with contextlib.suppress(OSError):
                    os.unlink(path)
                continue
            target = path
            if len(os.fsencode(path)) > _LONG_PATH:
                moved += 1
                target = str(scratch / f".up-{moved}")
                try:
                    os.rename(path, target)
                except OSError:
                    continue
            pending.append((target, False))


def run_in_sandbox(
    git: Git,
    commit: str,
    argv: Sequence[str],
    *,
    limit: float,
    environment: Mapping[str, str],
    collect: Sequence[str] = (),
    gate: bool = True,
    stdin: Path | None = None,
    hide: Sequence[Path] = (),
    after: Callable[[Path], None] | None = None,
) -> SandboxRun:
    """Run `argv` in a fresh copy of `commit`, for at most `limit` seconds, with `environment` (pass
    it through `minimal_environment` first) plus a HOME and TMPDIR of its own. Returns what it did:
    its result, what it changed in the tree and in the caller's git directory (when `gate`), and
    the files named in `collect`.

    `stdin`: a file given as the command's standard input. `hide`: more files and directories the
    command must not read, hidden like the caller's git directory where the platform allows it (a
    directory that holds the run's own scratch directory cannot be). `after`: called with the tree
    once every process of the run is gone, before the copy is removed (to read what it left)."""
    scratch = Path(tempfile.mkdtemp(prefix="receipt-run-")).resolve()
    try:
        tree, home, tmp = scratch / "tree", scratch / "home", scratch / "tmp"
        try:
            export_commit(git, commit, tree)
        except GitError as exc:
            problem = f"could not check out {commit}: {exc.problem}"
            return SandboxRun(ProcessResult(None, False, problem, None, 0.0, b"", ""), time.time_ns())
        home.mkdir()
        tmp.mkdir()
        before = fingerprint(tree) if gate else {}
        existed = {p: (tree / p).exists() or (tree / p).is_symlink() for p in collect}
        work_tree, git_dirs = caller_directories(git)
        watched = _watched(git_dirs) if gate else {}
        env = {**environment, "HOME": str(home), "TMPDIR": str(tmp), "TMP": str(tmp), "TEMP": str(tmp)}
        read_only, kept = _outermost([work_tree, *receipt_installation()], scratch)
        targets = list(dict.fromkeys([*git_dirs, *(p.resolve() for p in hide)]))
        hidden = [
            d
            for d in targets
            if not _inside(scratch, d) and not any(_inside(d, o) for o in targets if o != d)
        ]
        started_ns = time.time_ns()
        result = run_supervised(
            argv, cwd=tree, environment=env, limit=limit, read_only=read_only, hide=hidden, stdin=stdin
        )
        if result.mode == "namespace" and any(_inside(scratch, d) for d in (work_tree, *git_dirs)):
            skipped = "; the scratch directory is inside the caller's repository: that part stays reachable"
            result = replace(result, isolation=result.isolation + skipped)
        kept = [d for d in kept if d != work_tree]  # said above
        if result.mode == "namespace" and kept:
            writable = "; ".join(f"receipt's {d} holds the scratch directory: stays writable" for d in kept)
            result = replace(result, isolation=f"{result.isolation}; {writable}")
        effects: list[SideEffect] = []
        if gate:
            effects = [
                *compare(before, fingerprint(tree, before), expected=collect),
                *_caller_effects(watched, _watched(git_dirs)),
            ]
        collected = {p: _collect(tree, p, existed[p]) for p in collect}
        if after is not None:
            after(tree)
    finally:
        _remove(scratch)
    return SandboxRun(result, started_ns, tuple(effects), collected)

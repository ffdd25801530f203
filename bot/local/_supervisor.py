"""The process between receipt and a command it runs for a pull request: it outlives every process
the command starts, and stops them all before it exits.

Run as a script, `python -I -B _supervisor.py REPORT_FD MODE [--read-only DIR]... [--hide DIR]...
-- COMMAND...`, never imported by receipt. It imports only the standard library, all of it before
anything else: in a mount namespace it hides directories that may hold the files Python would
otherwise import later. It writes one JSON line to REPORT_FD (what it managed to set up) once the
command has started, closes it, and exits with the command's status (128 + N for signal N).

MODE is what the platform allows, decided by receipt before it starts this:
- `namespace`: this process is PID 1 of a new PID and mount namespace (`unshare`). Each DIR given
  with --read-only is bind-mounted read-only, each given with --hide is covered by an empty
  read-only tmpfs; /proc shows only the run's processes. When this process exits, the kernel
  kills every process left in the namespace, and `unshare` returns only once they are gone.
- `subreaper`: Linux without namespaces: PR_SET_CHILD_SUBREAPER makes every orphaned descendant
  (a double-forked, setsid daemon included) this process's child, so it can find and kill them.
- `session`: elsewhere: the command gets its own session, and its process group is killed.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import sys
import time

_PR_SET_CHILD_SUBREAPER = 36
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_REAP_SECONDS = 10.0


class _Stop(Exception):
    """A termination signal arrived: stop the command and everything it started."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)  # the C library Python itself is linked with


def _mount(
    libc: ctypes.CDLL,
    target: str,
    flags: int,
    *,
    source: str | None = None,
    fstype: str | None = None,
    data: str | None = None,
) -> None:
    encoded = [
        None if v is None else v.encode("utf-8", "surrogateescape") for v in (source, target, fstype, data)
    ]
    if libc.mount(encoded[0], encoded[1], encoded[2], ctypes.c_ulong(flags), encoded[3]) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error), target)


def _namespace(read_only: list[str], hide: list[str], notes: list[str]) -> None:
    libc = _libc()
    try:
        _mount(libc, "/", _MS_REC | _MS_PRIVATE)
    except OSError as exc:
        notes.append(f"mounts could not be made private: {exc.strerror}")
        return
    for directory in read_only:
        try:
            _mount(libc, directory, _MS_BIND | _MS_REC, source=directory)
            _mount(libc, directory, _MS_REMOUNT | _MS_BIND | _MS_RDONLY)
        except OSError as exc:
            notes.append(f"{directory} could not be made read-only: {exc.strerror}")
    for directory in hide:
        flags = _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
        try:
            if os.path.isdir(directory):
                _mount(libc, directory, flags, source="tmpfs", fstype="tmpfs", data="size=4k,mode=0500")
            else:  # a file: /dev/null over it reads as empty
                _mount(libc, directory, _MS_BIND, source="/dev/null")
        except OSError as exc:
            notes.append(f"{directory} could not be hidden: {exc.strerror}")


def _subreaper(notes: list[str]) -> bool:
    if _libc().prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0:
        return True
    notes.append(f"PR_SET_CHILD_SUBREAPER failed: {os.strerror(ctypes.get_errno())}")
    return False


def _children() -> list[int]:
    """This process's children, from /proc (every descendant of a subreaper ends up one)."""
    me = os.getpid()
    found: list[int] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rpartition(b")")[2].split()
        except OSError:
            continue
        if len(fields) > 1 and int(fields[1]) == me:
            found.append(int(name))
    return found


def _kill(pid: int, *, group: bool) -> None:
    with contextlib.suppress(OSError):
        (os.killpg if group else os.kill)(pid, signal.SIGKILL)


def _reap_all(command: int) -> None:
    """Kill the command's process group, then every child until none is left."""
    if command:
        _kill(command, group=True)
    deadline = time.monotonic() + _REAP_SECONDS
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid:
            continue
        for child in _children():
            _kill(child, group=True)
            _kill(child, group=False)
        time.sleep(0.01)


def _stop(signum: int, frame: object) -> None:
    del signum, frame
    raise _Stop


def _exit_code(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def main(argv: list[str]) -> int:
    report_fd, mode = int(argv[0]), argv[1]
    split = argv.index("--")
    options, command = argv[2:split], argv[split + 1 :]
    read_only = [options[i + 1] for i, o in enumerate(options) if o == "--read-only"]
    hide = [options[i + 1] for i, o in enumerate(options) if o == "--hide"]
    notes: list[str] = []
    if mode == "namespace":
        _namespace(read_only, hide, notes)
    elif mode == "subreaper" and not _subreaper(notes):
        mode = "session"
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, _stop)
    report: dict[str, object] = {"mode": mode, "notes": notes}
    pid = 0
    try:
        try:
            pid = os.posix_spawnp(command[0], command, dict(os.environ), setsid=True)
        except OSError as exc:
            report["error"] = str(exc)
        try:
            with os.fdopen(report_fd, "w", encoding="utf-8") as out:
                out.write(json.dumps(report) + "\n")
        except OSError:
            pass  # receipt stopped listening: it judges by the exit status and its own clock
        if not pid:
            return 127
        while True:
            done, status = os.waitpid(-1, 0)
            if done == pid:
                code = _exit_code(status)
                break
    except _Stop:
        code = 128 + signal.SIGTERM
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    if mode != "namespace":  # in a namespace, the kernel does it when this process exits
        _reap_all(pid)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

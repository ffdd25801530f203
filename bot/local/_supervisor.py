"""The process between receipt and a command it runs for a pull request: it outlives every process
the command starts, and stops them all before it exits.

Run as a script, `python -I -B _supervisor.py REPORT_FD LIFELINE_FD SECONDS MODE [--read-only DIR]...
[--hide DIR]... -- COMMAND...` (receipt imports it only for `reap_children`). It imports only the
standard library, all of it before anything else: in a mount namespace it hides directories that may
hold the files Python would otherwise import later. It writes one JSON line to REPORT_FD (what it
managed to set up) once the command has started, closes it, and exits with the command's status
(128 + N for signal N).

It stops the command and everything it started, and exits, on its own deadline (SECONDS after it
started: receipt's own clock stops the run first, this is for a receipt that was killed), when
receipt goes away (LIFELINE_FD, a pipe whose other end only receipt holds, reads end-of-file), or
on SIGTERM, SIGINT or SIGHUP. Neither pipe is passed on to the command, and the process is not
dumpable: another process of the same user cannot read its memory or open its descriptors.

MODE is what the platform allows, decided by receipt before it starts this:
- `namespace`: this process is PID 1 of a new PID and mount namespace (`unshare`). Each DIR given
  with --read-only is bind-mounted read-only, each given with --hide is covered by an empty
  read-only tmpfs; /proc shows only the run's processes. Then it enters a user and mount namespace
  of its own, which locks those mounts: the command, whatever capabilities it holds in there, can
  neither unmount nor remount them (where no user namespace can be made, it drops every capability
  instead). When this process exits, the kernel kills every process left in the namespace, and
  `unshare` returns only once they are gone.
- `subreaper`: Linux without namespaces: PR_SET_CHILD_SUBREAPER makes every orphaned descendant
  (a double-forked, setsid daemon included) this process's child, so it can find and kill them.
- `session`: elsewhere: the command gets its own session, and its process group is killed.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import sys
import time

_PR_SET_DUMPABLE, _PR_CAPBSET_DROP, _PR_SET_CHILD_SUBREAPER, _PR_SET_NO_NEW_PRIVS = 4, 24, 36, 38
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_CLONE_NEWNS, _CLONE_NEWUSER = 0x00020000, 0x10000000
_CAPABILITY_VERSION_3 = 0x20080522
_EINVAL = 22
_REAP_SECONDS = 10.0


class _Stop(Exception):
    """A termination signal arrived: stop the command and everything it started."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)  # the C library Python itself is linked with


def _failed(what: str) -> OSError:
    error = ctypes.get_errno()
    return OSError(error, os.strerror(error), what)


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
        raise _failed(target)


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
    _lock(libc, notes)


def _lock(libc: ctypes.CDLL, notes: list[str]) -> None:
    """Make the mounts above permanent for the run. The command is root of the namespace `unshare`
    made, with every capability there, enough to unmount them; a mount namespace made by a user
    namespace below that one gets them locked (the kernel refuses to unmount or remount them, or to
    show what they cover). The command stays uid 0 (mapped to this process's uid)."""
    uid, gid = os.geteuid(), os.getegid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS) == 0:
        try:
            maps = (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1"))
            for name, text in maps:
                with open(f"/proc/self/{name}", "w", encoding="ascii") as handle:
                    handle.write(text)
        except OSError as exc:
            notes.append(f"the run's user namespace maps no identity ({exc.strerror}): it runs as nobody")
        return
    nested = _failed("unshare")
    try:
        _drop_capabilities(libc)
    except OSError as exc:
        notes.append(
            f"the mounts are not locked (no user namespace: {nested.strerror}; capabilities kept: "
            f"{exc.strerror}): the run can undo them"
        )
        return
    notes.append("every capability dropped (no user namespace could lock the mounts)")


def _drop_capabilities(libc: ctypes.CDLL) -> None:
    """Without a capability the mounts cannot be undone (and a user namespace the command makes
    gets them locked)."""
    for capability in range(64):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 and ctypes.get_errno() != _EINVAL:
            raise _failed("PR_CAPBSET_DROP")  # EINVAL: past the last capability this kernel has
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: none, twice (64 bits)
    if libc.capset(header, data) != 0:
        raise _failed("capset")
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise _failed("PR_SET_NO_NEW_PRIVS")


def _subreaper(notes: list[str]) -> bool:
    if _libc().prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0:
        return True
    notes.append(f"PR_SET_CHILD_SUBREAPER failed: {os.strerror(ctypes.get_errno())}")
    return False


def children() -> list[int]:
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


def reap_children(command: int, spare: frozenset[int] = frozenset()) -> tuple[int, int]:
    """Kill the command's process group, then every child of this process but `spare` (and their
    groups), reaping each, until none is left or `_REAP_SECONDS` have passed. Returns how many were
    killed, and how many are left. receipt uses it too, for what a killed supervisor left it."""
    if command:
        _kill(command, group=True)
    killed: set[int] = set()
    deadline = time.monotonic() + _REAP_SECONDS
    while True:
        found = [c for c in children() if c not in spare]
        if not found or time.monotonic() >= deadline:
            return len(killed), len(found)
        for child in found:
            _kill(child, group=True)
            _kill(child, group=False)
            killed.add(child)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child, os.WNOHANG)
        time.sleep(0.01)


def _stop(signum: int, frame: object) -> None:
    del signum, frame
    raise _Stop


def _exit_code(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def _wait(command: int, lifeline: int, deadline: float) -> int:
    """The command's exit code; raises _Stop at the deadline or when receipt went away."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)  # a SIGCHLD wakes the select below
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    while True:
        while True:
            try:
                done, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return 127
            if not done:
                break
            if done == command:
                return _exit_code(status)
        left = deadline - time.monotonic()
        if left <= 0:
            raise _Stop
        ready, _, _ = select.select([lifeline, wake_read], [], [], left)
        if lifeline in ready:
            raise _Stop  # end of file: receipt is gone, and nobody is waiting for this run
        if wake_read in ready:
            os.read(wake_read, 512)


def main(argv: list[str]) -> int:
    report_fd, lifeline, seconds, mode = int(argv[0]), int(argv[1]), float(argv[2]), argv[3]
    deadline = time.monotonic() + seconds
    split = argv.index("--")
    options, command = argv[4:split], argv[split + 1 :]
    read_only = [options[i + 1] for i, o in enumerate(options) if o == "--read-only"]
    hide = [options[i + 1] for i, o in enumerate(options) if o == "--hide"]
    _libc().prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    for fd in (report_fd, lifeline):
        os.set_inheritable(fd, False)  # the command must neither forge the report nor hold receipt's line
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
        code = _wait(pid, lifeline, deadline)
    except _Stop:
        code = 128 + signal.SIGTERM
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    if mode != "namespace":  # in a namespace, the kernel does it when this process exits
        reap_children(pid)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Where the engine's per-file reading runs on this machine (engine/fan.py): shares of the files
in forked processes, one per core this process may use, up to a few.

Only where that is safe and worth it: Linux, a process with one thread (a fork copies the calling
thread alone, with every lock the others held), more than one usable core, and enough text that a
fork's two milliseconds are a small part of reading a share. A child sends its results back pickled
through a pipe and exits without running this process's exit handlers. A child that fails in any
way (an exception, a signal, a short or unreadable answer), one the system cannot start (no process
or pipe to spare), and one still reading long after this process read its own share (PATIENCE times
as long, and GRACE more: it is stuck, and is killed) have their shares read here, so the answer is
always `work(items)`, and an exception the work raises is raised here, as it is in one process.
Children still running when this process gives up are killed and reaped: none outlives it.
"""

from __future__ import annotations

import contextlib
import heapq
import os
import select
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MOST = 4  # processes: past a few, the shares are small and each child's copies of memory add up
# Characters of text per process below which one process reads them all: about 20 ms of reading.
SMALLEST = 128 * 1024
# How long the children may take beyond this process's own share: that many times as long, and more.
PATIENCE, GRACE = 20, 30.0


def _can_fork() -> bool:
    """macOS's system libraries are not safe to use after a fork; Windows has none."""
    return sys.platform == "linux"


def usable_cores() -> int:
    """The cores this process may run on (its affinity), 1 where it cannot fork safely."""
    return len(os.sched_getaffinity(0)) if _can_fork() else 1


def shares(weights: Sequence[int], count: int) -> list[list[int]]:
    """The items' indices dealt into at most `count` shares of about equal weight, heaviest first to
    the lightest share (a file's cost is not spread evenly along a change: the heavy ones cluster in
    a directory), each share in the items' order."""
    loads = [(0, k) for k in range(min(count, len(weights)))]
    dealt: list[list[int]] = [[] for _ in loads]
    for index in sorted(range(len(weights)), key=lambda i: -weights[i]):
        load, share = heapq.heappop(loads)
        dealt[share].append(index)
        heapq.heappush(loads, (load + weights[index], share))
    return [sorted(share) for share in dealt if share]


@dataclass
class _Child:
    pid: int
    answer: int  # the read end of the pipe it answers on
    reaped: bool = False

    def result(self, expected: int, deadline: float) -> list[Any] | None:
        """Its share's results, or None when it did not deliver all of them by `deadline`
        (`time.monotonic`; a child past it is stuck, and `stop` kills it)."""
        import pickle  # only a change large enough to fork needs it

        chunks = []
        while True:
            ready, _, _ = select.select([self.answer], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return None
            chunk = os.read(self.answer, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        _, status = os.waitpid(self.pid, 0)
        self.reaped = True
        if os.waitstatus_to_exitcode(status) != 0:
            return None
        try:
            found = pickle.loads(b"".join(chunks))  # noqa: S301 - written by this process's own fork
        except Exception:  # a truncated answer; nothing from a child is trusted further than this
            return None
        return found if isinstance(found, list) and len(found) == expected else None

    def stop(self) -> None:
        os.close(self.answer)
        if not self.reaped:
            import signal

            with contextlib.suppress(ProcessLookupError):  # it exited between the check and the kill
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)


def serve(work: Callable[[Sequence[T]], list[R]], items: Sequence[T], answer: int) -> int:
    """A child's whole life but its exit: read the share, write the pickled results to `answer`.
    Returns the exit status (0: answered)."""
    import pickle

    try:
        data = pickle.dumps(work(items), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(answer, "wb") as out:
            out.write(data)
    except BaseException:  # the parent reads the share again, and meets the error itself
        return 1
    return 0


def _exit(status: int) -> NoReturn:  # pragma: no cover - runs in the child, which coverage does not see
    os._exit(status)


def _fork(work: Callable[[Sequence[T]], list[R]], items: Sequence[T]) -> _Child | None:
    """A child reading `items`; None when the system gives no process or pipe (the caller reads them)."""
    try:
        answer, write_end = os.pipe()
    except OSError:  # out of file descriptors
        return None
    try:
        pid = os.fork()
    except OSError:  # out of processes or memory
        os.close(answer)
        os.close(write_end)
        return None
    if pid == 0:  # pragma: no cover - the child
        os.close(answer)
        _exit(serve(work, items, write_end))
    os.close(write_end)
    return _Child(pid, answer)


@dataclass(frozen=True)
class Forked:
    """A `Fan` (engine/fan.py) over at most `processes` processes, this one included."""

    processes: int

    def __call__(
        self, work: Callable[[Sequence[T]], list[R]], items: Sequence[T], weights: Sequence[int]
    ) -> list[R]:
        count = min(self.processes, MOST, len(items), sum(weights) // SMALLEST)
        if count < 2 or threading.active_count() > 1 or not _can_fork():
            return work(items)
        first, *rest = shares(weights, count)
        children: list[tuple[_Child, list[int]]] = []
        here = [first]
        try:
            for share in rest:
                child = _fork(work, [items[i] for i in share])
                if child is None:
                    here.append(share)
                else:
                    children.append((child, share))
            out: list[Any] = [None] * len(items)
            started = time.monotonic()
            for share in here:
                _place(out, share, work([items[i] for i in share]))
            # A share weighs about what this process's did: a child far past that is stuck.
            deadline = time.monotonic() + PATIENCE * (time.monotonic() - started) + GRACE
            for child, share in children:
                found = child.result(len(share), deadline)
                _place(out, share, work([items[i] for i in share]) if found is None else found)
            return out  # every place filled: each share's results are all there
        finally:
            for child, _ in children:
                child.stop()


def _place(out: list[Any], share: list[int], results: list[R]) -> None:
    for index, result in zip(share, results, strict=True):
        out[index] = result

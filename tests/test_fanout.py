"""The engine's per-file reading spread over forked processes (bot/local/fanout.py): the answer is
`work(items)` whatever the children do, and no child outlives the call."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bot.engine import evaluate
from bot.local import fanout
from bot.local.check import CheckOptions, local_inputs
from bot.local.fanout import Forked, serve, shares
from tests.gitrepo import GitRepo

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="receipt forks only on Linux")

T = TypeVar("T")
R = TypeVar("R")
BIG = [fanout.SMALLEST] * 8  # weights of 8 items, enough for every process asked for


@pytest.fixture
def other_threads_set_aside(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run before these may leave threads in this process (the fake GitHub's server, idle
    worker threads), which `Forked` rightly refuses to fork beside. They hold no lock the forked work
    takes, so their count is set aside here; the refusal itself is tested with a thread of its own,
    and whole receipts in a fresh `receipt check` process."""
    monkeypatch.setattr(fanout.threading, "active_count", lambda: 1)


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def _pids(items: Sequence[int]) -> list[tuple[int, int]]:
    return [(item, os.getpid()) for item in items]


@pytest.mark.parametrize(
    ("weights", "count"),
    [
        ([1] * 10, 2),
        ([1] * 10, 3),
        ([100, 1, 1, 1, 1], 2),
        ([1, 1, 1, 1, 100], 2),
        ([0, 0, 0], 2),
        ([5], 4),
        ([3, 3, 3, 3, 3, 3, 3], 4),
    ],
)
def test_shares_hold_every_item_once_in_order_and_never_exceed_the_count(
    weights: list[int], count: int
) -> None:
    found = shares(weights, count)
    assert sorted(i for share in found for i in share) == list(range(len(weights)))
    assert all(share == sorted(share) and share for share in found)
    assert 1 <= len(found) <= count


def test_shares_are_of_about_equal_weight_wherever_the_heavy_items_are() -> None:
    clustered = [50] * 4 + [1] * 96  # the heavy files together, as in one directory
    loads = sorted(sum(clustered[i] for i in share) for share in shares(clustered, 2))
    assert loads == [148, 148]
    assert [len(s) for s in shares([100, 1, 1, 1, 1], 2)] == [1, 4]


def test_the_shares_are_read_in_other_processes_and_answered_in_order(other_threads_set_aside: None) -> None:
    found = Forked(3)(_pids, list(range(8)), BIG)
    assert [item for item, _ in found] == list(range(8))
    pids = {pid for _, pid in found}
    assert len(pids) == 3 and os.getpid() in pids
    assert _no_children_left()


def test_one_process_small_work_and_a_threaded_process_read_everything_here() -> None:
    assert {pid for _, pid in Forked(1)(_pids, list(range(8)), BIG)} == {os.getpid()}
    small = [fanout.SMALLEST // 8] * 8  # one slice's worth in all
    assert {pid for _, pid in Forked(4)(_pids, list(range(8)), small)} == {os.getpid()}
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert {pid for _, pid in Forked(4)(_pids, list(range(8)), BIG)} == {os.getpid()}
    finally:
        stop.set()
        other.join()


def test_another_system_reads_everything_here_whatever_was_asked(
    other_threads_set_aside: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fanout.sys, "platform", "darwin")  # its libraries are not safe after a fork
    assert fanout.usable_cores() == 1
    assert {pid for _, pid in Forked(4)(_pids, list(range(8)), BIG)} == {os.getpid()}


@pytest.mark.parametrize("failure", ["raises", "killed", "exits early", "answers wrongly", "is stuck"])
def test_a_child_that_fails_has_its_share_read_again_here(
    failure: str, other_threads_set_aside: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = os.getpid()

    def work(items: Sequence[int]) -> list[int]:
        if os.getpid() != parent:
            if failure == "raises":
                raise RuntimeError("a child's own trouble")
            if failure == "killed":
                os.kill(os.getpid(), signal.SIGKILL)
            if failure == "exits early":
                os._exit(0)  # nothing written: a short answer
            if failure == "is stuck":
                signal.pause()  # until killed
            return [-1]  # one result for a slice of several
        return [item * 2 for item in items]

    monkeypatch.setattr(fanout, "GRACE", 0.5)
    assert Forked(2)(work, list(range(6)), BIG[:6]) == [0, 2, 4, 6, 8, 10]
    assert _no_children_left()


@pytest.mark.parametrize("scarce", ["fork", "pipe"])
def test_no_process_or_pipe_to_spare_reads_the_share_here(
    scarce: str, other_threads_set_aside: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused() -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(fanout.os, scarce, refused)
    found = Forked(3)(_pids, list(range(6)), BIG[:6])
    assert found == [(i, os.getpid()) for i in range(6)]


def test_an_error_of_the_work_itself_is_raised_here_and_the_children_are_reaped(
    other_threads_set_aside: None,
) -> None:
    def work(items: Sequence[int]) -> list[int]:
        if 0 in items:
            raise ValueError("item 0")
        return list(items)

    with pytest.raises(ValueError, match="item 0"):
        Forked(3)(work, list(range(6)), BIG[:6])
    assert _no_children_left()


def test_serve_answers_pickled_or_reports_failure(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    assert serve(lambda items: [i + 1 for i in items], [1, 2], write_end) == 0
    import pickle

    with os.fdopen(read_end, "rb") as answer:
        assert pickle.loads(answer.read()) == [2, 3]
    read_end, write_end = os.pipe()
    assert serve(lambda items: [1 / 0], [1], write_end) == 1
    os.close(read_end)
    os.close(write_end)


def _module(index: int, edited: bool) -> str:
    lines = []
    for n in range(400):
        if n % 40 == 0:
            lines.append(f"def function_{index}_{n}(values, offset):\n")
            if n == 80:
                lines.append("    if offset:\n        offset += 1\n" if edited else "")
            continue
        op = "+" if edited and 150 < n < 190 else "-"
        lines.append(f"    total_{n} = compute(values[{n}], offset {op} {index})  # {n}\n")
    return "".join(lines) + "    return total_1\n"


# What every content rule finds, one kind in each of several files, so that each slice holds some.
_FINDINGS = (
    'TOKEN = "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"\n',  # secret
    "import os\nos.system(values)\n",  # dangerous
    "import requests  # noqa\n",  # suppression, and a banned import
    "name = 'a\u200bb'\n",  # invisible unicode
    "print('FORBIDDEN')\n",  # banned pattern
)
_POLICY = """version: 1
content:
  banned: [{id: forbidden, pattern: FORBIDDEN, message: not here}]
  banned_imports: [{module: requests}]
"""


def _large_change(repo: GitRepo) -> tuple[str, Path]:
    repo.write(".github/receipt.yml", _POLICY)
    for i in range(12):
        repo.write(f"pkg/m{i}.py", _module(i, edited=False))
    repo.write("notes.txt", "one two three\n" * 2000)
    repo.commit("base")
    base = repo.head()
    for i in range(1, 12):
        repo.write(f"pkg/m{i}.py", _module(i, edited=i % 3 != 0) + _FINDINGS[i % len(_FINDINGS)])
    repo.write("notes.txt", "one two four\n" * 2000)
    repo.remove("pkg/m0.py")
    repo.commit("change")
    reference = repo.root / "gold.patch"
    reference.write_bytes(repo.git_bytes("diff", base, "HEAD", "--", "pkg/m1.py", "pkg/m2.py"))
    return base, reference


# `receipt check` in a fresh process, counting the processes it forks.
_COUNTING = """
import sys
from bot.local import fanout
forks = []
real = fanout._fork
fanout._fork = lambda *args: forks.append(1) or real(*args)
from bot.cli import main
status = main(sys.argv[2:])
open(sys.argv[1], "w").write(str(len(forks)))
sys.exit(status)
"""


def _receipt(repo: GitRepo, base: str, reference: Path, processes: int) -> tuple[dict[str, Any], int]:
    out, forks = repo.root.parent / f"receipt-{processes}.json", repo.root.parent / f"forks-{processes}"
    args = ["check", "--repo", str(repo.root), "--base", base, "--no-tests", "--reference", str(reference)]
    args += ["--processes", str(processes), "--json", str(out)]
    done = subprocess.run(
        [sys.executable, "-c", _COUNTING, str(forks), *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1, done.stderr  # the findings fail the receipt
    return json.loads(out.read_text()), int(forks.read_text())


def test_a_large_change_gets_the_same_receipt_from_one_process_and_from_several(repo: GitRepo) -> None:
    base, reference = _large_change(repo)
    alone, forks_alone = _receipt(repo, base, reference, 1)
    spread, forks = _receipt(repo, base, reference, 4)
    assert forks_alone == 0
    assert forks >= 4  # excess and the content rules, each over several processes
    assert alone == spread
    excess = alone["excess"]
    assert excess["distance"] and excess["excess"] is not None and excess["added_complexity"]
    rules = {v["rule"] for v in alone["scope"]["violations"]}
    assert {
        "secret",
        "dangerous",
        "suppression",
        "invisible-unicode",
        "banned-pattern",
        "banned-import",
    } <= rules


def _each_file_alone(
    work: Callable[[Sequence[T]], list[R]], items: Sequence[T], weights: Sequence[int]
) -> list[R]:
    """A fan that hands the work one item at a time, here: the engine's half of the contract."""
    return [result for item in items for result in work([item])]


def test_the_engine_answers_alike_however_its_work_is_sliced(repo: GitRepo) -> None:
    base, reference = _large_change(repo)
    options = CheckOptions(repo=repo.root, base=base, no_tests=True, reference=reference)
    whole = evaluate(local_inputs(options)).as_json()
    sliced = evaluate(local_inputs(options), fan=_each_file_alone).as_json()
    assert whole == sliced

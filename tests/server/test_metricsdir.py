"""The metrics directory of `receipt serve`: a server killed with -9 never runs its clean-up, so
the next one removes what the dead left, and only that."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from bot.server.metricsdir import fresh_folder, remove_abandoned


def _dead_pid() -> int:
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def _folder(parent: Path, name: str, owner: str | None) -> Path:
    folder = parent / name
    folder.mkdir()
    (folder / "counter_1.db").write_bytes(b"\0" * 16)
    if owner is not None:
        (folder / "owner").write_text(owner)
    return folder


def test_only_the_directories_of_dead_servers_are_removed(tmp_path: Path) -> None:
    dead = _folder(tmp_path, "receipt-metrics-dead", str(_dead_pid()))
    alive = _folder(tmp_path, "receipt-metrics-alive", str(os.getpid()))
    being_made = _folder(tmp_path, "receipt-metrics-new", None)
    garbled = _folder(tmp_path, "receipt-metrics-odd", "not a pid")
    other = _folder(tmp_path, "someone-else", str(_dead_pid()))

    assert remove_abandoned(tmp_path) == [dead]
    assert not dead.exists()
    assert all(f.exists() for f in (alive, being_made, garbled, other))


def test_a_fresh_folder_records_its_owner_and_clears_the_dead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = _folder(tmp_path, "receipt-metrics-dead", str(_dead_pid()))

    folder = Path(fresh_folder())

    assert folder.parent == tmp_path and folder.name.startswith("receipt-metrics-")
    assert (folder / "owner").read_text() == str(os.getpid())
    assert not dead.exists()
    assert remove_abandoned(tmp_path) == []  # its own server is alive

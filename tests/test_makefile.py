"""The Makefile's stamps: `make demo` installs only the runtime dependencies, `make test` the rest
too, each from nothing and in either order (checked with `make -n`, which runs nothing)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _planned(tree: Path, target: str) -> list[str]:
    # as a user runs it, not as a sub-make of `make test` (which would pass its flags down)
    env = {
        k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")
    }
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", target],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.splitlines()


def _installs(lines: list[str]) -> list[str]:
    return [line.split(" -e ", 1)[1] for line in lines if "pip install" in line]


def _stamp(tree: Path, name: str) -> None:
    """What running a planned step leaves behind, without running it."""
    checksum = subprocess.run(
        "cksum < pyproject.toml", shell=True, cwd=tree, capture_output=True, text=True, check=True
    ).stdout.split()[0]
    (tree / ".venv" / "bin").mkdir(parents=True, exist_ok=True)
    (tree / ".venv" / "bin" / "python").touch()
    (tree / ".venv" / f".{name}-{checksum}").touch()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def test_demo_installs_only_the_runtime_dependencies(tree: Path) -> None:
    plan = _planned(tree, "demo")
    assert plan[0].endswith("-m venv .venv")
    assert _installs(plan) == ["."]
    assert plan[-1].endswith("-m bot.demo")


def test_test_installs_the_development_dependencies(tree: Path) -> None:
    assert _installs(_planned(tree, "test")) == ["'.[dev]'"]


def test_test_after_demo_adds_the_development_set(tree: Path) -> None:
    _stamp(tree, "runtime")
    plan = _planned(tree, "test")
    assert not any("-m venv" in line for line in plan)
    assert _installs(plan) == ["'.[dev]'"]


def test_demo_after_test_installs_nothing(tree: Path) -> None:
    _stamp(tree, "runtime")
    _stamp(tree, "dev")
    assert _installs(_planned(tree, "demo")) == []
    assert _installs(_planned(tree, "test")) == []


def test_a_changed_pyproject_installs_again(tree: Path) -> None:
    _stamp(tree, "runtime")
    _stamp(tree, "dev")
    with (tree / "pyproject.toml").open("a") as handle:
        handle.write("\n# changed\n")
    assert _installs(_planned(tree, "demo")) == ["."]
    assert _installs(_planned(tree, "test")) == ["'.[dev]'"]

"""The shells keep to their rooms: what talks to GitHub (the Action's publish mode, the App) never
loads the local adapter that runs a pull request's code (bot/local: the test run, its sandbox and
gate), and the gather core and the GitHub adapters import nothing of it at all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_RUNS_CODE = ("bot.local.check", "bot.local.testrun", "bot.local.sandbox", "bot.local.fsgate")


def _loaded_after(*modules: str) -> set[str]:
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(done.stdout.split())


@pytest.mark.parametrize(
    "modules",
    [
        ("action.main",),  # publish mode loads action.local (and so bot.local.check) only for check/compute
        ("bot.server.app", "bot.server.work", "bot.server.serve"),  # the App never runs a pull request's code
    ],
    ids=["action-publish", "app"],
)
def test_what_talks_to_github_never_loads_the_test_runner(modules: tuple[str, ...]) -> None:
    loaded = _loaded_after(*modules)
    assert not loaded.intersection(_RUNS_CODE), sorted(loaded.intersection(_RUNS_CODE))


def test_the_gather_core_and_the_github_adapters_import_nothing_local() -> None:
    packages = [
        f"bot.{package}.{path.stem}"
        for package in ("gather", "github")
        for path in sorted((ROOT / "bot" / package).glob("*.py"))
        if path.stem != "__init__"
    ]
    loaded = _loaded_after(*packages)
    assert not {m for m in loaded if m.startswith("bot.local")}, sorted(
        m for m in loaded if m.startswith("bot.local")
    )

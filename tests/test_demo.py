"""`make demo`: each scratch branch is shown as a diff before its receipt, so a reader sees why."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot import demo

ROOT = Path(__file__).resolve().parents[1]


def test_the_demo_shows_each_change_before_its_receipt(capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main() == 0
    out = capsys.readouterr().out
    faithful, agent = out.split("$ git diff main...agent-fix")
    assert "$ git diff main...faithful-fix" in faithful
    diff, receipt = faithful.split("$ git diff main...faithful-fix")[1].split("$ receipt check")
    assert "-    return sum(values) / (len(values) - 1)\n+    return sum(values) / len(values)\n" in diff
    assert receipt.startswith(" --base main --head faithful-fix")
    assert "receipt: SUCCESS" in receipt and "(exit status 0)" in receipt
    assert "is formatting" not in receipt  # a one-line fix changes no formatting
    diff, receipt = agent.split("$ receipt check")
    assert '-  "lockfileVersion": 3\n+  "lockfileVersion": 2\n' in diff
    assert "+        self.assertTrue(mean([1, 2, 3]))\n" in diff
    assert "receipt: FAILURE" in receipt and "(exit status 1)" in receipt
    assert "package-lock.json: protected-path" in receipt


def test_the_demo_is_made_of_sections_a_new_one_can_join() -> None:
    assert demo.SECTIONS and all(callable(section) for section in demo.SECTIONS)


def test_the_demo_shows_the_app_answering_a_signed_delivery(capsys: pytest.CaptureFixture[str]) -> None:
    demo.the_app_on_a_local_fake_github()
    out = capsys.readouterr().out
    assert "X-Hub-Signature-256 over the body -> HTTP 202" in out
    assert "posted check run `receipt`" in out and ": success" in out
    assert "## ✅ receipt: success" in out and "| scope | ✅ pass" in out
    assert "receipt page (details_url" in out and "/receipts/" in out and "?token=" in out


_WITHOUT_DEVELOPMENT_PACKAGES = """
import importlib.abc, sys

class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"pytest", "_pytest", "hypothesis", "selenium", "mypy", "ruff", "coverage"}:
            raise ModuleNotFoundError(f"{name} is a development package, which make demo does not install")
        return None

sys.meta_path.insert(0, Absent())
from bot import demo
sys.exit(demo.main())
"""


def test_the_demo_needs_only_what_make_demo_installs() -> None:
    """`make demo` installs the runtime packages alone: the demo, its App section and the fake
    GitHub it starts must not import a development package (the suite has them all)."""
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_DEVELOPMENT_PACKAGES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "receipt: SUCCESS" in done.stdout and "posted check run `receipt`" in done.stdout

"""What a command imports, as the structural side of the start-up budget (bench/receipt_check.py
times it): `receipt --help` loads none of the engine, and a check of a repository without a policy
file loads neither YAML nor the manifest's schema, nor pathspec (the built-in globs are translated
already), nor renderers it was not asked for; nor are the invisible-Unicode patterns compiled for a change
that adds only ASCII."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.gitrepo import GitRepo

_PROJECT = Path(__file__).resolve().parents[1]
# Runs the command in a fresh interpreter, then writes the names of every module it imported.
_SCRIPT = """
import contextlib, io, json, sys
from bot.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        status = main(sys.argv[2:])
    except SystemExit as exc:
        status = exc.code
unicode = sys.modules.get("bot.engine.content.unicode")
compiled = [n for n in ("_invisible", "_non_ascii_word") if unicode and getattr(unicode, n).cache_info().currsize]
with open(sys.argv[1], "w") as out:
    json.dump({"status": status, "modules": sorted(sys.modules), "compiled": compiled}, out)
"""
_ENGINE = ("bot.engine.evaluation", "bot.engine.rules", "bot.engine.excess", "bot.engine.manifest")
_READING_A_MANIFEST = ("yaml", "bot.engine.schema", "bot.engine.manifest_spec")


def _run(tmp_path: Path, cwd: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "modules.json"
    env = {**os.environ, "PYTHONPATH": str(_PROJECT)}
    subprocess.run([sys.executable, "-c", _SCRIPT, str(out), *args], cwd=cwd, env=env, check=True)
    found: dict[str, Any] = json.loads(out.read_text())
    return found


def _imported(tmp_path: Path, cwd: Path, *args: str) -> tuple[int, set[str]]:
    found = _run(tmp_path, cwd, *args)
    return found["status"], set(found["modules"])


def _python_change(repo: GitRepo) -> None:
    repo.write("pkg/mod.py", "def f(x):\n    return x + 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("pkg/mod.py", "def f(x):\n    return x + 2\n")
    repo.commit("change")


def test_help_imports_no_engine_git_or_third_party_module(tmp_path: Path) -> None:
    status, modules = _imported(tmp_path, tmp_path, "--help")
    assert status == 0
    unwanted = {*_ENGINE, "bot.local.git", "yaml", "re2", "pathspec", "rapidfuzz", "tempfile", "traceback"}
    assert not unwanted & modules, sorted(unwanted & modules)


def test_a_check_without_a_policy_file_reads_no_yaml(repo: GitRepo, tmp_path: Path) -> None:
    _python_change(repo)
    args = ("check", "--base", "main", "--head", "pr", "--no-tests", "--json", str(tmp_path / "r.json"))
    status, modules = _imported(tmp_path, repo.root, *args)
    assert status == 0 and set(_ENGINE) <= modules  # the check ran, and judged the change
    unwanted = {*_READING_A_MANIFEST, "bot.engine.render.markdown", "calendar", "pathspec"}
    assert not unwanted & modules, sorted(unwanted & modules)
    assert json.loads((tmp_path / "r.json").read_text())["manifest"]["source"] == "default"


def test_a_policy_file_is_read_with_yaml_and_the_schema(repo: GitRepo, tmp_path: Path) -> None:
    repo.write(".github/receipt.yml", "version: 1\npaths:\n  protect: [secret/**]\n")
    _python_change(repo)
    status, modules = _imported(tmp_path, repo.root, "check", "--base", "main", "--head", "pr", "--no-tests")
    assert status == 0 and {*_READING_A_MANIFEST, "pathspec"} <= modules  # its own glob: pathspec


def test_unicode_patterns_are_compiled_only_for_text_not_ascii(repo: GitRepo, tmp_path: Path) -> None:
    _python_change(repo)
    args = ("check", "--base", "main", "--head", "pr", "--no-tests")
    ascii_only = _run(tmp_path, repo.root, *args)
    assert "bot.engine.content.unicode" in ascii_only["modules"] and ascii_only["compiled"] == []
    repo.write("pkg/mod.py", "def f(x):\n    return x + 2  # caf\u00e9\n")
    repo.commit("not ascii")
    assert _run(tmp_path, repo.root, *args)["compiled"] == ["_invisible", "_non_ascii_word"]

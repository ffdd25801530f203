"""The engine's public surface, and the guard that keeps it pure (no I/O module reachable from it)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import bot.engine
from bot.engine.errors import ReceiptError

ENGINE = Path(bot.engine.__file__).resolve().parent
# Modules whose presence in the engine would mean I/O, a clock, the environment or a shell.
FORBIDDEN = ("os", "subprocess", "pathlib", "socket", "time", "datetime", "shutil", "tempfile",
             "http", "urllib", "httpx", "githubkit", "fastapi", "sqlalchemy",
             "bot.local", "bot.github", "bot.gather", "bot.server", "bot.cli", "action")  # fmt: skip
# Pure string functions inside a forbidden package: percent-decoding a URL touches nothing outside.
PURE = ("urllib.parse",)


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def test_the_engine_imports_no_io_module() -> None:
    offending = [
        f"{path.relative_to(ENGINE.parents[1])}:{line}: import {name}"
        for path in sorted(ENGINE.rglob("*.py"))
        for line, name in _imports(path)
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN) and name not in PURE
    ]
    assert offending == []


def test_every_exported_name_resolves_to_its_module() -> None:
    for name in bot.engine.__all__:
        value = getattr(bot.engine, name)
        module = bot.engine._WHERE[name]
        assert value is getattr(sys.modules[module], name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = bot.engine.nothing_here


def test_importing_the_engine_loads_none_of_its_modules() -> None:
    code = "import sys, bot.engine; print(sorted(m for m in sys.modules if m.startswith('bot.engine.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_engine_error_shares_one_root() -> None:
    errors = [
        bot.engine.ManifestError, bot.engine.DiffParseError, bot.engine.PatchApplyError,
        bot.engine.ReferencePatchError, bot.engine.PatternSetGaveUp, bot.engine.TooLargeToAssess,
    ]  # fmt: skip
    assert all(issubclass(e, ReceiptError) for e in errors)
    assert len({e.title for e in errors}) == len(errors)


def test_all_lists_exactly_the_exports() -> None:
    assert sorted(bot.engine.__all__) == sorted(bot.engine._WHERE)

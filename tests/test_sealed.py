"""Once the code under review has started, receipt imports nothing: what it needs afterwards is
imported first, and an import after is refused rather than read from files the run could rewrite."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.local import sealed

_PROJECT = Path(__file__).resolve().parents[1]
# What runs after the tests in `receipt check`: the engine, the sandbox's reading of what the run
# left, the gather's types, and the CLI's writing of the receipt.
_AFTER_THE_RUN = ("bot/engine", "bot/local", "bot/gather")
_CLI_AFTER_THE_RUN = ("_cmd_check", "write", "_write", "_run", "_frame", "main")


def _late_imports(tree: ast.AST, functions: tuple[str, ...] | None = None) -> set[str]:
    """Modules imported inside a function (of `functions`, if given)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef) or (functions is not None and node.name not in functions):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Import):
                found.update(alias.name for alias in inner.names)
            elif isinstance(inner, ast.ImportFrom) and inner.module and not inner.level:
                found.add(inner.module)
    return found


def test_every_module_imported_inside_a_function_after_the_run_is_preloaded() -> None:
    wanted: set[str] = set()
    for folder in _AFTER_THE_RUN:
        for path in sorted((_PROJECT / folder).rglob("*.py")):
            if path.name in ("whatif.py", "inspect.py", "_supervisor.py") and path.parent.name == "local":
                continue  # `receipt whatif` and `receipt inspect` run no tests; the supervisor is a script
            wanted |= _late_imports(ast.parse(path.read_text(encoding="utf-8")))
    cli = ast.parse((_PROJECT / "bot" / "cli.py").read_text(encoding="utf-8"))
    wanted |= _late_imports(cli, _CLI_AFTER_THE_RUN)
    assert "fractions" in wanted and "bot.engine.content.imports" in wanted, "the scan finds them"
    # A fresh interpreter, as receipt is when the first run starts: what is loaded once preloaded.
    script = (
        "import json, sys\nimport bot.cli, bot.local.check, bot.local.testrun\n"
        "from bot.local import sealed\nsealed.preload()\nprint(json.dumps(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(_PROJECT)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, check=True, env=env, cwd=_PROJECT
    )
    loaded = set(json.loads(done.stdout))
    assert sorted(wanted - loaded) == [], "add them to sealed.PRELOADED"
    assert {"encodings.cp1140", "encodings.unicode_escape"} <= loaded, "every codec"


def test_an_import_after_a_run_started_is_refused_until_the_block_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "written_by_the_run.py").write_text("LOADED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    sealed.run_starts()  # not armed: nothing happens
    assert sealed._REFUSE not in sys.meta_path
    with sealed.imports_sealed():
        import bot.engine.render.markdown  # before the run: allowed

        sealed.run_starts()
        with pytest.raises(sealed.SealedImportError, match="written_by_the_run was not imported before"):
            import written_by_the_run
        assert bot.engine.render.markdown.render_markdown, "what was imported stays usable"
    assert sealed._REFUSE not in sys.meta_path
    import written_by_the_run

    assert written_by_the_run.LOADED

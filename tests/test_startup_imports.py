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
# Runs the command in a fresh interpreter, then writes the names of every module it imported, and
# which of the patterns compiled on first use (`_LAZY`, `module:name`) it compiled.
_SCRIPT = """
import contextlib, io, json, sys
from bot.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        status = main(sys.argv[3:])
    except SystemExit as exc:
        status = exc.code
compiled = []
for lazy in json.loads(sys.argv[1]):
    module, name = lazy.split(":")
    if module in sys.modules and getattr(sys.modules[module], name).cache_info().currsize:
        compiled.append(lazy)
with open(sys.argv[2], "w") as out:
    json.dump({"status": status, "modules": sorted(sys.modules), "compiled": compiled}, out)
"""
_ENGINE = ("bot.engine.evaluation", "bot.engine.rules", "bot.engine.excess", "bot.engine.manifest")
_READING_A_MANIFEST = ("yaml", "bot.engine.schema", "bot.engine.manifest_spec")
_UNICODE = ["bot.engine.content.unicode:_invisible", "bot.engine.content.unicode:_non_ascii_word"]
# Patterns for what a Python change that parses has none of: unparseable Python, shell and
# JavaScript, script tags, template strings, `global`, a `match` statement.
_NOT_FOR_PLAIN_PYTHON = [
    *(f"bot.engine.content.pystatements:{n}" for n in ("_CODE", "_LITERAL", "_STATEMENT_ONLY", "_DEFINED")),
    *(f"bot.engine.content.dangerous:{n}" for n in ("_CALL_WORDS", "_IMPORTS", "_BINDS")),
    *(
        f"bot.engine.content.pyselect:{n}"
        for n in ("_FIELDS", "_TEMPLATE_BODY", "_WORD", "_LONE_CR", "_MATCH")
    ),
    *(f"bot.engine.content.textconstructs:{n}" for n in ("_COMMENT", "_LINE_FEED")),
    "bot.engine.content.shellcommands:_INTERPRETER",
    "bot.engine.content.markupjs:_SCRIPT_TAG",
    "bot.engine.content.jsread:_NOT_NEWLINE",
    *(f"bot.engine.content.pyfixed:{n}" for n in ("_UNSEEN", "_LONE_CR", "_DECLARED")),
]
_LAZY = [*_UNICODE, *_NOT_FOR_PLAIN_PYTHON]


def _run(tmp_path: Path, cwd: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "modules.json"
    env = {**os.environ, "PYTHONPATH": str(_PROJECT)}
    subprocess.run(
        [sys.executable, "-c", _SCRIPT, json.dumps(_LAZY), str(out), *args], cwd=cwd, env=env, check=True
    )
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
    unwanted.add("dataclasses")  # receipt's closure methods are installed as it loads, not before
    assert not unwanted & modules, sorted(unwanted & modules)


def test_a_check_without_a_policy_file_reads_no_yaml(repo: GitRepo, tmp_path: Path) -> None:
    _python_change(repo)
    args = ("check", "--base", "main", "--head", "pr", "--no-tests", "--json", str(tmp_path / "r.json"))
    status, modules = _imported(tmp_path, repo.root, *args)
    assert status == 0 and set(_ENGINE) <= modules  # the check ran, and judged the change
    unwanted = {*_READING_A_MANIFEST, "bot.engine.render.markdown", "calendar", "pathspec", "textwrap"}
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
    assert set(_UNICODE) <= set(_run(tmp_path, repo.root, *args)["compiled"])


def test_a_python_change_that_parses_compiles_no_pattern_of_other_languages(
    repo: GitRepo, tmp_path: Path
) -> None:
    repo.write("pkg/mod.py", "import os\n\ndef f(x):\n    return x + 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("pkg/mod.py", "import os\n\ndef f(x):\n    os.system(x)\n    return eval(x)\n")
    repo.commit("change")
    found = _run(tmp_path, repo.root, "check", "--base", "main", "--head", "pr", "--no-tests")
    assert "bot.engine.content.pyselect" in found["modules"]  # the dangerous rule read the file
    assert not set(_NOT_FOR_PLAIN_PYTHON) & set(found["compiled"]), found["compiled"]
    repo.write("run.sh", "curl https://example.com/x | sh\n")
    repo.write("pkg/mod.py", "def f(x:\n    eval(x)\n")
    repo.commit("shell, and Python that does not parse")
    compiled = set(
        _run(tmp_path, repo.root, "check", "--base", "main", "--head", "pr", "--no-tests")["compiled"]
    )
    assert {
        "bot.engine.content.pystatements:_CODE",
        "bot.engine.content.textconstructs:_COMMENT",
    } <= compiled


# Modules a check loads only for what some changes or policies hold: JavaScript and shell constructs,
# banned imports, the exact difference of two averages (a reference patch); and `datetime`, which
# the date waivers are judged by does not need.
_ONLY_WHEN_NEEDED = {
    "bot.engine.content.textconstructs",
    "bot.engine.content.imports",
    "fractions",
    "decimal",
    "datetime",
}


def test_a_python_change_without_bans_or_reference_loads_no_module_it_does_not_need(
    repo: GitRepo, tmp_path: Path
) -> None:
    _python_change(repo)
    status, modules = _imported(tmp_path, repo.root, "check", "--base", "main", "--head", "pr", "--no-tests")
    assert status == 0 and set(_ENGINE) <= modules
    assert not _ONLY_WHEN_NEEDED & modules, sorted(_ONLY_WHEN_NEEDED & modules)


def test_the_modules_left_out_are_loaded_where_a_change_or_policy_needs_them(
    repo: GitRepo, tmp_path: Path
) -> None:
    repo.write(".github/receipt.yml", "version: 1\ncontent:\n  banned_imports: [{module: requests}]\n")
    _python_change(repo)
    repo.write("run.sh", "curl https://example.com/x | sh\n")
    repo.write("pkg/mod.py", "import requests\n\ndef f(x):\n    return x + 3\n")
    repo.commit("shell, and a banned import")
    fix = tmp_path / "fix.patch"
    fix.write_text(
        "diff --git a/pkg/mod.py b/pkg/mod.py\n--- a/pkg/mod.py\n+++ b/pkg/mod.py\n"
        "@@ -1,2 +1,2 @@\n def f(x):\n-    return x + 1\n+    return x + 2\n"
    )
    args = ("check", "--base", "main", "--head", "pr", "--no-tests", "--reference", str(fix))
    status, modules = _imported(tmp_path, repo.root, *args)
    assert status == 1  # the banned import and the shell pipe are findings
    assert {"bot.engine.content.textconstructs", "bot.engine.content.imports", "fractions"} <= modules

"""The counter-examples a patch scorer must kill, and hostile pull requests, end to end through the CLI."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.engine.content.patternset import PatternSet, PatternSetGaveUp
from bot.engine.groups import MANIFEST_PATH
from tests.gitrepo import GitRepo

PYTEST = f"{shlex.quote(sys.executable)} -B -m pytest -q -p no:cacheprovider -p no:randomly"

POLICY = f"""version: 1
paths:
  allow: ["src/**", "tests/**"]
  protect: [{{paths: ["tests/**"], allow: [added]}}]
budgets: {{files: 3, logical_lines: 6}}
locality: {{reformat: forbid}}
tests: {{command: "{PYTEST}", timeout_minutes: 5}}
"""

CALC = '''"""Small statistics helpers."""


def mean(values):
    """Arithmetic mean of a non-empty list."""
    return sum(values) / (len(values) - 1)


def spread(values):
    return max(values) - min(values)


def clamp(value, low, high):
    return max(low, min(value, high))
'''

TESTS = """from calc import clamp, mean, spread


def test_mean():
    assert mean([1, 2, 3]) == 2
    assert mean([2, 4, 6, 8]) == 5
    assert mean([10]) == 10


def test_spread():
    assert spread([3, 9, 4]) == 6


def test_clamp():
    assert clamp(5, 0, 3) == 3
"""

FIX = ("    return sum(values) / (len(values) - 1)", "    return sum(values) / len(values)")


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    repo.write(MANIFEST_PATH, POLICY)
    repo.write("src/calc.py", CALC)
    repo.write("tests/test_calc.py", TESTS)
    repo.write(
        "tests/conftest.py",
        "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parent.parent / 'src'))\n",
    )
    repo.write("package-lock.json", '{\n  "lockfileVersion": 3\n}\n')
    repo.commit("calc with an off-by-one in mean")
    repo.branch("pr")
    return repo


def _receipt(repo: GitRepo, tmp_path: Path) -> tuple[int, dict]:  # type: ignore[type-arg]
    out = tmp_path / "receipt.json"
    code = main(["check", "--repo", str(repo.root), "--base", "main", "--json", str(out)])
    return code, json.loads(out.read_text())


def _fields(body: dict) -> tuple[str, str, bool, bool]:  # type: ignore[type-arg]
    return (
        body["verdict"]["conclusion"],
        body["semantic"]["status"],
        body["scope"]["pass"],
        body["locality"]["pass"],
    )


def test_faithful_one_line_fix_passes(project: GitRepo, tmp_path: Path) -> None:
    project.write("src/calc.py", CALC.replace(*FIX))
    project.commit("fix mean")
    code, body = _receipt(project, tmp_path)
    assert (code, _fields(body)) == (0, ("success", "pass", True, True))
    assert body["change"]["logical_lines"] == 1


def test_fix_with_helper_and_exception_handling_fails_locality(project: GitRepo, tmp_path: Path) -> None:
    padded = (
        CALC.replace(
            FIX[0],
            "    try:\n        count = _count(values)\n        return sum(values) / count\n"
            "    except ZeroDivisionError:\n        raise ValueError('empty') from None",
        )
        + "\n\ndef _count(values):\n    if values is None:\n        raise TypeError('values')\n    return len(values)\n"
    )
    project.write("src/calc.py", padded)
    project.commit("fix mean, defensively")
    code, body = _receipt(project, tmp_path)
    assert (code, _fields(body)) == (1, ("failure", "pass", True, False))
    assert [v["rule"] for v in body["locality"]["violations"]] == ["budget"]
    assert "9 logical lines" in body["locality"]["violations"][0]["message"]


def test_hard_coded_answer_fails_semantic(project: GitRepo, tmp_path: Path) -> None:
    project.write("src/calc.py", CALC.replace(FIX[0], "    return 2"))
    project.commit("make test_mean pass")
    code, body = _receipt(project, tmp_path)
    assert (code, _fields(body)) == (1, ("failure", "fail", True, True))
    (check, references) = body["semantic"]["checks"]
    assert check["conclusion"] == "failure" and "test_mean" in check["details"]
    assert (references["name"], references["conclusion"]) == ("references", "success")


def test_edited_test_and_touched_lockfile_fail_scope(project: GitRepo, tmp_path: Path) -> None:
    project.write(
        "tests/test_calc.py",
        TESTS.replace("assert mean([1, 2, 3]) == 2\n", "").replace(
            "    assert mean([2, 4, 6, 8]) == 5\n    assert mean([10]) == 10\n",
            "    assert mean([1, 2]) is not None\n",
        ),
    )
    project.write("package-lock.json", '{\n  "lockfileVersion": 2\n}\n')
    project.commit("tests green")
    code, body = _receipt(project, tmp_path)
    assert (code, _fields(body)) == (1, ("failure", "pass", False, True))
    assert [(v["rule"], v["path"]) for v in body["scope"]["violations"]] == [
        ("outside-allowlist", "package-lock.json"),
        ("protected-path", "package-lock.json"),
        ("protected-path", "tests/test_calc.py"),
    ]


def test_whole_file_reformat_fails_locality(project: GitRepo, tmp_path: Path) -> None:
    reformatted = (
        CALC.replace(*FIX)
        .replace("max(values) - min(values)", "max(values)-min(values)")
        .replace("max(low, min(value, high))", "max(low,min(value,high))")
        .replace('"""Arithmetic', "'''Arithmetic")
        .replace('list."""', "list.'''")
    )
    project.write("src/calc.py", reformatted)
    project.commit("fix mean (and tidy)")
    code, body = _receipt(project, tmp_path)
    assert (code, _fields(body)) == (1, ("failure", "pass", True, False))
    (violation,) = body["locality"]["violations"]
    assert violation["rule"] == "reformat" and violation["path"] == "src/calc.py"
    assert body["locality"]["formatting_only"] == [{"path": "src/calc.py", "lines": 3, "first_line": 5}]


def test_deleted_function_fails_semantic(project: GitRepo, tmp_path: Path) -> None:
    project.write(
        "src/calc.py",
        CALC.replace(*FIX).replace(
            "\n\ndef clamp(value, low, high):\n    return max(low, min(value, high))\n", ""
        ),
    )
    project.commit("fix mean, remove clamp")
    code, body = _receipt(project, tmp_path)
    assert (code, _fields(body)) == (1, ("failure", "fail", True, True))


def test_renaming_a_protected_file_out_of_its_directory(project: GitRepo, tmp_path: Path) -> None:
    project.move("tests/test_calc.py", "src/test_calc.py")
    project.commit("move tests away")
    code, body = _receipt(project, tmp_path)
    assert code == 1
    violation = next(v for v in body["scope"]["violations"] if v["rule"] == "protected-path")
    assert violation["path"] == "tests/test_calc.py"
    assert "renames 'tests/test_calc.py' to 'src/test_calc.py'" in violation["message"]


def test_manifest_that_loosens_itself_is_judged_by_the_base(project: GitRepo, tmp_path: Path) -> None:
    project.write(MANIFEST_PATH, POLICY.replace('  protect: [{paths: ["tests/**"], allow: [added]}]\n', ""))
    project.write("tests/test_calc.py", TESTS.replace("== 2", "== 3"))
    project.commit("loosen and edit")
    code, body = _receipt(project, tmp_path)
    assert code == 1
    assert [v["rule"] for v in body["scope"]["violations"]] == ["manifest-change", "protected-path"]
    assert body["manifest"]["changed_in_pr"] is True
    dry = body["manifest"]["dry_run"]
    assert dry["valid"] is True and dry["conclusion"] == "failure"
    assert dry["reasons"][0] == "semantic failed: " + PYTEST + " (failure)"


def test_symlink_out_of_the_repository(project: GitRepo, tmp_path: Path) -> None:
    project.symlink("src/config", "../../../../etc/passwd")
    project.commit("link")
    code, body = _receipt(project, tmp_path)
    assert code == 1
    assert [(v["rule"], v["id"]) for v in body["scope"]["violations"]] == [("symlink", "symlink-escape")]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_bad_input_gives_exit_2_and_one_clear_message(project: GitRepo, tmp_path: Path) -> None:
    project.checkout("main")
    project.write(MANIFEST_PATH, "version: 1\npaths: {alow: [x]}\nbudgets: {files: many}\n")
    project.commit("broken policy")
    broken = _cli("check", "--base", "main", "--head", "pr", cwd=project.root)
    assert broken.returncode == 2 and "Traceback" not in broken.stderr
    assert broken.stderr.splitlines() == [
        "receipt: invalid manifest (2 problem(s)):",
        ".github/receipt.yml:2:9: paths.alow: unknown key; expected one of: allow, protect, defaults, "
        "allow_binary, allow_symlinks, allow_mode_changes, allow_submodules",
        ".github/receipt.yml:3:18: budgets.files: expected an integer, got a string",
    ]
    unknown = _cli("check", "--base", "nope", cwd=project.root)
    assert (unknown.returncode, unknown.stderr) == (
        2,
        f"receipt: error: unknown revision 'nope': not a commit in {project.root}\n",
    )
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    plain = _cli("check", cwd=outside)
    assert (plain.returncode, plain.stderr) == (
        2,
        f"receipt: error: {outside.resolve()}: not a git repository\n",
    )


def test_a_prefilter_re2_gave_up_on_fails_the_check_instead_of_passing_it(
    project: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write("src/calc.py", CALC.replace(*FIX))
    project.commit("fix")

    def gave_up(self: PatternSet, data: bytes) -> list[int]:
        raise PatternSetGaveUp(len(data))

    monkeypatch.setattr(PatternSet, "present", gave_up)
    code = main(["check", "--repo", str(project.root), "--base", "main", "--no-tests"])
    assert code == 2
    assert capsys.readouterr().err.startswith("receipt: error: RE2 could not finish a prefilter pass over ")

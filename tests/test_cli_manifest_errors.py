"""A manifest that cannot be compiled or read is a positioned manifest error in every command that
reads one: exit 2 from `check` and `explain`, 1 from `validate`, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.engine.groups import MANIFEST_PATH
from tests.gitrepo import GitRepo

BAD = {
    "paths.allow": (
        "paths:\n  allow: ['[z-a]']\n",
        "3:11: paths.allow[0]: invalid character class range: z-a",
    ),
    "paths.protect": (
        "paths:\n  protect: ['[z-a]']\n",
        "3:13: paths.protect[0]: invalid character class range: z-a",
    ),
    "tests.ignore_side_effects": (
        "tests:\n  ignore_side_effects: ['b/[z-a]']\n",
        "3:25: tests.ignore_side_effects[0]: invalid character class range: z-a",
    ),
    "applies_to.branches": (
        "applies_to:\n  branches: ['[z-a]']\n",
        "3:14: applies_to.branches[0]: invalid character class range: z-a",
    ),
    "budgets.per_path": (
        "budgets:\n  per_path: [{paths: ['[z-a]'], files: 1}]\n",
        "3:23: budgets.per_path[0].paths[0]: invalid character class range: z-a",
    ),
    "a tagged scalar": (
        "paths:\n  allow_binary: !!bool maybe\n",
        "3:17: paths.allow_binary: unreadable value: 'maybe' is not a boolean",
    ),
    "a huge number": (
        "excess:\n  max_distance: " + "9" * 400 + "\n",
        "3:17: excess.max_distance: must be a finite number, got '9999999999999999999999999999999999999...'",
    ),
    "a number too long to write in decimal": (
        "budgets:\n  files: 0x" + "F" * 4000 + "\n",
        "3:10: budgets.files: '0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF...' is not a plain decimal integer: YAML 1.1 "
        "reads it as hexadecimal; write it in decimal digits",
    ),
    "deep nesting": (
        "paths:\n  allow: " + "[" * 3000 + "]" * 3000 + "\n",
        "3:40: nested deeper than 32 levels (the limit)",
    ),
}


def _assert_positioned(err: str, file: str, where: str) -> None:
    assert "Traceback" not in err
    assert f"{file}:{where}" in err, err


@pytest.mark.parametrize("case", sorted(BAD))
def test_validate_explain_and_check_with_a_file(
    case: str, pr: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, where = BAD[case]
    bad = tmp_path / "bad.yml"
    bad.write_text("version: 1\n" + text)
    assert main(["validate", str(bad)]) == 1
    _assert_positioned(capsys.readouterr().err, str(bad), where)
    assert main(["explain", "--manifest", str(bad), "src/a.py"]) == 2
    _assert_positioned(capsys.readouterr().err, str(bad), where)
    assert (
        main(["check", "--repo", str(pr.root), "--base", "main", "--manifest", str(bad), "--no-tests"]) == 2
    )
    _assert_positioned(capsys.readouterr().err, str(bad), where)


@pytest.mark.parametrize("case", sorted(BAD))
def test_check_with_the_base_manifest(case: str, repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    text, where = BAD[case]
    repo.write(MANIFEST_PATH, "version: 1\n" + text)
    repo.write("src/a.py", "x = 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("src/a.py", "x = 2\n")
    repo.commit("pr")
    assert main(["check", "--repo", str(repo.root), "--base", "main", "--no-tests"]) == 2
    _assert_positioned(capsys.readouterr().err, MANIFEST_PATH, where)


def test_check_of_a_pull_request_proposing_a_bad_manifest(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The dry run of the proposed manifest lists its errors; the receipt is the base manifest's."""
    repo.write(MANIFEST_PATH, "version: 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write(MANIFEST_PATH, "version: 1\npaths:\n  allow: ['[z-a]']\n")
    repo.commit("pr")
    out = tmp_path / "receipt.json"
    assert main(["check", "--repo", str(repo.root), "--base", "main", "--no-tests", "--json", str(out)]) == 1
    assert "Traceback" not in capsys.readouterr().err
    dry = json.loads(out.read_text())["manifest"]["dry_run"]
    assert dry == {
        "valid": False,
        "conclusion": None,
        "reasons": [],
        "errors": [f"{MANIFEST_PATH}:3:11: paths.allow[0]: invalid character class range: z-a"],
        "too_expensive": False,
    }

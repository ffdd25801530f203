"""action.yml and the documented workflows pass actionlint, and every input and output is documented."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from action.report import problem_outputs
from tests.action.scenario import ROOT

WORKFLOWS = sorted((ROOT / "docs" / "workflows").glob("*.yml"))
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
README = (ROOT / "README.md").read_text(encoding="utf-8")
_REMOTE_USE = re.compile(r"uses: [\w.-]+/receipt@[0-9a-f]{40}")


def _actionlint(repo: Path) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("actionlint", path=str(Path(sys.executable).parent))
    assert binary is not None, "actionlint is a dev dependency"
    return subprocess.run(
        [binary, "-shellcheck=", "-pyflakes=", "-no-color"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )


def _lint_repo(tmp_path: Path, extra: dict[str, str]) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    for path in WORKFLOWS:
        text = path.read_text(encoding="utf-8")
        (workflows / path.name).write_text(text, encoding="utf-8")
        (workflows / f"local-{path.name}").write_text(_REMOTE_USE.sub("uses: ./", text), encoding="utf-8")
    for name, text in extra.items():
        (workflows / name).write_text(text, encoding="utf-8")
    return tmp_path


def _every_input_workflow(extra_input: str = "") -> str:
    inputs = "".join(f"          {name}: x\n" for name in ACTION["inputs"]) + extra_input
    outputs = " ".join(f"${{{{ steps.r.outputs.{name} }}}}" for name in ACTION["outputs"])
    return (
        "on: pull_request\njobs:\n  r:\n    runs-on: ubuntu-24.04\n    steps:\n"
        "      - id: r\n        uses: ./\n        with:\n" + inputs + f'      - run: echo "{outputs}"\n'
    )


def test_action_and_documented_workflows_pass_actionlint(tmp_path: Path) -> None:
    assert WORKFLOWS, "the README's workflows live in docs/workflows"
    done = _actionlint(_lint_repo(tmp_path, {"every-input.yml": _every_input_workflow()}))
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_reads_the_action_metadata(tmp_path: Path) -> None:
    done = _actionlint(
        _lint_repo(tmp_path, {"bad.yml": _every_input_workflow("          no-such-input: x\n")})
    )
    assert done.returncode == 1
    assert 'input "no-such-input" is not defined in action "receipt"' in done.stdout


@pytest.mark.parametrize("kind", ["inputs", "outputs"])
def test_every_input_and_output_is_described_and_in_the_readme(kind: str) -> None:
    section = README[README.index("## GitHub Action") :]
    for name, spec in ACTION[kind].items():
        assert len(str(spec.get("description", ""))) > 20, f"{kind}.{name} has no description"
        assert f"`{name}`" in section, f"README's GitHub Action section does not document {name}"


def test_outputs_match_what_the_entrypoint_writes() -> None:
    assert set(ACTION["outputs"]) == set(problem_outputs())
    for name, spec in ACTION["outputs"].items():
        assert spec["value"] == f"${{{{ steps.receipt.outputs.{name} }}}}"


def test_inputs_reach_the_entrypoint_as_input_variables() -> None:
    [_, run] = ACTION["runs"]["steps"]
    assert run["env"] == {
        "INPUT_" + name.upper().replace("-", "_"): f"${{{{ inputs.{name} }}}}" for name in ACTION["inputs"]
    }


def test_readme_shows_the_linted_workflows_verbatim() -> None:
    for path in WORKFLOWS:
        assert path.read_text(encoding="utf-8").strip() in README, f"{path.name} is not in the README"

"""The Action's `check` (issue 16): a pull request that edits the manifest gets the what-if table
from the checkout, the base commit's first-parent history judged as `receipt whatif` judges it,
in its check run and in the job summary; a shallow checkout is deepened for it."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from bot.cli import main
from tests.action.scenario import BASE_FILES, Scenario

MANIFEST = ".github/receipt.yml"
TIGHTER = BASE_FILES[MANIFEST] + "budgets: {files: 1}\n"


def _rows(markdown: str) -> list[tuple[str, str, str, str]]:
    found = re.findall(r"^\| `([0-9a-f]{12})`[^|]* \| (\w+) \| ([^|]+) \| ([^|]*) \|$", markdown, re.M)
    return [(c, b, n.strip(), w.strip()) for c, b, n, w in found]


def _history(scenario: Scenario, count: int) -> list[str]:
    scenario.base()
    merges = [
        scenario.merged(n, {f"src/m{n}.py": "M = 1\n", f"src/n{n}.py": "N = 1\n"}) for n in range(1, count)
    ]
    merges.append(scenario.merged(count, {"src/one.py": "ONE = 1\n"}))
    scenario.base_sha = scenario.origin.head()
    return merges


def test_check_adds_the_table_receipt_whatif_prints(scenario: Scenario, tmp_path: Path) -> None:
    merges = _history(scenario, 2)
    head = scenario.pr({MANIFEST: TIGHTER})
    result = scenario.run(scenario.checkout(), event=scenario.event())
    [run] = scenario.github.state.runs_for(head, "receipt")
    summary = run["output"]["summary"]
    section = summary[summary.index("### What-if") :]
    assert "2 change(s) compared: the last commits of the base" in section, section
    new = tmp_path / "new.yml"
    new.write_text(TIGHTER)
    cli_md = tmp_path / "cli.md"
    main(["whatif", "--manifest", str(new), "--last", "10", "--repo", str(scenario.origin.root),
          "--branch", scenario.base_sha, "--markdown", str(cli_md)])  # fmt: skip
    cli = _rows(cli_md.read_text())
    # the CLI also judges the base commit of the history (it has a parent); the checkout's walk
    # is the same up to where the CLI's history is longer
    assert _rows(section) == cli[: len(_rows(section))] and len(_rows(section)) == 2, (section, cli)
    assert [r[0] for r in _rows(section)] == [m[:12] for m in reversed(merges)]
    assert "failure **changed**" in section.split(merges[0][:12])[1].split("\n")[0], section
    assert "### What-if" in result.summary  # the job summary has it too
    assert not scenario.github.state.calls("GET", r"/repos/acme/widgets/pulls")  # read from git


def test_a_shallow_checkout_is_deepened_for_the_table(scenario: Scenario) -> None:
    _history(scenario, 4)
    head = scenario.pr({MANIFEST: TIGHTER})
    # depth 3 holds the merge-base (the base) without deepening, but only one commit of its history
    scenario.run(scenario.checkout(depth=3), event=scenario.event(), inputs={"whatif-last": "3"})
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert "3 change(s) compared" in run["output"]["summary"], run["output"]["summary"]


def test_check_with_whatif_off_or_no_manifest_edit_has_no_table(scenario: Scenario) -> None:
    _history(scenario, 1)
    head = scenario.pr({MANIFEST: TIGHTER})
    result = scenario.run(scenario.checkout(), event=scenario.event(), inputs={"whatif-last": "0"})
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert "What-if" not in run["output"]["summary"] and "What-if" not in result.summary


def test_a_history_that_cannot_be_fetched_leaves_the_receipt_with_the_reason(scenario: Scenario) -> None:
    _history(scenario, 4)
    head = scenario.pr({MANIFEST: TIGHTER})
    workspace = scenario.checkout(depth=3)  # holds the merge-base: only the what-if must fetch
    subprocess.run(
        ["git", "-C", str(workspace), "remote", "set-url", "origin", "file:///nonexistent"], check=True
    )
    result = scenario.run(workspace, event=scenario.event(), inputs={"whatif-last": "3"})
    [run] = scenario.github.state.runs_for(head, "receipt")
    summary = run["output"]["summary"]
    assert "what-if not computed: git fetch from origin failed" in summary, summary
    assert run["conclusion"] == result.receipt()["verdict"]["conclusion"]  # the receipt, as it was


PLANT_GIT_CONFIG = """\
import os, sys
config, mark = sys.argv[1], sys.argv[2]
hook = mark + ".sh"
open(hook, "w").write(f"#!/bin/sh\\necho ran > {mark}\\nexec \\"$@\\"\\n")
os.chmod(hook, 0o755)
with open(config, "a") as out:  # the runner's global git config: upload-pack runs this for a fetch
    out.write(f"[uploadpack]\\n\\tpackObjectsHook = {hook}\\n")
"""


def test_the_table_is_read_before_the_tests_run(scenario: Scenario, tmp_path: Path) -> None:
    """The what-if deepens the checkout with git fetch: it runs before the pull request's code,
    which could otherwise have told git what to run for it."""
    _history(scenario, 4)
    mark = tmp_path / "hook-ran"
    head = scenario.pr({MANIFEST: TIGHTER, "tools/plant.py": PLANT_GIT_CONFIG})
    home = scenario.tmp / f"runner-{len(list(scenario.tmp.glob('runner-*')))}"  # the next run's HOME
    command = f"{shlex.quote(sys.executable)} tools/plant.py {home / '.gitconfig'} {mark}"
    scenario.run(
        scenario.checkout(depth=3),
        event=scenario.event(),
        inputs={"whatif-last": "3", "test-command": command},
    )
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert "3 change(s) compared" in run["output"]["summary"], run["output"]["summary"]
    assert "packObjectsHook" in (home / ".gitconfig").read_text(), "the tests did write it"
    assert not mark.exists(), "git ran for the table after the tests"

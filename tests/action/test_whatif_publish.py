"""The Action's `publish` (issue 16): a pull request that edits the manifest gets the what-if table
over the base branch's merged pull requests, in its check run and in the job summary, while the
verdict stays the base manifest's."""

from __future__ import annotations

from tests.action.scenario import BASE_FILES, REPO, Scenario

MANIFEST = ".github/receipt.yml"
TIGHTER = BASE_FILES[MANIFEST] + "budgets: {files: 1}\n"


def test_publish_adds_the_what_if_table_of_a_manifest_change(scenario: Scenario) -> None:
    scenario.base()
    one = scenario.merged(1, {"src/one.py": "ONE = 1\n"})
    two = scenario.merged(2, {"src/a.py": "A = 1\n", "src/b.py": "B = 1\n"})
    scenario.base_sha = scenario.origin.head()
    head = scenario.pr({MANIFEST: TIGHTER})
    computed = scenario.run(scenario.checkout(), event=scenario.event(), inputs={"mode": "compute"})
    publisher = scenario.checkout(ref="refs/heads/main", name="publisher")
    (publisher / "receipt.json").write_bytes((computed.workspace / "receipt.json").read_bytes())
    published = scenario.run(
        publisher, event=scenario.workflow_run_event(), event_name="workflow_run", inputs={"mode": "publish"}
    )
    assert published.status == 0, published.stdout
    [run] = scenario.github.state.runs_for(head, "receipt")
    summary = run["output"]["summary"]
    section = summary[summary.index("### What-if") :]
    assert "2 change(s) compared" in section and "No tests are run" in section, section
    assert f"| `{two[:12]}` \\#2 change 2 | success | failure **changed** |" in section, section
    assert f"| `{one[:12]}` \\#1 change 1 | success | success | no difference |" in section, section
    assert run["conclusion"] == published.receipt("receipt.published.json")["verdict"]["conclusion"]
    assert "### What-if" in published.summary  # the job summary has it too
    listed = scenario.github.state.calls("GET", rf"/repos/{REPO}/pulls")
    assert [c.query.get("state") for c in listed] == ["closed"] and listed[0].query.get("base") == "main"


def test_publish_with_whatif_off_lists_nothing(scenario: Scenario) -> None:
    scenario.base()
    scenario.merged(1, {"src/one.py": "ONE = 1\n"})
    scenario.base_sha = scenario.origin.head()
    head = scenario.pr({MANIFEST: TIGHTER})
    computed = scenario.run(scenario.checkout(), event=scenario.event(), inputs={"mode": "compute"})
    publisher = scenario.checkout(ref="refs/heads/main", name="publisher")
    (publisher / "receipt.json").write_bytes((computed.workspace / "receipt.json").read_bytes())
    inputs = {"mode": "publish", "whatif-last": "0"}
    published = scenario.run(
        publisher, event=scenario.workflow_run_event(), event_name="workflow_run", inputs=inputs
    )
    assert published.status == 0, published.stdout
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert "What-if" not in run["output"]["summary"]
    assert not scenario.github.state.calls("GET", rf"/repos/{REPO}/pulls")

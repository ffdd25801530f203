"""The `reference` input: a gold patch read from the base commit, in every mode."""

from __future__ import annotations

from tests.action.scenario import BASE_FILES, READ_TOKEN, Scenario

PATCH = (
    "diff --git a/src/calc.py b/src/calc.py\n--- a/src/calc.py\n+++ b/src/calc.py\n"
    "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"
)
FIXED = {"src/calc.py": "def add(a, b):\n    return a + b\n"}
WITH_REFERENCE = {**BASE_FILES, "fixes/add.patch": PATCH}


def test_check_reads_the_reference_from_the_base_not_the_workspace(scenario: Scenario) -> None:
    scenario.base(WITH_REFERENCE)
    scenario.pr(FIXED)
    workspace = scenario.checkout()
    (workspace / "fixes" / "add.patch").write_text("not a patch at all\n")
    result = scenario.run(workspace, event=scenario.event(), inputs={"reference": "fixes/add.patch"})
    assert result.status == 0, result.stdout
    excess = result.receipt()["excess"]
    assert excess["reference"]["source"] == "fixes/add.patch"
    assert (excess["excess"], excess["reference_distance"]) == (0.0, excess["distance"])
    assert result.outputs["excess"] == "0.0"


def test_publish_recomputes_excess_against_the_base_reference(scenario: Scenario) -> None:
    scenario.fork = True
    scenario.base(WITH_REFERENCE)
    head = scenario.pr(
        {"src/calc.py": "def add(a, b):\n    if a is None:\n        return b\n    return a + b\n"}
    )
    computed = scenario.run(
        scenario.checkout(), event=scenario.event(), token=READ_TOKEN,
        inputs={"mode": "compute", "reference": "fixes/add.patch"},
    )  # fmt: skip
    assert computed.receipt()["excess"]["excess"] > 0
    publisher = scenario.checkout(ref="refs/heads/main", name="publisher")
    (publisher / "receipt.json").write_bytes((computed.workspace / "receipt.json").read_bytes())
    published = scenario.run(
        publisher, event=scenario.workflow_run_event(), event_name="workflow_run",
        inputs={"mode": "publish", "reference": "fixes/add.patch"},
    )  # fmt: skip
    assert published.status == 0, published.stdout
    recomputed = published.receipt("receipt.published.json")["excess"]
    assert recomputed == computed.receipt()["excess"]
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert "reference fix" in run["output"]["summary"]


def test_a_reference_missing_from_the_base_is_a_configuration_error(scenario: Scenario) -> None:
    scenario.base()
    head = scenario.pr(FIXED)
    result = scenario.run(
        scenario.checkout(), event=scenario.event(), inputs={"reference": "fixes/none.patch"}
    )
    assert result.status == 2
    assert "reference fixes/none.patch: no such file in the base commit" in result.stdout
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert run["conclusion"] == "failure"
    computed = scenario.run(
        scenario.checkout(name="compute"), event=scenario.event(), inputs={"mode": "compute"}
    )
    publisher = scenario.checkout(ref="refs/heads/main", name="publisher")
    (publisher / "receipt.json").write_bytes((computed.workspace / "receipt.json").read_bytes())
    published = scenario.run(
        publisher, event=scenario.workflow_run_event(), event_name="workflow_run",
        inputs={"mode": "publish", "reference": "fixes/none.patch"},
    )  # fmt: skip
    assert published.status == 2
    runs = scenario.github.state.runs_for(head, "receipt")
    assert len(runs) == 2 and runs[-1]["conclusion"] == "failure"
    assert "no such file in the base commit" in runs[-1]["output"]["summary"]


def test_under_observe_mode_a_problem_after_the_policy_is_read_is_neutral(scenario: Scenario) -> None:
    """The reference is read after the policy: under `mode: observe` its problem is still said (a
    warning, the run's summary), but neither the run nor the step blocks."""
    scenario.base({**BASE_FILES, ".github/receipt.yml": "version: 1\nmode: observe\n"})
    head = scenario.pr(FIXED)
    result = scenario.run(
        scenario.checkout(), event=scenario.event(), inputs={"reference": "fixes/none.patch"}
    )
    assert result.status == 0
    assert "::warning" in result.stdout and "no such file in the base commit" in result.stdout
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert run["conclusion"] == "neutral"
    assert run["output"]["title"].startswith("observe mode: ")
    assert "in `mode: enforce` it would fail" in run["output"]["summary"]

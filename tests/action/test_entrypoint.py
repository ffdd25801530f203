"""The action run as a runner runs it: a real checkout, GitHub's event file and variables,
`python -m action` as a subprocess, and the fake GitHub API."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.action.scenario import READ_TOKEN, REPO, Scenario

FIXED = {"src/calc.py": "def add(a, b):\n    return a + b\n"}


def _annotations(scenario: Scenario, run_id: int) -> list[dict[str, object]]:
    return scenario.github.state.annotations.get(run_id, [])


def test_in_scope_pass_publishes_a_successful_check_run(scenario: Scenario) -> None:
    scenario.base()
    head = scenario.pr(FIXED)
    result = scenario.run(scenario.checkout(), event=scenario.event())
    assert result.status == 0, result.stdout
    receipt = result.receipt()
    assert receipt["excess"]["distance"] == 1 / 14  # one token of `return a - b` changed
    assert result.outputs == {
        "conclusion": "success", "semantic": "pass", "scope": "pass", "locality": "pass",
        "excess": str(1 / 14), "receipt": str(result.workspace / "receipt.json"),
    }  # fmt: skip
    assert receipt["subject"] == {
        "repo": REPO, "pr": scenario.number, "base": scenario.base_sha, "head": head,
        "merge_base": scenario.base_sha,
        "merge": {"source": "fast-forward", "tree": scenario.origin.git("rev-parse", f"{head}^{{tree}}").strip(),
                  "commit": head, "change": receipt["change"], "problem": None, "conflicts": []},
    }  # fmt: skip
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert (run["status"], run["conclusion"]) == ("completed", "success")
    assert run["external_id"] == receipt["digest"]
    assert "receipt: success" in result.summary and "Published as the `receipt` check run" in result.summary


def test_scope_failure_annotates_and_fails(scenario: Scenario) -> None:
    scenario.base()
    head = scenario.pr({**FIXED, "setup.py": "print('hi')\n", "lib/other.py": "x = 1\n"})
    result = scenario.run(scenario.checkout(), event=scenario.event())
    assert result.status == 1
    assert (result.outputs["conclusion"], result.outputs["scope"], result.outputs["semantic"]) == (
        "failure", "fail", "pass",
    )  # fmt: skip
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert run["conclusion"] == "failure"
    paths = sorted(str(a["path"]) for a in _annotations(scenario, run["id"]))
    assert paths == ["lib/other.py", "setup.py", "setup.py"]
    assert "::error file=lib/other.py,line=1" in result.stdout


def test_test_failure_fails_semantic_and_reports_the_output(scenario: Scenario) -> None:
    scenario.base()
    head = scenario.pr({"src/calc.py": "def add(a, b):\n    print('adding')\n    return a * b\n"})
    result = scenario.run(scenario.checkout(), event=scenario.event())
    assert result.status == 1
    assert (result.outputs["semantic"], result.outputs["scope"]) == ("fail", "pass")
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert run["conclusion"] == "failure"
    assert "exit status 1" in run["output"]["text"]


def test_side_effect_of_the_test_run_is_a_scope_violation(scenario: Scenario) -> None:
    scenario.base()
    scenario.pr({**FIXED, "check.py": "open('.env', 'w').write('TOKEN=1')\n"})
    result = scenario.run(scenario.checkout(), event=scenario.event())
    assert result.status == 1
    violations = result.receipt()["scope"]["violations"]
    assert {(v["rule"], v["path"], v["id"]) for v in violations} >= {
        ("side-effect", ".env", "side-effect:created")
    }


def test_test_command_gets_no_token_and_cannot_set_outputs(scenario: Scenario) -> None:
    scenario.base()
    probe = (
        "import os, sys\n"
        "names = ('GITHUB_OUTPUT', 'GITHUB_ENV', 'GITHUB_TOKEN')\n"
        "leaked = [k for k in os.environ if k.startswith('INPUT_') or k in names]\n"
        "sys.exit(1 if leaked else 0)\n"
    )
    scenario.pr({**FIXED, "check.py": probe})
    result = scenario.run(scenario.checkout(), event=scenario.event())
    assert result.outputs["semantic"] == "pass", result.receipt()["semantic"]


def test_fork_read_only_token_still_reports_everything_else(scenario: Scenario) -> None:
    scenario.fork = True
    scenario.base()
    head = scenario.pr({**FIXED, "setup.py": "print('hi')\n"})
    result = scenario.run(scenario.checkout(), event=scenario.event(), token=READ_TOKEN)
    assert result.status == 1, "the exit status is the verdict, not the missing permission"
    assert scenario.github.state.runs_for(head) == []
    assert [c.status for c in scenario.github.state.calls("POST", r"/repos/acme/widgets/check-runs")] == [403]
    assert "No `receipt` check run was created" in result.summary and "read-only" in result.summary
    assert result.outputs["conclusion"] == "failure"
    assert "::error file=setup.py" in result.stdout
    assert (result.workspace / "receipt.json").exists()


def test_shallow_checkout_is_deepened_until_the_merge_base_appears(scenario: Scenario) -> None:
    scenario.base(history=3)
    scenario.pr(FIXED, later_base_commits=60)
    workspace = scenario.checkout(depth=1)
    result = scenario.run(workspace, event=scenario.event())
    assert result.status == 0, result.stdout
    receipt = result.receipt()
    assert receipt["subject"]["merge_base"] != scenario.base_sha
    assert receipt["change"]["files"] == 1, "the diff is merge-base..head, not base..head"


def test_unrelated_histories_give_one_clear_error(scenario: Scenario) -> None:
    scenario.base()
    scenario.pr(FIXED)
    scenario.origin.git("checkout", "-q", "--orphan", "elsewhere")
    scenario.origin.write("README", "unrelated\n")
    unrelated = scenario.origin.commit("unrelated root")
    scenario.origin.checkout("main")
    event = scenario.event()
    event["pull_request"]["base"]["sha"] = unrelated
    result = scenario.run(scenario.checkout(depth=1), event=event)
    assert result.status == 2
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error::")]
    assert len(errors) == 1
    assert "no common ancestor" in errors[0] and unrelated[:12] in errors[0]
    assert result.outputs["conclusion"] == "failure"
    [run] = scenario.github.state.runs_for(scenario.head_sha, "receipt")
    assert run["conclusion"] == "failure", "a required check never hangs"


def test_sixty_violations_are_annotated_in_batches(scenario: Scenario) -> None:
    scenario.base()
    files = {f"lib/f{n:02}.py": f"x = {n}\n" for n in range(60)}
    head = scenario.pr({**FIXED, **files})
    result = scenario.run(scenario.checkout(), event=scenario.event())
    assert result.status == 1
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert run["output"]["annotations_count"] == 60
    posted = scenario.github.state.calls("POST", r"/repos/acme/widgets/check-runs")
    patched = scenario.github.state.calls("PATCH", r"/repos/acme/widgets/check-runs/\d+")
    assert [len(c.body["output"]["annotations"]) for c in posted + patched] == [50, 10]
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
    assert len(errors) == 10, "GitHub shows at most 10 error annotations per step"
    assert "50 more finding(s) are not annotated here" in result.stdout


def test_pull_request_target_computes_without_running_tests(scenario: Scenario) -> None:
    scenario.fork = True
    scenario.base()
    scenario.pr({"src/calc.py": "def add(a, b):\n    return a + b\n", "check.py": "open('pwned', 'w')\n"})
    workspace = scenario.checkout(ref="refs/heads/main")
    result = scenario.run(
        workspace,
        event=scenario.event("pull_request_target"),
        event_name="pull_request_target",
        inputs={"test-command": "touch pwned-by-input"},
    )
    receipt = result.receipt()
    assert receipt["semantic"]["status"] == "skipped"
    assert [c["name"] for c in receipt["semantic"]["checks"]] == ["references"]  # receipt's own, not a test
    assert any("pull_request_target" in r for r in receipt["verdict"]["reasons"])
    assert not list(scenario.tmp.rglob("pwned*"))
    assert result.outputs["scope"] == "fail", "check.py is outside paths.allow"


def test_manifest_comes_from_the_base_commit_not_the_workspace(scenario: Scenario) -> None:
    scenario.base()
    loose = "version: 1\npaths:\n  allow: ['**']\n  defaults: false\n"
    scenario.pr({**FIXED, "lib/x.py": "x = 1\n", ".github/receipt.yml": loose})
    result = scenario.run(scenario.checkout(), event=scenario.event())
    receipt = result.receipt()
    assert receipt["manifest"]["source"] == "base" and receipt["manifest"]["changed_in_pr"] is True
    rules = {v["rule"] for v in receipt["scope"]["violations"]}
    assert {"outside-allowlist", "manifest-change"} <= rules


def test_invalid_base_manifest_fails_closed_with_a_check_run(scenario: Scenario) -> None:
    scenario.base({**_base_without_manifest(), ".github/receipt.yml": "version: 1\nbogus: true\n"})
    head = scenario.pr(FIXED)
    result = scenario.run(scenario.checkout(), event=scenario.event())
    assert result.status == 2
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert run["conclusion"] == "failure" and "invalid configuration" in run["output"]["title"]
    assert "bogus" in result.summary


def _base_without_manifest() -> dict[str, str]:
    from tests.action.scenario import BASE_FILES

    return {k: v for k, v in BASE_FILES.items() if k != ".github/receipt.yml"}


def test_compute_then_publish_round_trip(scenario: Scenario) -> None:
    scenario.fork = True
    scenario.base()
    head = scenario.pr(FIXED)
    computed = scenario.run(
        scenario.checkout(), event=scenario.event(), token=READ_TOKEN, inputs={"mode": "compute"}
    )
    assert computed.status == 0, computed.stdout
    assert scenario.github.state.requests == [], "compute makes no API call"
    artifact = computed.workspace / "receipt.json"

    publisher = scenario.checkout(ref="refs/heads/main", name="publisher")
    (publisher / "receipt.json").write_bytes(artifact.read_bytes())
    published = scenario.run(
        publisher, event=scenario.workflow_run_event(), event_name="workflow_run", inputs={"mode": "publish"}
    )
    assert published.status == 0, published.stdout
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert run["conclusion"] == "success"
    receipt = published.receipt("receipt.published.json")
    assert receipt["semantic"]["status"] == "pass"
    assert receipt["semantic"]["reported_by"]["receipt_digest"] == json.loads(artifact.read_text())["digest"]
    assert "as reported by" in run["output"]["summary"]
    assert published.outputs["receipt"].endswith("receipt.published.json")
    assert receipt["subject"]["pr"] == scenario.number and receipt["subject"]["head"] == head
    inspected = subprocess.run(
        [sys.executable, "-m", "bot.cli", "inspect", str(published.workspace / "receipt.published.json"),
         "--repo", str(scenario.origin.root)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert inspected.returncode == 0, inspected.stdout + inspected.stderr
    assert "ok        change.digest" in inspected.stdout and "ok        manifest.digest" in inspected.stdout


def test_publish_recomputes_a_forged_success_into_the_true_failure(scenario: Scenario) -> None:
    scenario.fork = True
    scenario.base()
    head = scenario.pr({**FIXED, "setup.py": "import os\n", ".github/workflows/ci.yml": "on: push\n"})
    computed = scenario.run(
        scenario.checkout(), event=scenario.event(), token=READ_TOKEN, inputs={"mode": "compute"}
    )
    forged = computed.receipt()
    assert forged["verdict"]["conclusion"] == "failure"
    forged["scope"] = {"pass": True, "violations": []}
    forged["verdict"] = {"conclusion": "success", "reasons": ["scope and locality passed"]}
    from bot.engine.receipt import digest_of, render_json

    forged["digest"] = digest_of(forged)
    publisher = scenario.checkout(ref="refs/heads/main", name="publisher")
    (publisher / "receipt.json").write_text(render_json(forged), encoding="utf-8")
    published = scenario.run(
        publisher, event=scenario.workflow_run_event(), event_name="workflow_run", inputs={"mode": "publish"}
    )
    assert published.status == 0, "publish exits 0 once published, whatever the verdict"
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert run["conclusion"] == "failure"
    rules = {v["rule"] for v in published.receipt("receipt.published.json")["scope"]["violations"]}
    assert {"protected-path", "outside-allowlist"} <= rules
    assert published.outputs["conclusion"] == "failure"


def test_publish_refuses_a_tampered_artifact(scenario: Scenario) -> None:
    scenario.base()
    head = scenario.pr(FIXED)
    computed = scenario.run(scenario.checkout(), event=scenario.event(), inputs={"mode": "compute"})
    body = computed.receipt()
    body["semantic"]["status"] = "pass"
    body["semantic"]["checks"] = [{"name": "forged", "conclusion": "success", "details": ""}]
    publisher = scenario.checkout(ref="refs/heads/main", name="publisher")
    (publisher / "receipt.json").write_text(json.dumps(body), encoding="utf-8")
    published = scenario.run(
        publisher, event=scenario.workflow_run_event(), event_name="workflow_run", inputs={"mode": "publish"}
    )
    assert published.status == 1
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert run["conclusion"] == "failure" and "digest does not match" in run["output"]["summary"]


def test_publish_refuses_a_receipt_for_another_head(scenario: Scenario) -> None:
    scenario.base()
    head = scenario.pr(FIXED)
    computed = scenario.run(scenario.checkout(), event=scenario.event(), inputs={"mode": "compute"})
    publisher = scenario.checkout(ref="refs/heads/main", name="publisher")
    (publisher / "receipt.json").write_bytes((computed.workspace / "receipt.json").read_bytes())
    other = scenario.base_sha
    published = scenario.run(
        publisher,
        event=scenario.workflow_run_event(head_sha=other),
        event_name="workflow_run",
        inputs={"mode": "publish"},
    )
    assert published.status == 1
    assert scenario.github.state.runs_for(head) == []
    [run] = scenario.github.state.runs_for(other, "receipt")
    assert run["conclusion"] == "failure"
    assert f"describes commit {head[:12]}" in run["output"]["summary"]
    assert published.outputs["conclusion"] == "failure" and published.outputs["receipt"] == ""


def test_publish_refuses_when_the_artifact_is_missing(scenario: Scenario) -> None:
    scenario.base()
    head = scenario.pr(FIXED)
    publisher = scenario.checkout(ref="refs/heads/main", name="publisher")
    published = scenario.run(
        publisher, event=scenario.workflow_run_event(pull_requests=True), event_name="workflow_run",
        inputs={"mode": "publish"},
    )  # fmt: skip
    assert published.status == 1
    [run] = scenario.github.state.runs_for(head, "receipt")
    assert "no receipt at receipt.json" in run["output"]["summary"]


def test_publish_without_checks_write_says_which_permission(scenario: Scenario) -> None:
    scenario.base()
    scenario.pr(FIXED)
    computed = scenario.run(scenario.checkout(), event=scenario.event(), inputs={"mode": "compute"})
    publisher = scenario.checkout(ref="refs/heads/main", name="publisher")
    (publisher / "receipt.json").write_bytes((computed.workspace / "receipt.json").read_bytes())
    published = scenario.run(
        publisher, event=scenario.workflow_run_event(), event_name="workflow_run", token=READ_TOKEN,
        inputs={"mode": "publish"},
    )  # fmt: skip
    assert published.status == 2
    assert "checks: write" in published.stdout


def test_wrong_event_for_the_mode_is_a_usage_error(scenario: Scenario) -> None:
    scenario.base()
    scenario.pr(FIXED)
    result = scenario.run(scenario.checkout(), event=scenario.event(), inputs={"mode": "publish"})
    assert result.status == 2
    assert "mode publish runs on workflow_run" in result.stdout


def test_a_prefilter_re2_gave_up_on_is_reported_as_not_assessed() -> None:
    from bot.engine.content.patternset import PatternSetGaveUp
    from bot.github.publisher import problem_of

    problem = problem_of(PatternSetGaveUp(2048))
    assert problem.title == "could not assess the added text"
    assert "2,048 bytes" in problem.explanation and "review it by hand" in problem.explanation

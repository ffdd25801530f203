"""`references` and `report` through the API source (the App's and publish's path) against the fake."""

from __future__ import annotations

from dataclasses import replace

from bot.engine import evaluate, semantic
from bot.engine.semantic import CheckConclusion
from bot.gather.source import ReadBudget
from bot.github.pulls import get_pull
from bot.github.remote import gather_pull
from bot.github.source import ApiSource
from bot.server.plan import pull_from_spec, pull_spec
from tests.action.scenario import REPO, Scenario
from tests.action.test_github_adapters import REPO_REF, _client

LIB = "def fetch(url, timeout=10):\n    return url\n"
FILES = {
    ".github/receipt.yml": "version: 1\n",
    "lib.py": LIB,
    "app.py": "from lib import fetch\n\nfetch('u', timeout=1)\n",
    "unrelated.py": "X = 1\n",
    "docs/readme.md": "hello\n",
}


def _pull(scenario: Scenario, body: str | None = None):  # type: ignore[no-untyped-def]
    scenario.base(FILES)
    scenario.pr({"lib.py": "def fetch(url):\n    return url\n", "tests/test_lib.py": "def test(): pass\n"})
    pulled = scenario.github.state.pulls[(REPO, scenario.number)]
    pulled.title, pulled.body = "Simplify fetch", body
    return get_pull(_client(scenario.github), REPO_REF, scenario.number)


def test_the_api_source_follows_references_and_reads_each_object_once(scenario: Scenario) -> None:
    pull = _pull(scenario, "Drops the timeout argument. All tests pass.")
    gh = _client(scenario.github)
    receipt = evaluate(gather_pull(gh, REPO_REF, pull, tests=semantic.TestEvidence()))
    assert receipt.references is not None
    assert [(f.path, f.line, f.kind.value) for f in receipt.references.findings] == [
        ("app.py", 3, "signature")
    ]
    assert receipt.verdict.conclusion.value == "failure"
    head_trees = scenario.github.state.calls("GET", rf"/repos/{REPO}/git/trees/{pull.head_sha}")
    assert len(head_trees) == 1  # the change's entries and the listing share one recursive tree
    blobs = {
        c.path.rsplit("/", 1)[1] for c in scenario.github.state.calls("GET", rf"/repos/{REPO}/git/blobs/\w+")
    }
    listed = scenario.origin.git("ls-tree", "-r", pull.head_sha).split("\n")
    shas = {line.split()[2]: line.split("\t")[1] for line in listed if line}
    assert sorted(
        shas[b] for b in blobs if b in shas and shas[b].endswith(".py") and shas[b] != "lib.py"
    ) == [
        "app.py",
        "tests/test_lib.py",
        "unrelated.py",
    ]  # README not read for references; app.py and unrelated.py read once
    report = receipt.report
    assert report is not None and report.description is not None
    assert [c.kind.value for c in report.claims] == ["tests-pass"]  # semantic failed: references
    assert report.description.text.startswith("Simplify fetch")


def test_a_change_to_no_existing_module_reads_no_other_module(scenario: Scenario) -> None:
    """Only a module the base had can break a caller elsewhere: a change to documentation (or one
    adding a module) costs no blob of the tree's other modules, and the check still says it ran."""
    scenario.base({**FILES, **{f"pkg/m{k}.py": f"V{k} = {k}\n" for k in range(30)}})
    scenario.pr({"docs/readme.md": "hello again\n", "new_module.py": "def helper():\n    return 1\n"})
    gh = _client(scenario.github)
    pull = get_pull(gh, REPO_REF, scenario.number)
    receipt = evaluate(gather_pull(gh, REPO_REF, pull, tests=semantic.TestEvidence()))
    assert receipt.references is not None
    assert receipt.references.check.conclusion is CheckConclusion.SUCCESS
    assert (
        receipt.references.summary
        == "no broken call sites (0 changed module(s), 0 module(s) that mention what changed read)"
    )
    blobs = scenario.github.state.calls("GET", rf"/repos/{REPO}/git/blobs/\w+")
    assert len(blobs) == 3, [c.path for c in blobs]  # the change's own: readme.md's two sides, new_module.py


def test_over_the_budget_the_check_says_too_large_to_follow(scenario: Scenario) -> None:
    pull = _pull(scenario)
    gh = _client(scenario.github)
    source = ApiSource(gh, REPO_REF, budget=ReadBudget(files=1, bytes=1 << 20, where="the GitHub API source"))
    receipt = evaluate(gather_pull(gh, REPO_REF, pull, tests=semantic.TestEvidence(), source=source))
    assert receipt.references is not None
    check = receipt.references.check
    assert check.conclusion is CheckConclusion.NEUTRAL
    assert "too large to follow: 2 Python files" in check.details
    assert "the GitHub API source reads at most 1 files" in check.details
    assert any(
        r.startswith("references not followed: the repository is too large") for r in receipt.verdict.reasons
    )
    assert receipt.verdict.conclusion.value == "success"  # neutral, never a silent pass


def test_a_truncated_tree_is_not_followed(scenario: Scenario) -> None:
    pull = _pull(scenario)
    scenario.github.state.tree_truncated = True
    gh = _client(scenario.github)
    receipt = evaluate(gather_pull(gh, REPO_REF, pull, tests=semantic.TestEvidence()))
    assert receipt.references is not None
    assert receipt.references.incomplete == "the GitHub API source cannot list the whole head tree"


def test_the_app_job_spec_carries_the_title_and_body(scenario: Scenario) -> None:
    pull = _pull(scenario, "body text")
    spec = pull_spec(pull)
    assert (spec["title"], spec["body"]) == ("Simplify fetch", "body text")
    assert pull_from_spec(spec) == pull
    assert pull_from_spec({k: v for k, v in spec.items() if k not in ("title", "body")}) == replace(
        pull, title=None, body=None
    )


def test_the_action_check_mode_runs_references_and_reads_the_event_title_and_body(scenario: Scenario) -> None:
    scenario.base(FILES)
    scenario.pr({"lib.py": "def fetch(url):\n    return url\n"})
    workspace = scenario.checkout()
    event = scenario.event()
    event["pull_request"]["title"], event["pull_request"]["body"] = "Drop the timeout", "No breaking changes."
    result = scenario.run(workspace, event=event, inputs={"mode": "compute"})
    receipt = result.receipt()
    (entry,) = [c for c in receipt["semantic"]["checks"] if c["name"] == "references"]
    assert entry["conclusion"] == "failure"
    assert [(f["path"], f["line"]) for f in entry["findings"]] == [("app.py", 3)]
    assert receipt["report"]["description"]["source"] == "pull-request"
    assert [c["kind"] for c in receipt["report"]["claims"]] == ["no-breaking-changes"]
    assert result.status == 1

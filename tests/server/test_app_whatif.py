"""The App's what-if (issue 16): a pull request that edits the manifest gets, below its receipt,
how the base branch's recently merged pull requests would be judged under its proposed manifest;
the table is the one `receipt whatif` prints for the same history, the verdict stays the base
manifest's, a failing list leaves "what-if not computed", and other pull requests cost nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
from selenium.webdriver.common.by import By

from bot.cli import main
from tests.browser import browser
from tests.fakegithub import FakePull
from tests.fakegithub.harness import BASE_FILES, AppWorld, wait_until
from tests.server.appprocess import AppHost

MANIFEST = ".github/receipt.yml"
TIGHTER = BASE_FILES[MANIFEST] + "budgets: {files: 1}\n"  # at most one file per change


def _completed(world: AppWorld, head: str) -> dict[str, Any]:
    def done() -> list[dict[str, Any]]:
        return [r for r in world.fake.runs_for(head, "receipt") if r["status"] == "completed"]

    return wait_until(done, timeout=30.0, what=f"a completed receipt run on {head[:12]}")[0]


def _history(world: AppWorld) -> None:
    """Three merged pull requests (one file, two files, one squashed file) and a closed unmerged one."""
    for number, files, squash in (
        (1, {"src/one.py": "ONE = 1\n"}, False),
        (2, {"src/a.py": "A = 1\n", "src/b.py": "B = 1\n"}, False),
        (3, {"src/c.py": "C = 1\n"}, True),
    ):
        world.merge(world.open_pull(files, number=number, title=f"change {number}"), squash=squash)
    world.open_pull({"src/abandoned.py": "X = 1\n", "src/z.py": "Z = 1\n"}, number=4).state = "closed"


def _rows(markdown: str) -> list[tuple[str, str, str, str]]:
    """(commit, base conclusion, new conclusion, why) of each table row; titles differ by design."""
    found = re.findall(r"^\| `([0-9a-f]{12})`[^|]* \| (\w+) \| ([^|]+) \| ([^|]*) \|$", markdown, re.M)
    return [(c, b, n.strip(), w.strip()) for c, b, n, w in found]


def _tightened(world: AppWorld, host: AppHost) -> tuple[FakePull, dict[str, Any]]:
    """The history, then a pull request that tightens the budget, and its completed run."""
    _history(world)
    pull = world.open_pull({MANIFEST: TIGHTER}, number=10, title="tighten the budget")
    host.serve()
    world.send_pull_request("opened", pull=pull)
    return pull, _completed(world, pull.head_sha)


def test_a_manifest_change_gets_the_cli_table_over_merged_pull_requests(
    github_app: AppWorld, host: AppHost, tmp_path: Path
) -> None:
    pull, run = _tightened(github_app, host)
    summary = run["output"]["summary"]
    section = summary[summary.index("### What-if") :]
    assert "3 change(s) compared" in section and "No tests are run" in section, section
    assert "1 of 3 merged change\\(s\\) would conclude differently" in section, section

    new = tmp_path / "new.yml"
    new.write_text(TIGHTER)
    cli_md = tmp_path / "cli.md"
    main(["whatif", "--manifest", str(new), "--last", "3", "--repo", str(github_app.origin.root),
          "--branch", "main", "--markdown", str(cli_md)])  # fmt: skip
    cli = _rows(cli_md.read_text())
    assert len(cli) == 3 and _rows(section) == cli, (section, cli_md.read_text())
    changed = [r for r in cli if "**changed**" in r[2]]
    assert len(changed) == 1 and changed[0][1] == "success" and "budget" in changed[0][3], cli
    # the verdict is the base manifest's: what `receipt check` concludes of the pull request
    own = tmp_path / "own.json"
    main(["check", "--repo", str(github_app.origin.root), "--base", "main", "--head", pull.head_sha,
          "--no-tests", "--json", str(own)])  # fmt: skip
    assert run["conclusion"] == json.loads(own.read_text())["verdict"]["conclusion"], summary


def test_a_failing_list_leaves_the_receipt_with_what_if_not_computed(
    github_app: AppWorld, host: AppHost
) -> None:
    _history(github_app)
    pull = github_app.open_pull({MANIFEST: TIGHTER}, number=10)
    github_app.fake.inject_server_error("GET", r"/repos/acme/widgets/pulls", status=502, times=50)
    host.serve()
    github_app.send_pull_request("opened", pull=pull)
    run = _completed(github_app, pull.head_sha)
    summary = run["output"]["summary"]
    assert "what-if not computed: " in summary and "502" in summary, summary
    assert run["conclusion"] in ("success", "failure", "neutral"), run  # a receipt, not a problem run
    assert "manifest" in summary.split("### What-if")[0]  # the receipt itself (its dry run) is above


def test_a_pull_request_that_does_not_edit_the_manifest_makes_no_what_if_request(
    github_app: AppWorld, host: AppHost
) -> None:
    _history(github_app)
    host.serve()
    github_app.send_pull_request("opened")
    run = _completed(github_app, github_app.pull.head_sha)
    assert "What-if" not in run["output"]["summary"]
    assert not github_app.fake.calls("GET", r"/repos/acme/widgets/pulls")
    merges = {p.merged_sha for p in github_app.fake.pulls.values() if p.merged_sha}
    assert len(merges) == 3
    # the what-if's reads: a merge commit (for its first parent), the diff up to a merge commit
    read = github_app.fake.calls(
        "GET", r"/repos/acme/widgets/(git/commits/|compare/[0-9a-f]+\.\.\.)[0-9a-f]{40}"
    )
    assert not [r for r in read if r.path[-40:] in merges], read


def test_the_receipt_page_and_its_json_show_the_what_if(
    github_app: AppWorld, host: AppHost, tmp_path: Path
) -> None:
    _, run = _tightened(github_app, host)
    table = _rows(run["output"]["summary"])
    url, token = run["details_url"].split("?token=")
    served = httpx.get(f"{url}.json", params={"token": token})
    whatif = served.json()["whatif"]
    assert (whatif["over"], whatif["ref"], whatif["compared"], whatif["changed"]) == (
        "merged-pulls",
        "main",
        3,
        1,
    )
    assert [(r["commit"][:12], r["before"], r["after"]) for r in whatif["rows"]] == [
        (c, b, n.replace(" **changed**", "")) for c, b, n, _ in table
    ]
    kept = tmp_path / "served.json"
    kept.write_bytes(served.content)
    assert main(["inspect", str(kept), "--repo", str(github_app.origin.root)]) == 0  # the digest still holds
    with browser() as driver:
        driver.get(run["details_url"])
        shown = driver.find_element(By.ID, "whatif").text
        assert "1 of 3 change(s) would conclude differently" in driver.find_element(By.TAG_NAME, "main").text
        [flipped] = [r["commit"][:12] for r in whatif["rows"] if r["changed"]]
        changed = [line for line in shown.splitlines() if "changed" in line]
        assert len(changed) == 1 and changed[0].startswith(flipped), shown
        assert "proposed policy" in shown and not driver.find_elements(By.TAG_NAME, "script")


def test_a_manifest_change_never_waits_for_tests_and_gets_the_table_at_once(
    github_app: AppWorld, host: AppHost
) -> None:
    """The App computes the what-if only for a concluded receipt, never for one waiting on tests.
    A pull request that edits the manifest cannot be waiting: its unwaivable `manifest-change`
    finding fails scope, so it concludes at once (neutral under `mode: observe`), with the table,
    while its test check is still running."""
    _history(github_app)
    host.serve()
    for number, mode, conclusion in ((10, "", "failure"), (11, "mode: observe\n", "neutral")):
        checked = f"version: 1\n{mode}paths:\n  allow: ['src/**']\ntests:\n  checks: [test]\n"
        github_app.commit_to_base({MANIFEST: checked})
        pull = github_app.open_pull({MANIFEST: checked + "budgets: {files: 1}\n"}, number=number)
        github_app.fake.add_check_run(
            github_app.repo, pull.head_sha, "test", status="in_progress", emit=False
        )
        github_app.send_pull_request("opened", pull=pull)
        run = _completed(github_app, pull.head_sha)
        assert run["conclusion"] == conclusion and "semantic pending" in run["output"]["summary"], run
        assert "change(s) compared" in run["output"]["summary"], run["output"]["summary"]

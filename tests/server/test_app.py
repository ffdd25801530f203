"""The App end to end: real `receipt serve` processes, the fake GitHub sending signed deliveries."""

from __future__ import annotations

import copy
import json
import sqlite3
import time

import httpx

from tests.fakegithub import payloads
from tests.fakegithub.harness import BASE_FILES, AppWorld, wait_until
from tests.fakegithub.mergequeue import MergeGroup
from tests.fakegithub.state import DiffLimits
from tests.server.appprocess import AppHost


def _completed(world: AppWorld, head: str, *, count: int = 1, timeout: float = 20.0) -> list[dict]:  # type: ignore[type-arg]
    def done() -> list[dict]:  # type: ignore[type-arg]
        runs = [r for r in world.fake.runs_for(head, "receipt") if r["status"] == "completed"]
        return runs if len(runs) >= count else []

    return wait_until(done, timeout=timeout, what=f"{count} completed receipt run(s) on {head[:12]}")


def test_a_pull_request_gets_a_completed_receipt_run(github_app: AppWorld, host: AppHost) -> None:
    app = host.serve()
    delivery = github_app.send_pull_request("opened")
    assert delivery.status_code == 202
    [run] = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "success", run["output"]
    assert run["app"]["id"] == github_app.app.id
    assert "semantic" in run["output"]["summary"] and "scope" in run["output"]["summary"]
    assert run["details_url"].startswith(f"{app.url}/receipts/")
    page = httpx.get(run["details_url"])
    assert page.status_code == 200 and "receipt: success" in page.text
    assert httpx.get(run["details_url"].split("?")[0]).status_code == 404


def _manifest(world: AppWorld, text: str) -> None:
    """Commit a manifest on the base branch and re-open pull request #7 on top of it."""
    world.commit_to_base({".github/receipt.yml": text})
    world.pull = world.open_pull({"src/calc.py": "def add(a, b):\n    return a + b\n"}, number=8)


def test_a_pull_request_outside_applies_to_is_skipped(github_app: AppWorld, host: AppHost) -> None:
    _manifest(github_app, "version: 1\napplies_to: {labels: [agent]}\n")
    host.serve()
    github_app.send_pull_request("opened")
    [run] = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "skipped"
    why = "this pull request is not covered by applies_to: it has none of labels (agent)"
    assert run["output"]["title"] == f"skipped: {why}"
    assert (
        "- this pull request is not covered by applies\\_to: it has none of labels \\(agent\\)\n"
        in run["output"]["summary"]
    )


def test_an_out_of_scope_change_fails_at_once(github_app: AppWorld, host: AppHost) -> None:
    host.serve()
    github_app.push({"package-lock.json": "{}\n"})
    github_app.send_pull_request("synchronize")
    [run] = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "failure"
    assert "protected-path" in run["output"]["summary"] or "outside-allowlist" in run["output"]["summary"]
    annotations = github_app.fake.annotations[run["id"]]
    assert any(a["path"] == "package-lock.json" for a in annotations)


def test_synchronize_gives_a_run_on_the_new_head(github_app: AppWorld, host: AppHost) -> None:
    host.serve()
    github_app.send_pull_request("opened")
    first = github_app.pull.head_sha
    _completed(github_app, first)
    github_app.push({"src/calc.py": "def add(a, b):\n    return b + a\n"})
    github_app.send_pull_request("synchronize", before=first)
    [run] = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "success"


def test_duplicate_and_redelivered_deliveries_are_evaluated_once(github_app: AppWorld, host: AppHost) -> None:
    host.serve()
    payload = github_app.pull_request_payload("opened")
    first = github_app.fake.deliver(
        github_app.app.id, "pull_request", payload, guid="11111111-2222-3333-4444-555555555555"
    )
    again = github_app.fake.deliver(github_app.app.id, "pull_request", payload, guid=first.guid)
    redelivered = github_app.fake.redeliver(first.id)
    assert (first.status_code, again.status_code, redelivered.status_code) == (202, 200, 200)
    _completed(github_app, github_app.pull.head_sha)
    time.sleep(1.0)  # room for a wrong second evaluation to show up
    assert len(github_app.fake.runs_for(github_app.pull.head_sha, "receipt")) == 1


def test_forged_missing_sha1_only_and_malformed_deliveries(github_app: AppWorld, host: AppHost) -> None:
    host.serve()
    fake, app = github_app.fake, github_app.app
    body = b'{"zen": "x", "hook": {"id": 1}}'
    good = fake.webhook_headers(app.id, "ping", body)
    forged = {**good, "X-Hub-Signature-256": "sha256=" + "0" * 64}
    missing = {k: v for k, v in good.items() if k != "X-Hub-Signature-256"}
    sha1_only = missing  # X-Hub-Signature (SHA-1) is still there
    assert "X-Hub-Signature" in sha1_only
    for headers in (forged, missing, sha1_only):
        assert fake.deliver_raw(app.id, body, headers).status_code == 401
    malformed = b'{"zen": '
    assert (
        fake.deliver_raw(app.id, malformed, fake.webhook_headers(app.id, "ping", malformed)).status_code
        == 400
    )
    assert fake.deliver_raw(app.id, body, good).status_code == 200
    github_app.send_pull_request("opened")
    assert _completed(github_app, github_app.pull.head_sha)[0]["conclusion"] == "success", (
        "nothing else broke"
    )


def test_deliveries_are_answered_without_asking_github_and_installation_events_start_nothing(
    github_app: AppWorld, host: AppHost
) -> None:
    host.serve(workers=0)  # records and answers; nothing runs the jobs
    fake, installation = github_app.fake, github_app.installation
    wait_until(lambda: fake.calls("GET", r"/app/hook/deliveries"), what="the start-up redelivery pass")
    before = len(fake.requests)
    pulled = github_app.send_pull_request("opened")
    installed = github_app.send("installation", payloads.installation_event(fake, "created", installation))
    added = github_app.send("installation_repositories", payloads.installation_repositories(
        fake, "added", installation, added=[github_app.repo], removed=[]))  # fmt: skip
    assert pulled.status_code == 202 and json.loads(pulled.response_body)["jobs"] == 1
    for delivery in (installed, added):
        answer = json.loads(delivery.response_body)
        assert delivery.ok and (answer["outcome"], answer["jobs"]) == ("ignored", 0), answer
    assert [f"{r.method} {r.path}" for r in fake.requests[before:]] == [], (
        "GitHub was asked on the request path"
    )
    with sqlite3.connect(host.tmp / "app.sqlite3") as db:
        recorded = db.execute("SELECT event FROM deliveries ORDER BY event").fetchall()
        queued = db.execute("SELECT kind, head_sha FROM jobs").fetchall()
    assert recorded == [("installation",), ("installation_repositories",), ("pull_request",)]
    assert queued == [("evaluate", github_app.pull.head_sha)]


def _ping_of(size: int) -> bytes:
    """A ping delivery's body of exactly `size` bytes."""
    head, tail = b'{"zen":"', b'","hook_id":1}'
    return head + b"z" * (size - len(head) - len(tail)) + tail


def test_a_body_over_25_mb_is_refused_signed_or_not_declared_or_chunked(
    github_app: AppWorld, host: AppHost
) -> None:
    app = host.serve(workers=0)
    fake, limit = github_app.fake, 25 * 1024 * 1024
    over = _ping_of(limit + 1)
    signed = fake.webhook_headers(github_app.app.id, "ping", over)
    unsigned = {k: v for k, v in signed.items() if not k.startswith("X-Hub-Signature")}

    def post(body: object, headers: dict[str, str]) -> httpx.Response:
        return httpx.post(f"{app.url}/webhook", content=body, headers=headers, timeout=60)  # type: ignore[arg-type]

    for headers in (signed, unsigned):
        refused = post(over, headers)
        assert refused.status_code == 413, refused.text
        assert refused.json() == {"outcome": "too_large", "error": f"the body exceeds {limit:,} bytes"}
    chunks = (over[n : n + (1 << 20)] for n in range(0, len(over), 1 << 20))
    streamed = post(chunks, signed)  # no Content-Length: counted as it is read
    assert streamed.request.headers["transfer-encoding"] == "chunked"
    assert streamed.status_code == 413, streamed.text

    at_limit = _ping_of(limit)
    accepted = post(at_limit, fake.webhook_headers(github_app.app.id, "ping", at_limit))
    assert (accepted.status_code, accepted.json()["outcome"]) == (200, "ping")


def test_an_invalid_base_manifest_fails_with_its_errors_on_its_lines(
    github_app: AppWorld, host: AppHost
) -> None:
    _manifest(github_app, "version: 1\npaths:\n  allow: 3\nbudgets: {files: -1}\n")
    host.serve()
    github_app.send_pull_request("opened")
    [run] = _completed(github_app, github_app.pull.head_sha)
    assert run["conclusion"] == "failure" and run["output"]["title"] == "invalid configuration"
    assert ".github/receipt.yml:3:" in run["output"]["summary"]
    lines = {(a["path"], a["start_line"]) for a in github_app.fake.annotations[run["id"]]}
    assert {(".github/receipt.yml", 3), (".github/receipt.yml", 4)} <= lines


def test_a_pull_request_editing_the_manifest_is_judged_by_the_base_one(
    github_app: AppWorld, host: AppHost
) -> None:
    host.serve()
    github_app.push({".github/receipt.yml": "version: 1\npaths:\n  allow: ['**']\n", "lib/x.py": "x = 1\n"})
    github_app.send_pull_request("synchronize")
    [run] = _completed(github_app, github_app.pull.head_sha)
    summary = run["output"]["summary"]
    assert run["conclusion"] == "failure"
    assert "manifest-change" in summary and "outside-allowlist" in summary
    assert "dry run" in summary and "proposed policy" in summary
    pull = github_app.pull
    assert f"`{pull.base_ref}:.github/receipt.yml@{pull.base_sha[:12]}`" in summary  # the policy judged by


def test_rerequest_the_reevaluate_button_and_a_rerequested_suite_each_post_a_new_run(
    github_app: AppWorld, host: AppHost
) -> None:
    """GitHub resets none of the App's runs when a user asks again: each request gets a run of its
    own, and the earlier ones stay as they were."""
    host.serve()
    github_app.send_pull_request("opened")
    head = github_app.pull.head_sha
    [first] = _completed(github_app, head)
    assert [a["identifier"] for a in github_app.fake.check_run_actions[first["id"]]] == ["reevaluate"]
    github_app.fake.rerequest_check_run(first["id"])
    runs = _completed(github_app, head, count=2)
    github_app.fake.request_action(max(r["id"] for r in runs), "reevaluate")
    runs = _completed(github_app, head, count=3)
    earlier = copy.deepcopy(runs)
    rerequested = github_app.fake.rerequest_check_suite(first["check_suite"]["id"])
    assert rerequested is not None and rerequested.status_code == 202
    after = _completed(github_app, head, count=4)
    assert all(r["conclusion"] == "success" for r in after)
    assert [r for r in after if r["id"] in {e["id"] for e in earlier}] == earlier, "left as they were"


def _merge_group(world: AppWorld, action: str, group: MergeGroup, **kw: str) -> None:
    delivery = world.send(
        "merge_group", payloads.merge_group(world.fake, action, group, world.installation, **kw)
    )
    assert delivery.status_code == 202


def test_a_merge_group_gets_a_run_on_its_head(github_app: AppWorld, host: AppHost) -> None:
    host.serve()
    group = github_app.fake.add_merge_group(github_app.pull)
    _merge_group(github_app, "checks_requested", group)
    [run] = _completed(github_app, group.head_sha)
    assert run["conclusion"] == "success"


def test_a_merge_group_is_judged_by_the_base_manifest_not_the_one_it_merges(
    github_app: AppWorld, host: AppHost
) -> None:
    github_app.pull = github_app.open_pull(
        {".github/receipt.yml": "version: 1\npaths:\n  allow: ['**']\n", "lib/x.py": "x = 1\n"}, number=8
    )
    host.serve()
    group = github_app.fake.add_merge_group(github_app.pull)
    _merge_group(github_app, "checks_requested", group)
    [run] = _completed(github_app, group.head_sha)
    title, summary = run["output"]["title"], run["output"]["summary"]
    assert run["conclusion"] == "failure"
    assert title == "failure: scope failed: 2 violations (manifest-change, outside-allowlist)"
    assert f"`main:.github/receipt.yml@{group.base_sha[:12]}`" in summary  # the branch, as a pull request's
    assert "judged by the base branch's policy" in summary and "would conclude **success**" in summary
    annotated = {a["path"] for a in github_app.fake.annotations[run["id"]]}
    assert {"lib/x.py", ".github/receipt.yml"} <= annotated


def test_a_destroyed_merge_group_ends_its_waiting_run_with_the_reason(
    github_app: AppWorld, host: AppHost
) -> None:
    _manifest(github_app, "version: 1\npaths:\n  allow: ['src/**']\ntests:\n  checks: [test]\n")
    host.serve()
    group = github_app.fake.add_merge_group(github_app.pull)
    _merge_group(github_app, "checks_requested", group)
    [waiting] = wait_until(
        lambda: github_app.fake.runs_for(group.head_sha, "receipt"), what="the group's run"
    )
    assert waiting["status"] == "in_progress"  # `test` has not run on the group's head
    _merge_group(github_app, "destroyed", group, reason="dequeued")
    [run] = _completed(github_app, group.head_sha)
    assert (run["id"], run["conclusion"], run["output"]["title"]) == (waiting["id"], "cancelled", "cancelled")
    assert "The merge group was destroyed (dequeued)." in run["output"]["summary"]


def test_a_configured_test_check_completing_later_flips_semantic(github_app: AppWorld, host: AppHost) -> None:
    _manifest(github_app, "version: 1\npaths:\n  allow: ['src/**']\ntests:\n  checks: [test]\n")
    host.serve()
    head = github_app.pull.head_sha
    ci = github_app.fake.add_check_run(github_app.repo, head, "test", status="in_progress", emit=False)
    github_app.send_pull_request("opened")
    run = wait_until(lambda: github_app.fake.runs_for(head, "receipt"), what="the receipt run")[0]
    assert run["status"] == "in_progress"
    assert "scope" in run["output"]["summary"]
    github_app.fake.complete_check_run(ci["id"], "success")
    [done] = _completed(github_app, head)
    assert done["id"] == run["id"] and done["conclusion"] == "success"


def test_a_check_whose_workflow_waits_for_approval_is_explained(github_app: AppWorld, host: AppHost) -> None:
    """`tests.checks` names a job's check run: while its workflow waits for approval the check does
    not exist at all; the run says who must act, and concludes once the approved job completes."""
    _manifest(github_app, "version: 1\npaths:\n  allow: ['src/**']\ntests:\n  checks: [test]\n")
    fake, head = github_app.fake, github_app.pull.head_sha
    flow = fake.add_workflow_run(github_app.repo, head, "CI", awaiting_approval=True, emit=False)
    host.serve()
    github_app.send_pull_request("opened")
    run = wait_until(lambda: fake.runs_for(head, "receipt"), what="the receipt run")[0]
    assert run["status"] == "in_progress"
    assert run["output"]["title"] == "pending: test waits for approval by someone with write access"
    summary = run["output"]["summary"]
    assert summary.startswith("> ⏸️ **Waiting for approval: `test`.**") and "Approve and run" in summary
    assert f"[the run waiting for approval]({flow['html_url']})" in summary
    fake.approve_workflow_run(flow["id"])
    ci = fake.add_check_run(github_app.repo, head, "test", status="in_progress")
    fake.complete_check_run(ci["id"], "success")
    [done] = _completed(github_app, head)
    assert done["id"] == run["id"] and done["conclusion"] == "success"


def test_a_forks_ci_events_without_pull_requests_still_conclude(github_app: AppWorld, host: AppHost) -> None:
    github_app.commit_to_base({".github/receipt.yml": "version: 1\ntests:\n  checks: [test]\n"})
    github_app.pull = github_app.open_pull({"src/calc.py": "x = 1\n"}, number=9, fork=True)
    host.serve()
    head = github_app.pull.head_sha
    github_app.send_pull_request("opened")
    wait_until(lambda: github_app.fake.runs_for(head, "receipt"), what="the receipt run")
    ci = github_app.fake.add_check_run(github_app.repo, head, "test", status="in_progress")
    github_app.fake.complete_check_run(ci["id"], "failure")
    [done] = _completed(github_app, head)
    assert done["conclusion"] == "failure" and "semantic" in done["output"]["title"]


def test_the_files_api_fallback_whichever_diff_limit_github_refuses_at(
    github_app: AppWorld, host: AppHost
) -> None:
    """GitHub answers 406 for a diff over 300 files, 20,000 lines or 1 MB: each limit alone, lowered
    below this one-file change of a few lines, sends the App to the files API."""
    fake, repo = github_app.fake, github_app.repo
    host.serve()
    for number, lowered in enumerate(({"max_files": 0}, {"max_lines": 1}, {"max_bytes": 100}), start=11):
        fake.limits = DiffLimits(**lowered)
        pull = github_app.open_pull(
            {"src/calc.py": f"def add(a, b):\n    return a + b + {number}\n"}, number=number
        )
        before = len(fake.requests)
        github_app.send_pull_request("opened", pull=pull)
        [run] = _completed(github_app, pull.head_sha)
        assert run["conclusion"] == "success", (lowered, run["output"])
        asked = [f"{r.status} {r.method} {r.path}" for r in fake.requests[before:]]
        assert any(a.startswith(f"406 GET /repos/{repo}/compare/") for a in asked), (lowered, asked)
        assert f"200 GET /repos/{repo}/pulls/{number}/files" in asked, (lowered, asked)


def test_more_files_than_github_lists_fail_closed(github_app: AppWorld, host: AppHost) -> None:
    github_app.fake.limits.max_files = 0
    files = {f"src/gen/f{n}.py": f"x = {n}\n" for n in range(3001)}
    github_app.pull = github_app.open_pull(files, number=10)
    host.serve()
    github_app.send_pull_request("opened")
    [run] = _completed(github_app, github_app.pull.head_sha, timeout=60)
    assert run["conclusion"] == "failure" and run["output"]["title"] == "too large to assess"


def test_github_failing_every_call_still_ends_the_run(github_app: AppWorld, host: AppHost) -> None:
    host.serve()
    github_app.fake.inject_server_error("GET", r"/repos/.*/compare/.*", status=502, times=1000)
    github_app.send_pull_request("opened")
    [run] = _completed(github_app, github_app.pull.head_sha, timeout=60)
    assert run["conclusion"] == "failure"
    assert "502" in run["output"]["summary"]


def _app_requests(world: AppWorld) -> list[str]:
    """The requests events cost (the start-up redelivery pass over `/app/hook/deliveries` is not one)."""
    return [
        f"{r.method} {r.path}"
        for r in world.fake.requests
        if r.path.startswith(("/app", "/repos")) and not r.path.startswith("/app/hook/")
    ]


def test_requests_per_event_grow_only_with_the_changed_files(github_app: AppWorld, host: AppHost) -> None:
    host.serve(workers=1)
    counts = {}
    for number, files in ((11, 1), (12, 5), (13, 20)):
        pull = github_app.open_pull(
            {f"src/m{number}_{n}.py": f"x = {n}\n" for n in range(files)}, number=number
        )
        before = len(_app_requests(github_app))
        github_app.send_pull_request("opened", pull=pull)
        _completed(github_app, pull.head_sha)
        wait_until(lambda: any("check-runs" in c for c in _app_requests(github_app)[before:]), what="the log")
        counts[files] = _app_requests(github_app)[before:]
    # One token for the whole run (cached), then per event: the base branch's tip (to know whether
    # merging is a fast-forward), compare twice (merge-base, diff), the
    # base manifest, the two trees (the base's cached across events), a blob per changed side not
    # seen before (content-addressed, cached), and the check-run create. `references` reads the
    # base tree's other Python modules once (then cached): they are new to the first event only.
    tokens = [c for n in counts for c in counts[n] if c.startswith("POST /app/installations")]
    assert len(tokens) == 1
    python_beside = sum(p.endswith(".py") for p in BASE_FILES)
    for files, calls in counts.items():
        per_event = [c for c in calls if not c.startswith("POST /app/installations")]
        first = python_beside if files == 1 else 0
        others = [c for c in per_event if "/git/blobs/" not in c]
        assert len(others) == (7 if files == 1 else 6), others  # the base tree: the first event only
        assert sum("/git/blobs/" in c for c in per_event) <= files + first


def test_closing_a_pull_request_ends_its_waiting_run(github_app: AppWorld, host: AppHost) -> None:
    _manifest(github_app, "version: 1\npaths:\n  allow: ['src/**']\ntests:\n  checks: [test]\n")
    host.serve()
    head = github_app.pull.head_sha
    github_app.send_pull_request("opened")
    wait_until(lambda: github_app.fake.runs_for(head, "receipt"), what="the receipt run waiting for `test`")
    github_app.pull.state = "closed"
    github_app.send_pull_request("closed")
    [run] = _completed(github_app, head)
    assert run["conclusion"] == "cancelled" and "closed" in run["output"]["summary"]

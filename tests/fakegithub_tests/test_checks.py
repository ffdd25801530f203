"""Check runs and suites: attribution, validation, listing, and the events GitHub raises for them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.fakegithub.harness import AppWorld, wait_until
from tests.fakegithub.receiver import Receiver, receiver

RUNS = "/repos/acme/widgets/check-runs"


@pytest.fixture
def rx(github_app: AppWorld) -> Iterator[Receiver]:
    with receiver() as found:
        github_app.webhooks_to(found.url)
        yield found


@pytest.fixture
def token(github_app: AppWorld) -> str:
    gh = github_app.app_client()
    return gh.rest.apps.create_installation_access_token(github_app.installation.id).parsed_data.token


def _post(world: AppWorld, token: str, path: str, body: Any) -> httpx.Response:
    return httpx.post(world.api_url + path, json=body, headers={"Authorization": f"token {token}"})


def _patch(world: AppWorld, token: str, path: str, body: Any) -> httpx.Response:
    return httpx.patch(world.api_url + path, json=body, headers={"Authorization": f"token {token}"})


def _get(world: AppWorld, token: str, path: str, **params: Any) -> httpx.Response:
    return httpx.get(world.api_url + path, params=params, headers={"Authorization": f"token {token}"})


def _events(world: AppWorld, rx: Receiver) -> list[tuple[str, str]]:
    import json

    world.fake.wait_for_deliveries()
    return [(r.headers["x-github-event"], json.loads(r.body)["action"]) for r in rx.received]


ANNOTATION = {
    "path": "src/calc.py",
    "start_line": 1,
    "end_line": 1,
    "annotation_level": "failure",
    "message": "m",
}


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"output": {"title": "t", "summary": "x" * 65_536}}, "output/summary"),
        ({"output": {"title": "t", "summary": "s", "text": "x" * 65_536}}, "output/text"),
        ({"output": {"summary": "s"}}, "output/title"),
        ({"output": {"title": "t", "summary": "s", "annotations": [ANNOTATION] * 51}}, "output/annotations"),
        ({"output": {"title": "t", "summary": "s", "annotations": [{**ANNOTATION, "annotation_level": "error"}]}},
         "output/annotations/0/annotation_level"),
        ({"output": {"title": "t", "summary": "s", "annotations": [{k: v for k, v in ANNOTATION.items() if k != "path"}]}},
         "output/annotations/0/path"),
        ({"output": {"title": "t", "summary": "s", "annotations": [{**ANNOTATION, "start_line": 3, "end_line": 2}]}},
         "output/annotations/0"),
        ({"actions": [{"label": "l", "description": "d", "identifier": str(n)} for n in range(4)]}, "actions"),
        ({"actions": [{"label": "x" * 21, "description": "d", "identifier": "i"}]}, "actions/0/label"),
        ({"actions": [{"label": "l", "description": "x" * 41, "identifier": "i"}]}, "actions/0/description"),
        ({"actions": [{"label": "l", "description": "d", "identifier": "x" * 21}]}, "actions/0/identifier"),
        ({"status": "completed"}, "conclusion"),
        ({"conclusion": "passed"}, "conclusion"),
        ({"conclusion": "stale"}, "conclusion"),
        ({"status": "waiting"}, "status"),
        ({"completed_at": "2026-01-01T00:00:00Z"}, "conclusion"),
        ({"conclusion": "success", "completed_at": "yesterday"}, "completed_at"),
        ({"external_id": 7}, "external_id"),
    ],
)  # fmt: skip
def test_invalid_bodies_are_422_naming_the_field(
    github_app: AppWorld, token: str, change: dict[str, Any], where: str
) -> None:
    body = {"name": "receipt", "head_sha": github_app.pull.head_sha, **change}
    answer = _post(github_app, token, RUNS, body)
    assert answer.status_code == 422, answer.text
    assert f"\n{where}: " in answer.json()["message"]
    assert answer.json()["documentation_url"].endswith("#create-a-check-run")


def test_the_limits_themselves_are_accepted(github_app: AppWorld, token: str) -> None:
    body = {
        "name": "receipt", "head_sha": github_app.pull.head_sha, "conclusion": "neutral",
        "details_url": "https://receipt.example/receipts/1", "external_id": "abc",
        "output": {"title": "t", "summary": "x" * 65_535, "text": "y" * 65_535, "annotations": [ANNOTATION] * 50},
        "actions": [{"label": "x" * 20, "description": "y" * 40, "identifier": f"{n}" * 20} for n in range(3)],
    }  # fmt: skip
    answer = _post(github_app, token, RUNS, body)
    assert answer.status_code == 201, answer.text
    run = answer.json()
    assert (run["status"], run["conclusion"], run["external_id"]) == ("completed", "neutral", "abc")
    assert run["output"]["annotations_count"] == 50
    more = _patch(
        github_app,
        token,
        f"{RUNS}/{run['id']}",
        {"output": {"title": "t", "summary": "s", "annotations": [ANNOTATION] * 50}},
    )
    assert more.json()["output"]["annotations_count"] == 100
    missing = _post(github_app, token, RUNS, {"name": "r", "head_sha": "f" * 40})
    assert (missing.status_code, missing.json()["message"]) == (
        422,
        "Invalid request.\n\nhead_sha: No commit found for SHA: " + "f" * 40,
    )


def test_runs_belong_to_their_app_and_its_suite(github_app: AppWorld, token: str) -> None:
    head = github_app.pull.head_sha
    first = _post(github_app, token, RUNS, {"name": "receipt", "head_sha": head}).json()
    second = _post(github_app, token, RUNS, {"name": "receipt", "head_sha": head}).json()
    assert first["app"]["id"] == github_app.app.id and first["app"]["slug"] == "receipt"
    assert first["check_suite"]["id"] == second["check_suite"]["id"]
    ci = github_app.fake.add_check_run(github_app.repo, head, "test", emit=False)
    assert ci["app"]["slug"] == "github-actions" and ci["check_suite"]["id"] != first["check_suite"]["id"]
    assert [p["number"] for p in first["pull_requests"]] == [7]
    other = _patch(github_app, "ghs_" + "x", f"{RUNS}/{ci['id']}", {"status": "in_progress"})
    assert other.status_code == 401
    refused = _patch(github_app, token, f"{RUNS}/{ci['id']}", {"status": "in_progress"})
    assert (
        refused.status_code == 403
        and "only be modified by the GitHub App that created it" in refused.json()["message"]
    )


def test_fork_heads_get_an_empty_pull_requests_list(github_app: AppWorld, token: str) -> None:
    fork = github_app.open_pull({"src/calc.py": "x = 1\n"}, number=8, fork=True)
    run = _post(github_app, token, RUNS, {"name": "receipt", "head_sha": fork.head_sha}).json()
    assert run["pull_requests"] == []
    wf = github_app.fake.add_workflow_run(github_app.repo, fork.head_sha, emit=False)
    assert wf["pull_requests"] == [] and wf["head_repository"]["full_name"] == "mallory/widgets"


def test_listing_runs_for_a_ref_with_githubs_filters(github_app: AppWorld, token: str) -> None:
    fake, head = github_app.fake, github_app.pull.head_sha
    old = fake.add_check_run(
        github_app.repo, head, "test", status="completed", conclusion="failure", emit=False
    )
    new = fake.add_check_run(github_app.repo, head, "test", status="in_progress", emit=False)
    lint = fake.add_check_run(
        github_app.repo, head, "lint", status="completed", conclusion="success", emit=False
    )
    mine = _post(github_app, token, RUNS, {"name": "receipt", "head_sha": head}).json()
    path = f"/repos/acme/widgets/commits/{head}/check-runs"

    def ids(**params: Any) -> list[int]:
        answer = _get(github_app, token, path, **params).json()
        assert answer["total_count"] == len(answer["check_runs"]) or "per_page" in params
        return [r["id"] for r in answer["check_runs"]]

    assert ids() == [mine["id"], lint["id"], new["id"]]
    assert ids(filter="all") == [mine["id"], lint["id"], new["id"], old["id"]]
    assert ids(check_name="test", filter="all") == [new["id"], old["id"]]
    assert ids(status="completed") == [lint["id"]]
    assert ids(app_id=github_app.app.id) == [mine["id"]]
    assert ids(per_page=2, page=2, filter="all") == [new["id"], old["id"]]
    paged = _get(github_app, token, path, per_page=2, filter="all")
    assert paged.json()["total_count"] == 4 and 'rel="next"' in paged.headers["link"]
    assert (
        _get(github_app, token, "/repos/acme/widgets/commits/feature/check-runs").json()["total_count"] == 3
    )
    assert _get(github_app, token, path, status="done").status_code == 422
    suites = _get(github_app, token, f"/repos/acme/widgets/commits/{head}/check-suites").json()
    assert suites["total_count"] == 2
    assert {s["app"]["slug"] for s in suites["check_suites"]} == {"github-actions", "receipt"}


def test_the_creator_sees_its_own_runs_echoed_and_the_suite_completing(
    github_app: AppWorld, rx: Receiver, token: str
) -> None:
    head = github_app.pull.head_sha
    run = _post(
        github_app, token, RUNS, {"name": "receipt", "head_sha": head, "status": "in_progress"}
    ).json()
    assert _events(github_app, rx) == [("check_run", "created")]
    _patch(github_app, token, f"{RUNS}/{run['id']}", {"conclusion": "success"})
    assert _events(github_app, rx)[1:] == [("check_run", "completed"), ("check_suite", "completed")]
    echoed = github_app.fake.deliveries_for(github_app.app.id, "check_run", "completed")[0].payload()
    assert echoed["check_run"]["app"]["id"] == github_app.app.id
    assert echoed["sender"]["login"] == "receipt[bot]"


def test_other_apps_runs_reach_subscribed_apps_and_user_clicks_reach_only_the_owner(
    github_app: AppWorld, rx: Receiver, token: str
) -> None:
    fake, head = github_app.fake, github_app.pull.head_sha
    ci = fake.add_check_run(github_app.repo, head, "test", status="in_progress")
    fake.complete_check_run(ci["id"], "failure")
    assert _events(github_app, rx) == [
        ("check_run", "created"),
        ("check_run", "completed"),
        ("check_suite", "completed"),
    ]
    assert fake.rerequest_check_run(ci["id"]) is None, (
        "a github-actions run is rerequested to Actions, not to us"
    )
    actions = [{"label": "Re-evaluate", "description": "Run receipt again", "identifier": "reevaluate"}]
    mine = _post(
        github_app,
        token,
        RUNS,
        {"name": "receipt", "head_sha": head, "conclusion": "failure", "actions": actions},
    ).json()
    clicked = fake.request_action(mine["id"], "reevaluate")
    assert clicked is not None and clicked.payload()["requested_action"] == {"identifier": "reevaluate"}
    with pytest.raises(ValueError, match="offers no button"):
        fake.request_action(mine["id"], "delete-everything")
    rerun = fake.rerequest_check_run(mine["id"])
    assert rerun is not None and rerun.payload()["check_run"]["id"] == mine["id"]
    suite = fake.check_suites[mine["check_suite"]["id"]]
    assert (suite["status"], suite["conclusion"]) == ("queued", None)
    again = fake.rerequest_check_suite(suite["id"])
    assert again is not None and again.payload()["action"] == "rerequested"


def test_apps_without_the_event_or_permission_hear_nothing(github_app: AppWorld, rx: Receiver) -> None:
    github_app.installation.events.remove("check_run")
    github_app.fake.add_check_run(
        github_app.repo, github_app.pull.head_sha, "test", status="completed", conclusion="success"
    )
    assert _events(github_app, rx) == [("check_suite", "completed")]
    github_app.installation.permissions.pop("checks")
    github_app.fake.add_check_run(
        github_app.repo, github_app.pull.head_sha, "lint", status="completed", conclusion="success"
    )
    assert len(_events(github_app, rx)) == 1


def test_rerequest_through_the_api(github_app: AppWorld, rx: Receiver, token: str) -> None:
    head = github_app.pull.head_sha
    run = _post(
        github_app, token, RUNS, {"name": "receipt", "head_sha": head, "conclusion": "success"}
    ).json()
    assert _post(github_app, token, f"{RUNS}/{run['id']}/rerequest", {}).status_code == 201
    wait_until(lambda: ("check_run", "rerequested") in _events(github_app, rx), what="check_run.rerequested")
    ci = github_app.fake.add_check_run(github_app.repo, head, "test", emit=False)
    assert _post(github_app, token, f"{RUNS}/{ci['id']}/rerequest", {}).status_code == 403

"""Rate limits and failures as GitHub sends them: headers on every answer, the hourly quota, the
secondary limits, 5xx, slow answers and dropped connections."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from githubkit.exception import PrimaryRateLimitExceeded, RequestFailed, SecondaryRateLimitExceeded

from tests.fakegithub.harness import AppWorld, build_world, wait_until
from tests.fakegithub.ratelimit import SECONDARY_DOCS

PULL = "/repos/acme/widgets/pulls/7"


@pytest.fixture
def token(github_app: AppWorld) -> str:
    gh = github_app.app_client()
    return gh.rest.apps.create_installation_access_token(github_app.installation.id).parsed_data.token


def _get(world: AppWorld, path: str, token: str | None, **kw: Any) -> httpx.Response:
    headers = {"Authorization": f"token {token}"} if token else {}
    return httpx.get(world.api_url + path, headers=headers, **kw)


def test_every_answer_carries_rate_limit_headers_and_a_request_id(github_app: AppWorld, token: str) -> None:
    for answer in (_get(github_app, PULL, token), _get(github_app, "/repos/acme/widgets/pulls/99", token),
                   _get(github_app, PULL, None), _get(github_app, PULL, "ghs_bogus")):  # fmt: skip
        for name in ("limit", "remaining", "used", "reset", "resource"):
            assert f"x-ratelimit-{name}" in answer.headers, (answer.status_code, name)
        assert re.fullmatch(
            r"[0-9A-F]{4}:[0-9A-F]{4}:[0-9A-F]{6}:[0-9A-F]{6}:[0-9A-F]{8}",
            answer.headers["x-github-request-id"],
        )
    first, second = _get(github_app, PULL, token), _get(github_app, PULL, token)
    assert int(second.headers["x-ratelimit-used"]) == int(first.headers["x-ratelimit-used"]) + 1
    assert int(second.headers["x-ratelimit-remaining"]) == 5000 - int(second.headers["x-ratelimit-used"])
    assert 0 < int(second.headers["x-ratelimit-reset"]) - time.time() <= 3601
    assert _get(github_app, PULL, None).headers["x-ratelimit-limit"] == "60"


def test_the_hourly_quota_is_the_installations_whichever_token_spends_it(
    github_app: AppWorld, token: str
) -> None:
    github_app.fake.rate.limit = 3
    gh = github_app.app_client()
    other = gh.rest.apps.create_installation_access_token(github_app.installation.id).parsed_data.token
    assert [_get(github_app, PULL, t).status_code for t in (token, other, token)] == [200, 200, 200]
    over = _get(github_app, PULL, other)
    assert over.status_code == 403 and over.headers["x-ratelimit-remaining"] == "0"
    assert (
        over.json()["message"] == f"API rate limit exceeded for installation ID {github_app.installation.id}."
    )
    client = github_app.installation_client()
    with pytest.raises(PrimaryRateLimitExceeded):
        client.rest.pulls.get("acme", "widgets", 7)


def test_injected_secondary_limits_carry_retry_after(github_app: AppWorld) -> None:
    fake = github_app.fake
    fake.inject_secondary_rate_limit("GET", PULL, retry_after=7)
    fake.inject_secondary_rate_limit("POST", r"/repos/acme/widgets/check-runs", status=429, retry_after=3)
    gh = github_app.installation_client()
    with pytest.raises(SecondaryRateLimitExceeded) as caught:
        gh.rest.pulls.get("acme", "widgets", 7)
    assert caught.value.retry_after.total_seconds() == 7
    body = caught.value.response.json()
    assert (
        body["message"].startswith("You have exceeded a secondary rate limit.")
        and body["documentation_url"] == SECONDARY_DOCS
    )
    with pytest.raises(SecondaryRateLimitExceeded):
        gh.rest.checks.create("acme", "widgets", data={"name": "r", "head_sha": github_app.pull.head_sha})
    assert gh.rest.pulls.get("acme", "widgets", 7).status_code == 200, "only `times` requests are refused"


def test_content_creating_requests_are_limited_per_minute_when_asked(
    github_app: AppWorld, token: str
) -> None:
    github_app.fake.rate.content_per_minute = 80
    url = github_app.api_url + "/repos/acme/widgets/check-runs"
    body = {"name": "r", "head_sha": github_app.pull.head_sha}
    with httpx.Client(headers={"Authorization": f"token {token}"}) as client:
        codes = [client.post(url, json=body).status_code for _ in range(81)]
        assert codes[:80] == [201] * 80
        assert codes[80] == 403
        refused = client.post(url, json=body)
        assert 0 < int(refused.headers["retry-after"]) <= 60
        assert "secondary rate limit" in refused.json()["message"]
        assert client.get(github_app.api_url + PULL).status_code == 200, "reads are not content-creating"


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_server_errors_have_githubs_bodies(github_app: AppWorld, token: str, status: int) -> None:
    github_app.fake.inject_server_error("GET", PULL, status=status, times=2)
    answers = [_get(github_app, PULL, token) for _ in range(3)]
    assert [a.status_code for a in answers] == [status, status, 200]
    assert set(answers[0].json()) == {"message", "documentation_url"}
    gh = github_app.installation_client()
    github_app.fake.inject_server_error("GET", PULL, status=status)
    with pytest.raises(RequestFailed):
        gh.rest.pulls.get("acme", "widgets", 7)


def test_slow_answers_and_dropped_connections(github_app: AppWorld, token: str) -> None:
    github_app.fake.inject_delay("GET", PULL, 1.0)
    with pytest.raises(httpx.ReadTimeout):
        _get(github_app, PULL, token, timeout=0.2)
    github_app.fake.inject_delay("GET", PULL, 0.2)
    assert _get(github_app, PULL, token, timeout=5).status_code == 200, "a delay then serves the request"
    github_app.fake.inject_connection_reset("GET", PULL, times=2)
    for _ in range(2):
        with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
            _get(github_app, PULL, token)
    assert _get(github_app, PULL, token).status_code == 200


def test_a_request_held_past_a_reset_reaches_nothing_of_the_next_test(
    github_app: AppWorld, token: str, tmp_path: Path
) -> None:
    """A delay can outlive the test that injected it (its App killed while GitHub was slow): the
    request is then answered without touching the state or the log the fake was reset to."""
    held = github_app.fake.inject_delay("POST", r"/repos/acme/widgets/check-runs", 1.0)
    body = {"name": "receipt", "head_sha": github_app.pull.head_sha}
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(httpx.post, f"{github_app.api_url}/repos/acme/widgets/check-runs", json=body,
                             headers={"Authorization": f"token {token}"}, timeout=30)  # fmt: skip
        wait_until(lambda: held.times == 0, what="the request held")
        github_app.server.state.reset()
        after = build_world(github_app.server, tmp_path / "next")  # the next test's world
        assert answer.result().status_code == 503
    assert after.fake.requests == [] and after.fake.runs_for(after.pull.head_sha) == []


def test_rate_limit_endpoint_reports_without_spending(github_app: AppWorld, token: str) -> None:
    _get(github_app, PULL, token)
    gh = github_app.installation_client()
    first = gh.rest.rate_limit.get().parsed_data
    second = gh.rest.rate_limit.get().parsed_data
    assert first.resources.core.used == second.resources.core.used >= 1


def test_unknown_routes_answer_in_githubs_shape(github_app: AppWorld, token: str) -> None:
    answer = _get(github_app, "/repos/acme/widgets/no-such-thing", token)
    assert answer.status_code == 404 and set(answer.json()) == {"message", "documentation_url", "status"}
    bad_query = _get(github_app, "/repos/acme/widgets/pulls", token, params={"per_page": "many"})
    assert bad_query.status_code == 422 and "per_page" in bad_query.json()["message"]


def test_content_creating_requests_are_limited_per_hour_when_asked(github_app: AppWorld, token: str) -> None:
    github_app.fake.rate.content_per_hour = 3
    url = github_app.api_url + "/repos/acme/widgets/check-runs"
    body = {"name": "r", "head_sha": github_app.pull.head_sha}
    with httpx.Client(headers={"Authorization": f"token {token}"}) as client:
        codes = [client.post(url, json=body).status_code for _ in range(4)]
        assert codes == [201, 201, 201, 403]
        assert 3500 < int(client.post(url, json=body).headers["retry-after"]) <= 3600

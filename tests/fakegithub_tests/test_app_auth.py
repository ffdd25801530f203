"""App JWTs and installation tokens, checked as GitHub checks them (status codes and messages)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
import jwt
import pytest

from bot.engine.content.checksums import crc32_token_valid
from tests.fakegithub import jwtcheck
from tests.fakegithub.apps import generate_key_pair
from tests.fakegithub.harness import AppWorld

PULL = "/repos/acme/widgets/pulls/7"


def _jwt(world: AppWorld, *, key: str | None = None, alg: str = "RS256", **claims: Any) -> str:
    now = int(time.time())
    body: dict[str, Any] = {"iss": str(world.app.id), "iat": now - 60, "exp": now + 540}
    body.update(claims)
    body = {k: v for k, v in body.items() if v is not None}
    # PyJWS, not jwt.encode: PyJWT refuses to sign an integer `iss`, which GitHub accepts.
    return jwt.PyJWS().encode(json.dumps(body).encode(), key or world.keys.private_pem, algorithm=alg)


def _get(world: AppWorld, path: str, credential: str, scheme: str = "Bearer") -> httpx.Response:
    return httpx.get(world.api_url + path, headers={"Authorization": f"{scheme} {credential}"})


def _post(world: AppWorld, path: str, credential: str, body: Any = None) -> httpx.Response:
    return httpx.post(
        world.api_url + path, headers={"Authorization": f"Bearer {credential}"}, json=body or {}
    )


def _token(world: AppWorld, body: Any = None) -> httpx.Response:
    return _post(world, f"/app/installations/{world.installation.id}/access_tokens", _jwt(world), body)


def test_githubkit_sends_iss_as_a_string_and_both_forms_are_accepted(github_app: AppWorld) -> None:
    gh = github_app.app_client()
    gh.rest.apps.get_authenticated()
    sent = github_app.fake.requests[-1].credential
    assert jwt.decode(sent, options={"verify_signature": False})["iss"] == str(github_app.app.id)
    assert _get(github_app, "/app", _jwt(github_app, iss=github_app.app.id)).status_code == 200
    assert (
        _get(github_app, "/app", _jwt(github_app, iss=github_app.app.client_id)).json()["id"]
        == github_app.app.id
    )


@pytest.mark.parametrize(
    ("claims", "message"),
    [
        (lambda now: {"exp": now - 1}, jwtcheck.EXP_PAST),
        (lambda now: {"iat": now - 60, "exp": now + 541}, jwtcheck.EXP_TOO_FAR),
        (lambda now: {"iat": now + 30}, jwtcheck.IAT_INVALID),
        (lambda now: {"iat": now - 30.5}, jwtcheck.IAT_INVALID),
        (lambda now: {"iss": None}, jwtcheck.ISS_MISSING),
        (lambda now: {"iss": "twelve"}, jwtcheck.ISS_INVALID),
        (lambda now: {"iss": "999999999"}, jwtcheck.NOT_DECODED),
        (lambda now: {"exp": None}, jwtcheck.EXP_MISSING),
        (lambda now: {"iat": None}, jwtcheck.IAT_MISSING),
    ],
)  # fmt: skip
def test_bad_claims_are_401_with_githubs_message(
    github_app: AppWorld, claims: Callable[[int], dict[str, Any]], message: str
) -> None:
    answer = _get(github_app, "/app", _jwt(github_app, **claims(int(time.time()))))
    assert (answer.status_code, answer.json()["message"]) == (401, message)


def test_exp_exactly_ten_minutes_after_iat_is_accepted_one_second_more_is_not(github_app: AppWorld) -> None:
    now = int(time.time())
    assert _get(github_app, "/app", _jwt(github_app, iat=now - 30, exp=now + 570)).status_code == 200
    assert _get(github_app, "/app", _jwt(github_app, iat=now - 30, exp=now + 571)).status_code == 401


def test_a_jwt_signed_by_another_key_or_algorithm_cannot_be_decoded(github_app: AppWorld) -> None:
    other = generate_key_pair().private_pem
    for credential in (
        _jwt(github_app, key=other),
        _jwt(github_app, key="an HMAC secret of thirty-two bytes!", alg="HS256"),
        "eyJ.e30.x",
    ):
        answer = _get(github_app, "/app", credential)
        assert (answer.status_code, answer.json()["message"]) == (401, jwtcheck.NOT_DECODED)


def test_the_fakes_clock_ages_jwts(github_app: AppWorld) -> None:
    github_app.fake.clock_offset = timedelta(minutes=11)
    assert _get(github_app, "/app", _jwt(github_app)).json()["message"] == jwtcheck.EXP_PAST
    github_app.fake.clock_offset = timedelta(minutes=-2)
    assert _get(github_app, "/app", _jwt(github_app)).json()["message"] == jwtcheck.IAT_INVALID


def test_credentials_only_work_where_github_accepts_them(github_app: AppWorld) -> None:
    token = _token(github_app).json()["token"]
    on_app = _get(github_app, "/app/installations", token)
    assert (on_app.status_code, on_app.json()["message"]) == (401, jwtcheck.NOT_DECODED)
    jwt_on_repo = _get(github_app, PULL, _jwt(github_app))
    assert (jwt_on_repo.status_code, jwt_on_repo.json()["message"]) == (
        403,
        "Resource not accessible by integration",
    )
    assert _get(github_app, PULL, token, scheme="token").status_code == 200
    assert _get(github_app, PULL, token).status_code == 200
    assert httpx.get(github_app.api_url + PULL).json()["message"] == "Requires authentication"
    assert _get(github_app, PULL, "ghs_not_a_token_github_issued").json()["message"] == "Bad credentials"


def test_an_installation_token_as_github_issues_it(github_app: AppWorld) -> None:
    answer = _token(github_app)
    assert answer.status_code == 201
    body = answer.json()
    assert set(body) == {"token", "expires_at", "permissions", "repository_selection", "repositories"}
    assert body["token"].startswith("ghs_") and len(body["token"]) == 40 and crc32_token_valid(body["token"])
    assert time.strptime(body["expires_at"], "%Y-%m-%dT%H:%M:%SZ")
    assert body["permissions"] == github_app.installation.permissions
    assert body["repository_selection"] == "selected"
    assert [r["full_name"] for r in body["repositories"]] == ["acme/widgets"]
    assert _token(github_app).json()["token"] != body["token"]


def test_tokens_expire_after_the_ttl_and_can_be_revoked(github_app: AppWorld) -> None:
    github_app.fake.token_ttl = timedelta(seconds=30)
    token = _token(github_app).json()["token"]
    assert _get(github_app, PULL, token).status_code == 200
    github_app.fake.clock_offset = timedelta(seconds=31)
    expired = _get(github_app, PULL, token)
    assert (expired.status_code, expired.json()["message"]) == (401, "Bad credentials")
    github_app.fake.clock_offset = timedelta()
    fresh = _token(github_app).json()["token"]
    github_app.fake.revoke_token(fresh)
    assert _get(github_app, PULL, fresh).status_code == 401


def test_a_token_sees_only_the_installations_repositories(github_app: AppWorld, tmp_path: Any) -> None:
    from tests.gitrepo import GitRepo

    other = GitRepo.create(tmp_path / "other")
    other.write("a.txt", "a\n")
    other.commit()
    github_app.fake.add_repo("acme/other", other.root)
    token = _token(github_app).json()["token"]
    assert _get(github_app, "/repos/acme/other", token).status_code == 404
    assert _get(github_app, "/repos/acme/widgets", token).status_code == 200
    assert _get(github_app, "/repos/acme/other/installation", _jwt(github_app)).status_code == 404


def test_narrowed_tokens(github_app: AppWorld) -> None:
    narrowed = _token(github_app, {"permissions": {"contents": "read"}}).json()
    assert narrowed["permissions"] == {"contents": "read"}
    head = github_app.pull.head_sha
    created = _post(
        github_app, "/repos/acme/widgets/check-runs", narrowed["token"], {"name": "x", "head_sha": head}
    )
    assert (created.status_code, created.json()["message"]) == (403, "Resource not accessible by integration")
    assert created.headers["x-accepted-github-permissions"] == "checks=write"
    assert _get(github_app, PULL, narrowed["token"]).status_code == 403
    refused = _token(github_app, {"permissions": {"administration": "write"}})
    assert (refused.status_code, refused.json()["message"]) == (
        422,
        "The permissions requested are not granted to this installation.",
    )
    unknown = _token(github_app, {"repositories": ["elsewhere"]})
    assert (
        unknown.status_code == 422
        and "not accessible to the parent installation" in unknown.json()["message"]
    )
    by_id = _token(github_app, {"repository_ids": [github_app.fake.repo_id("acme/widgets")]}).json()
    assert by_id["repository_selection"] == "selected" and len(by_id["repositories"]) == 1


def test_write_permissions_are_enforced(github_app: AppWorld) -> None:
    github_app.installation.permissions["checks"] = "read"
    token = _token(github_app).json()["token"]
    head = github_app.pull.head_sha
    refused = _post(github_app, "/repos/acme/widgets/check-runs", token, {"name": "x", "head_sha": head})
    assert refused.status_code == 403 and refused.headers["x-accepted-github-permissions"] == "checks=write"
    assert _get(github_app, f"/repos/acme/widgets/commits/{head}/check-runs", token).status_code == 200


def test_installations_of_the_app(github_app: AppWorld) -> None:
    answer = _get(github_app, "/app/installations", _jwt(github_app))
    assert [i["id"] for i in answer.json()] == [github_app.installation.id]
    other_app = github_app.fake.add_app(
        github_app.fake.next_app_id(), "other", public_key_pem=github_app.keys.public_pem
    )
    other_jwt = _jwt(github_app, iss=str(other_app.id))
    assert _get(github_app, "/app/installations", other_jwt).json() == []
    assert _get(github_app, f"/app/installations/{github_app.installation.id}", other_jwt).status_code == 404
    github_app.installation.suspended_at = "2026-01-01T00:00:00Z"
    suspended = _token(github_app)
    assert (suspended.status_code, suspended.json()["message"]) == (
        403,
        "This installation has been suspended",
    )


def test_an_installation_lists_its_repositories(github_app: AppWorld) -> None:
    gh = github_app.installation_client()
    listed = gh.rest.apps.list_repos_accessible_to_installation().parsed_data
    assert (listed.total_count, [r.full_name for r in listed.repositories]) == (1, ["acme/widgets"])
    assert _get(github_app, "/installation/repositories", _jwt(github_app)).status_code == 403

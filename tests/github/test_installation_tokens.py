"""Installation tokens as GitHub issues them (the fake's, expiring): one is reused until five
minutes before it expires, and one GitHub refused is dropped for a new one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.github.auth import AppCredentials, InstallationTokens
from bot.github.errors import GitHubError, translated
from tests.fakegithub.harness import AppWorld

PULL = "/repos/acme/widgets/pulls/7"


def _tokens(world: AppWorld, now: list[datetime]) -> InstallationTokens:
    credentials = AppCredentials(world.app.id, world.keys.private_pem, world.api_url)
    return InstallationTokens(credentials, clock=lambda: now[0])


def _issued(world: AppWorld) -> int:
    return len(world.fake.calls("POST", r"/app/installations/\d+/access_tokens"))


def test_a_token_is_reused_until_five_minutes_before_it_expires(github_app: AppWorld) -> None:
    fake, installation = github_app.fake, github_app.installation.id
    fake.token_ttl = timedelta(minutes=10)
    now = [datetime.now(UTC)]
    tokens = _tokens(github_app, now)

    def at(moment: datetime) -> None:  # the App's clock and GitHub's alike
        now[0], fake.clock_offset = moment, moment - datetime.now(UTC)

    first = tokens.token(installation)
    expires = fake.issued[first].expires_at
    at(expires - timedelta(minutes=5, seconds=1))
    assert tokens.token(installation) == first and _issued(github_app) == 1
    assert tokens.client(installation).request("GET", PULL).status_code == 200, "GitHub still takes it"
    at(expires - timedelta(minutes=5))
    second = tokens.token(installation)
    assert second != first and _issued(github_app) == 2
    assert tokens.client(installation).request("GET", PULL).status_code == 200
    assert tokens.token(installation) == second and _issued(github_app) == 2, "the new one is kept in turn"


def test_a_token_github_refused_is_dropped_and_the_next_one_is_fresh(github_app: AppWorld) -> None:
    installation = github_app.installation.id
    tokens = _tokens(github_app, [datetime.now(UTC)])
    revoked = tokens.token(installation)
    github_app.fake.revoke_token(revoked)
    gh = tokens.client(installation)
    with pytest.raises(GitHubError) as refused, translated():
        gh.rest.pulls.get("acme", "widgets", 7)
    assert refused.value.status == 401
    assert tokens.token(installation) == revoked, "cached until the caller says GitHub refused it"
    tokens.invalidate(installation)  # what a job that met the 401 does (test_durability)
    fresh = tokens.token(installation)
    assert fresh != revoked and tokens.client(installation).request("GET", PULL).status_code == 200

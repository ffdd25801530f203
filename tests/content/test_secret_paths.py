"""A verified secret is reported wherever it is.

gitleaks' global allowlist skips whole paths (vendored code, lockfiles, images, virtualenvs) because
generic detectors are noisy there. A pull request that adds such a directory is exactly what the
check exists for: a token whose checksum verifies, a private key (PEM, or wrapped in base64) and a
JWT whose header decodes are reported in those paths too. Only unverifiable matches stay silenced.
"""

from __future__ import annotations

import base64

import pytest

from bot.engine.content.secrets import SecretsRule
from tests.content.helpers import change_of, checksummed, fake_aws_key_id, fake_base64, scan, where
from tests.gitrepo import GitRepo

RANDOM = "q7Zt2LmW9xK4pR8vN3bC6yF1hJ5sD0"
ALLOWLISTED = [
    "node_modules/left-pad/index.js",
    "web/node_modules/@scope/pkg/dist/index.js",
    "vendor/bundle/ruby/3.2.0/gems/x/lib/x.rb",
    "vendor/github.com/acme/lib/client.go",
    "site-packages/requests-2.31.0.dist-info/METADATA",
    "assets/logo.svg",
    "assets/Logo.PNG",
    "static/js/jquery-3.7.1.min.js",
    "static/bootstrap.bundle.min.js",
    "env/lib/python3.11/site-packages/pkg/__init__.py",
    "venv/lib/python3.12/settings.py",
    "lib/python3.11/site.py",
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "Pipfile.lock",
    "poetry.lock",
    "go.sum",
    "bower_components/x/x.js",
    "gradlew",
    "docs/manual.pdf",
    "fonts/x.woff2",
]


def _pem(kind: str = "RSA PRIVATE KEY") -> str:
    body = fake_base64(kind, 64 * 12)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "\n".join([f"-----BEGIN {kind}-----", *lines, f"-----END {kind}-----"])


def _pem_base64() -> str:
    pem = f"-----BEGIN EC PRIVATE KEY-----\n{fake_base64('ec', 900)}\n-----END EC PRIVATE KEY-----\n"
    return base64.b64encode(pem.encode()).decode()


def _jwt() -> str:
    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).decode().rstrip("=")

    return part(b'{"alg":"HS256","typ":"JWT"}') + "." + part(b'{"role":"service_role","iss":"supabase"}')


VERIFIED = {
    "github-pat": f"token = {checksummed('ghp', RANDOM)}",
    "github-oauth": f"token = {checksummed('gho', RANDOM)}",
    "github-app-token": f"u = {checksummed('ghu', RANDOM)}\ns = {checksummed('ghs', RANDOM[::-1])}",
    "github-refresh-token": f"r = {checksummed('ghr', RANDOM)}",
    "npm-access-token": f"//registry.npmjs.org/:_authToken={checksummed('npm', RANDOM)}",
    "private-key": _pem(),
    "private-key-base64": f"KEY={_pem_base64()}",
    "jwt": f'const key = "{_jwt()}";',
}


@pytest.mark.parametrize("path", ALLOWLISTED)
@pytest.mark.parametrize("detector", sorted(VERIFIED))
def test_a_verified_secret_is_reported_in_an_allowlisted_path(
    repo: GitRepo, path: str, detector: str
) -> None:
    found = scan(SecretsRule(), change_of(repo, {path: VERIFIED[detector] + "\n"}))
    assert {v.id for v in found} == {detector}, where(found)
    assert all(v.path == path for v in found)


def test_every_verified_format_is_reported_outside_allowlisted_paths_too(repo: GitRepo) -> None:
    files = {f"src/{name}.txt": text + "\n" for name, text in VERIFIED.items()}
    found = scan(SecretsRule(), change_of(repo, files))
    assert {(v.path, v.id) for v in found} == {(f"src/{name}.txt", name) for name in VERIFIED}


def _broken(token: str) -> str:
    return token[:-1] + ("A" if token[-1] != "A" else "B")


UNVERIFIED = {
    "generic-api-key": 'api_key = "Xk9fQ2mZpL7aB3cD8eF1gH4j"',
    "github-pat": f"token = {_broken(checksummed('ghp', RANDOM))}",  # its checksum fails
    "aws-access-token": f"aws_access_key_id = {fake_aws_key_id('vendored')}",
    "slack-bot-token": "xoxb-2952829263-1293873462837-Ah1dk2Lm4Nq7Rs9Tv0Wx3Yz5",
}


@pytest.mark.parametrize("path", ["node_modules/pkg/index.js", "assets/logo.svg", "package-lock.json"])
@pytest.mark.parametrize("detector", sorted(UNVERIFIED))
def test_an_unverifiable_match_in_an_allowlisted_path_stays_quiet(
    repo: GitRepo, path: str, detector: str
) -> None:
    assert scan(SecretsRule(), change_of(repo, {path: UNVERIFIED[detector] + "\n"})) == []


@pytest.mark.parametrize("detector", sorted(UNVERIFIED))
def test_the_same_unverifiable_matches_are_reported_elsewhere(repo: GitRepo, detector: str) -> None:
    found = scan(SecretsRule(), change_of(repo, {"src/config.py": UNVERIFIED[detector] + "\n"}))
    assert [v.id for v in found] == [detector]


def test_a_rule_allowlist_path_drops_only_unverified_tokens(repo: GitRepo) -> None:
    path = "node_modules/@octokit/auth-token/README.md"
    good, bad = checksummed("ghp", RANDOM), _broken(checksummed("ghp", RANDOM[::-1]))
    found = scan(SecretsRule(), change_of(repo, {path: f"a {good}\nb {bad}\n", "docs/x.md": f"b {bad}\n"}))
    assert sorted(where(found)) == [("docs/x.md", 1, "github-pat"), (path, 1, "github-pat")]

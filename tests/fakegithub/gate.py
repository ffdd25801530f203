"""Who a request is and what it may do, decided as GitHub decides it, before any route runs.

Three kinds of credential: a plain token (`add_token`, every repository, write when allowed), an App
JWT (`Authorization: Bearer <jwt>`, only the `/app…` routes and `/repos/{o}/{r}/installation`) and an
installation token (only the installation's repositories, only its permissions). A repository the
credential cannot see is 404; a permission it lacks is 403 "Resource not accessible by integration"
with `x-accepted-github-permissions`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from tests.fakegithub import shapes
from tests.fakegithub.apps import FakeApp, FakeInstallation, IssuedToken, grants
from tests.fakegithub.jwtcheck import NOT_DECODED, JWTRejected, looks_like_jwt, verify_app_jwt

if TYPE_CHECKING:
    from tests.fakegithub.state import FakeGitHub

DOCS = "https://docs.github.com/rest"
WRITE_METHODS = frozenset({"POST", "PATCH", "PUT", "DELETE"})
_REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
JWT_ROUTES = re.compile(r"/app(/installations(/[^/]+(/access_tokens)?)?|/hook/deliveries(/[^/]+(/attempts)?)?)?"
                        rf"|{_REPO}/installation")  # fmt: skip
REPO_PATH = re.compile(rf"{_REPO}(?P<rest>/.*)?")

# (methods, path below /repos/{o}/{r}, permission, level): the permission GitHub requires of an app.
PERMISSIONS: list[tuple[frozenset[str], re.Pattern[str], str, str]] = [
    (frozenset({"GET"}), re.compile(r""), "metadata", "read"),
    (frozenset({"GET"}), re.compile(r"/pulls(/\d+(/files)?)?|/commits/[^/]+/pulls"), "pull_requests", "read"),
    (frozenset({"GET"}), re.compile(r"/commits/[^/]+/check-(runs|suites)|/check-(runs|suites)(/.*)?"), "checks", "read"),
    (frozenset({"POST", "PATCH"}), re.compile(r"/check-(runs|suites)(/.*)?"), "checks", "write"),
    (frozenset({"GET"}), re.compile(r"/actions/.*"), "actions", "read"),
    (frozenset({"POST"}), re.compile(r"/actions/.*"), "actions", "write"),
    (frozenset({"GET"}), re.compile(r"/(compare|git|contents|branches|commits)(/.*)?"), "contents", "read"),
]  # fmt: skip


@dataclass(frozen=True)
class Principal:
    kind: Literal["none", "token", "app", "installation"]
    credential: str = ""
    write: bool = False  # plain tokens only
    app: FakeApp | None = None
    installation: FakeInstallation | None = None
    issued: IssuedToken | None = None

    @property
    def subject(self) -> str:
        """Whose hourly quota a request spends: an installation's tokens share one."""
        if self.installation is not None:
            return f"installation:{self.installation.id}"
        if self.app is not None:
            return f"app:{self.app.id}"
        return f"token:{self.credential}"

    @property
    def quota_owner(self) -> str:
        """How GitHub names the quota in its "API rate limit exceeded for …" message."""
        if self.installation is not None:
            return f"installation ID {self.installation.id}"
        if self.app is not None:
            return f"integration ID {self.app.id}"
        return "user ID 1"


@dataclass(frozen=True)
class Refusal:
    status: int
    body: dict[str, object]
    headers: dict[str, str]


def _refuse(status: int, message: str, doc: str = DOCS, headers: dict[str, str] | None = None) -> Refusal:
    return Refusal(status, shapes.error(status, message, doc=doc), headers or {})


def authenticate(fake: FakeGitHub, authorization: str) -> Principal | Refusal:
    scheme, _, credential = authorization.partition(" ")
    credential = credential.strip()
    if not authorization:
        return Principal("none")
    if scheme.lower() not in ("token", "bearer") or not credential:
        return _refuse(401, "Bad credentials")
    if looks_like_jwt(credential):
        try:
            app = verify_app_jwt(credential, fake.apps, now=fake.timestamp(), leeway=fake.jwt_leeway)
        except JWTRejected as rejected:
            return _refuse(401, rejected.message)
        return Principal("app", credential, app=app)
    with fake.lock:
        if credential in fake.tokens:
            return Principal("token", credential, write=fake.tokens[credential])
        issued = fake.issued.get(credential)
        installation = fake.installations.get(issued.installation_id) if issued else None
    if issued is None or installation is None or issued.revoked or issued.expires_at <= fake.now():
        return _refuse(401, "Bad credentials")
    return Principal("installation", credential, app=fake.apps[installation.app_id], installation=installation,
                     issued=issued)  # fmt: skip


def required_permission(method: str, rest: str) -> tuple[str, str] | None:
    for methods, pattern, name, level in PERMISSIONS:
        if method in methods and pattern.fullmatch(rest):
            return name, level
    return None


def authorize(principal: Principal, method: str, path: str, fake: FakeGitHub) -> Refusal | None:
    """Whether `principal` may make this request; None when it may."""
    jwt_route = JWT_ROUTES.fullmatch(path) is not None
    if principal.kind == "none":
        return _refuse(401, "Requires authentication")
    if jwt_route and principal.kind != "app":
        return _refuse(401, NOT_DECODED)
    if principal.kind == "app":
        if jwt_route:
            return None
        return _refuse(403, "Resource not accessible by integration", f"{DOCS}/apps/apps")
    found = REPO_PATH.fullmatch(path)
    if found is None:
        if path == "/installation/repositories" and principal.kind != "installation":
            return _refuse(403, "Resource not accessible by integration")
        return None
    rest = found["rest"] or ""
    full = f"{found['owner']}/{found['repo']}"
    needed = required_permission(method, rest)
    if principal.kind == "token":
        if method in WRITE_METHODS and not principal.write:
            return _forbidden(needed or ("checks", "write"))
        return None
    assert principal.installation is not None and principal.issued is not None
    with fake.lock:
        known = full in fake.repos
    if not known or not principal.issued.covers(principal.installation, full):
        return _refuse(404, "Not Found")
    if needed is not None and not grants(principal.issued.permissions, *needed):
        return _forbidden(needed)
    return None


def _forbidden(needed: tuple[str, str]) -> Refusal:
    return _refuse(
        403,
        "Resource not accessible by integration",
        f"{DOCS}/checks/runs#create-a-check-run" if needed[0] == "checks" else DOCS,
        {"x-accepted-github-permissions": f"{needed[0]}={needed[1]}"},
    )

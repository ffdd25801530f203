"""The App's own endpoints (JWT auth): the app, its installations, installation tokens, and the
webhook deliveries list with redelivery."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from tests.fakegithub import shapes
from tests.fakegithub.answers import GitHubAnswer, invalid, json_body, link_header, not_found, unprocessable
from tests.fakegithub.answers import page as paginate
from tests.fakegithub.apps import FakeApp, FakeInstallation, grants
from tests.fakegithub.state import FakeGitHub
from tests.fakegithub.validation import token_request_problems

TOKEN_DOC = "apps/apps#create-an-installation-access-token-for-an-app"
NOT_GRANTED = "The permissions requested are not granted to this installation."
NOT_ACCESSIBLE = (
    "There is at least one repository that does not exist or is not accessible to the parent installation."
)


def _app(request: Request) -> FakeApp:
    app = request.state.principal.app
    assert app is not None  # the gate admits only App JWTs here
    return app  # type: ignore[no-any-return]


def router(fake: FakeGitHub) -> APIRouter:
    api = APIRouter()

    def own_installation(request: Request, installation_id: int) -> FakeInstallation:
        found = fake.installations.get(installation_id)
        if found is None or found.app_id != _app(request).id:
            raise not_found()
        return found

    @api.get("/app")
    def get_app(request: Request) -> Any:
        app = _app(request)
        count = sum(1 for i in fake.installations.values() if i.app_id == app.id)
        return {**shapes.app_object(app), "installations_count": count}

    @api.get("/app/installations")
    def list_installations(request: Request, per_page: int = 30, page: int = 1) -> Any:
        app = _app(request)
        mine = [shapes.installation_object(i, app) for i in fake.installations.values() if i.app_id == app.id]
        url = str(request.url).split("?")[0]
        link = link_header(url, {}, page_number=page, per_page=per_page, total=len(mine))
        return JSONResponse(paginate(mine, per_page, page), headers={"link": link} if link else {})

    @api.get("/app/installations/{installation_id}")
    def get_installation(request: Request, installation_id: int) -> Any:
        return shapes.installation_object(own_installation(request, installation_id), _app(request))

    @api.get("/repos/{owner}/{repo}/installation")
    def repo_installation(request: Request, owner: str, repo: str) -> Any:
        app = _app(request)
        full = f"{owner}/{repo}"
        installation = fake.installation_for(app.id, full) if full in fake.repos else None
        if installation is None:
            raise not_found()
        return shapes.installation_object(installation, app)

    @api.post("/app/installations/{installation_id}/access_tokens", status_code=201)
    def access_token(request: Request, installation_id: int, body: Annotated[Any, Depends(json_body)]) -> Any:
        installation = own_installation(request, installation_id)
        problems = token_request_problems(body)
        if problems:
            raise invalid(problems, TOKEN_DOC)
        if installation.suspended_at:
            raise GitHubAnswer(403, shapes.error(403, "This installation has been suspended",
                                                 doc=f"https://docs.github.com/rest/{TOKEN_DOC}"))  # fmt: skip
        wanted = body.get("permissions") or None
        if wanted is not None and not all(grants(installation.permissions, k, v) for k, v in wanted.items()):
            raise unprocessable(NOT_GRANTED, TOKEN_DOC)
        repos = _requested_repos(fake, installation, body)
        issued = fake.issue_token(installation, permissions=wanted, repos=repos)
        answer: dict[str, Any] = {
            "token": issued.token,
            "expires_at": issued.expires_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "permissions": issued.permissions,
            "repository_selection": "selected" if repos is not None else installation.repository_selection,
        }
        if repos is not None or installation.repository_selection == "selected":
            listed = repos if repos is not None else [r for r in sorted(fake.repos) if installation.covers(r)]
            answer["repositories"] = [shapes.repo_of(fake, r) for r in listed]
        return answer

    @api.get("/installation/repositories")
    def installation_repositories(request: Request, per_page: int = 30, page: int = 1) -> Any:
        principal = request.state.principal
        installation, issued = principal.installation, principal.issued
        visible = [r for r in sorted(fake.repos) if issued.covers(installation, r)]
        return {
            "total_count": len(visible),
            "repository_selection": installation.repository_selection,
            "repositories": [shapes.repo_of(fake, r) for r in paginate(visible, per_page, page)],
        }

    @api.get("/rate_limit")
    def rate_limit(request: Request) -> Any:
        """GitHub's quota report; asking for it spends nothing."""
        principal = request.state.principal
        quota = fake.rate.peek(principal.subject, fake.timestamp())
        core = {"limit": quota.limit, "remaining": quota.remaining, "reset": quota.reset, "used": quota.used}
        search = {"limit": 30, "remaining": 30, "reset": quota.reset, "used": 0}
        graphql = {**core, "limit": 5000, "remaining": 5000, "used": 0}
        return {"resources": {"core": core, "search": search, "graphql": graphql}, "rate": core}

    @api.get("/app/hook/deliveries")
    def list_deliveries(request: Request, per_page: int = 30, cursor: str | None = None,
                        status: str | None = None) -> Any:  # fmt: skip
        app = _app(request)
        per_page = min(max(per_page, 1), 100)
        with fake.lock:
            # a delivery is listed once its attempt is over
            mine = sorted(
                (d for d in fake.deliveries if d.app_id == app.id and d.status != "pending"),
                key=lambda d: -d.id,
            )
        if status is not None:
            if status not in ("success", "failure"):
                raise invalid(
                    ["status: must be success or failure"], "apps/webhooks#list-deliveries-for-an-app-webhook"
                )
            mine = [d for d in mine if d.ok == (status == "success")]
        if cursor is not None:
            before = _cursor_id(cursor)
            mine = [d for d in mine if d.id < before]
        chunk = mine[:per_page]
        headers = {}
        if len(mine) > per_page:
            params = f"per_page={per_page}&cursor=v1_{chunk[-1].id}" + (f"&status={status}" if status else "")
            headers["link"] = f'<{str(request.url).split("?")[0]}?{params}>; rel="next"'
        return JSONResponse([d.item() for d in chunk], headers=headers)

    @api.get("/app/hook/deliveries/{delivery_id}")
    def get_delivery(request: Request, delivery_id: int) -> Any:
        return _own_delivery(fake, _app(request), delivery_id).detail()

    @api.post("/app/hook/deliveries/{delivery_id}/attempts", status_code=202)
    def redeliver(request: Request, delivery_id: int) -> Any:
        delivery = _own_delivery(fake, _app(request), delivery_id)
        fake.deliverer.call(lambda: fake.redeliver(delivery.id))
        return {}

    return api


def _cursor_id(cursor: str) -> int:
    try:
        return int(cursor.removeprefix("v1_"))
    except ValueError:
        raise GitHubAnswer(
            400, shapes.error(400, "Invalid cursor", doc="https://docs.github.com/rest")
        ) from None


def _own_delivery(fake: FakeGitHub, app: FakeApp, delivery_id: int) -> Any:
    with fake.lock:
        found = next((d for d in fake.deliveries if d.id == delivery_id and d.app_id == app.id), None)
    if found is None:
        raise not_found()
    return found


def _requested_repos(
    fake: FakeGitHub, installation: FakeInstallation, body: dict[str, Any]
) -> list[str] | None:
    names = body.get("repositories")
    ids = body.get("repository_ids")
    if names is None and ids is None:
        return None
    wanted: list[str] = []
    by_id = {info.id: full for full, info in fake.repo_info.items() if full in fake.repos}
    for name in names or []:
        full = f"{installation.account}/{name}"
        if full not in fake.repos or not installation.covers(full):
            raise unprocessable(NOT_ACCESSIBLE, TOKEN_DOC)
        wanted.append(full)
    for repo_id in ids or []:
        full = by_id.get(repo_id, "")
        if not full or not installation.covers(full):
            raise unprocessable(NOT_ACCESSIBLE, TOKEN_DOC)
        wanted.append(full)
    return sorted(set(wanted))

"""Check runs and check suites: create, update, read, list for a ref, annotations, rerequest."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from tests.fakegithub import checks, gitdata, payloads, shapes
from tests.fakegithub.answers import DOCS, GitHubAnswer, invalid, json_body, link_header, not_found
from tests.fakegithub.answers import page as paginate
from tests.fakegithub.gate import Principal
from tests.fakegithub.routes_pulls import repo_root
from tests.fakegithub.state import FakeGitHub
from tests.fakegithub.validation import check_run_problems

RUN_STATUSES = ("queued", "in_progress", "completed")


def _principal(request: Request) -> Principal:
    return request.state.principal  # type: ignore[no-any-return]


def _creator(request: Request) -> dict[str, Any]:
    """The app a check run is attributed to: the installation's app, else GitHub Actions."""
    principal = _principal(request)
    if principal.app is not None:
        return shapes.app_object(principal.app)
    return dict(shapes.GITHUB_ACTIONS_APP)


def router(fake: FakeGitHub) -> APIRouter:
    api = APIRouter()

    def the_run(owner: str, repo: str, run_id: int) -> dict[str, Any]:
        run = fake.check_runs.get(run_id)
        if run is None or checks.repo_of_run(run) != f"{owner}/{repo}":
            raise not_found()
        return run

    def the_suite(owner: str, repo: str, suite_id: int) -> dict[str, Any]:
        suite = fake.check_suites.get(suite_id)
        if suite is None or suite["repository"]["full_name"] != f"{owner}/{repo}":
            raise not_found()
        return suite

    def resolve(owner: str, repo: str, ref: str) -> str:
        try:
            return gitdata.resolve(repo_root(fake, owner, repo), ref)
        except gitdata.GitDataError:
            raise GitHubAnswer(422, shapes.error(422, f"No commit found for SHA: {ref}",
                                                 doc="https://docs.github.com/rest/checks/runs")) from None  # fmt: skip

    @api.post("/repos/{owner}/{repo}/check-runs", status_code=201)
    def create_check_run(
        owner: str, repo: str, request: Request, body: Annotated[Any, Depends(json_body)]
    ) -> Any:
        root = repo_root(fake, owner, repo)
        problems = check_run_problems(body, create=True)
        if not problems and gitdata.object_type(root, str(body["head_sha"])) != "commit":
            problems = [f"head_sha: No commit found for SHA: {body['head_sha']}"]
        if problems:
            raise invalid(problems, "checks/runs#create-a-check-run")
        return checks.create_run(fake, f"{owner}/{repo}", body, _creator(request))

    @api.patch("/repos/{owner}/{repo}/check-runs/{run_id}")
    def update_check_run(
        owner: str, repo: str, run_id: int, request: Request, body: Annotated[Any, Depends(json_body)]
    ) -> Any:
        repo_root(fake, owner, repo)
        run = the_run(owner, repo, run_id)
        if run["app"]["id"] != _creator(request)["id"]:
            message = (
                f"Invalid app_id `{_creator(request)['id']}` - check run can only be modified by "
                "the GitHub App that created it."
            )
            raise GitHubAnswer(403, shapes.error(403, message, doc=f"{DOCS}/checks/runs#update-a-check-run"))
        problems = check_run_problems(body, create=False)
        if problems:
            raise invalid(problems, "checks/runs#update-a-check-run")
        return checks.update_run(fake, run, body)

    @api.get("/repos/{owner}/{repo}/check-runs/{run_id}")
    def get_check_run(owner: str, repo: str, run_id: int) -> Any:
        return the_run(owner, repo, run_id)

    @api.get("/repos/{owner}/{repo}/check-runs/{run_id}/annotations")
    def list_annotations(owner: str, repo: str, run_id: int, per_page: int = 30, page: int = 1) -> Any:
        the_run(owner, repo, run_id)
        return paginate(fake.annotations.get(run_id, []), per_page, page)

    @api.post("/repos/{owner}/{repo}/check-runs/{run_id}/rerequest", status_code=201)
    def rerequest_run(owner: str, repo: str, run_id: int, request: Request) -> Any:
        run = the_run(owner, repo, run_id)
        if run["app"]["id"] != _creator(request)["id"]:
            raise GitHubAnswer(403, shapes.error(403, "Resource not accessible by integration",
                                                 doc="https://docs.github.com/rest/checks/runs#rerequest-a-check-run"))  # fmt: skip
        suite = fake.check_suites.get(run["check_suite"]["id"])
        if suite is not None:
            checks.reset_for_rerequest(fake, suite)
        _emit_to_owner(fake, "check_run", run["app"]["id"], f"{owner}/{repo}",
                       lambda inst: payloads.check_run(fake, "rerequested", run, inst))  # fmt: skip
        return {}

    @api.get("/repos/{owner}/{repo}/commits/{ref}/check-runs")
    def runs_for_ref(
        owner: str, repo: str, ref: str, request: Request, check_name: str | None = None, status: str | None = None,
        filter: str = "latest", app_id: int | None = None, per_page: int = 30, page: int = 1,
    ) -> Any:  # fmt: skip
        sha = resolve(owner, repo, ref)
        if status is not None and status not in RUN_STATUSES:
            raise invalid(
                [f"status: must be one of {', '.join(RUN_STATUSES)}"],
                "checks/runs#list-check-runs-for-a-git-reference",
            )
        if filter not in ("latest", "all"):
            raise invalid(
                ["filter: must be latest or all"], "checks/runs#list-check-runs-for-a-git-reference"
            )
        with fake.lock:
            found = [
                r
                for r in fake.check_runs.values()
                if r["head_sha"] == sha and checks.repo_of_run(r) == f"{owner}/{repo}"
            ]
        found = sorted(found, key=lambda r: -r["id"])
        if filter == "latest":
            found = checks.latest_only(found)
        found = [
            r for r in found
            if (check_name is None or r["name"] == check_name) and (status is None or r["status"] == status)
            and (app_id is None or r["app"]["id"] == app_id)
        ]  # fmt: skip
        return _listed(request, "check_runs", found, per_page, page)

    @api.get("/repos/{owner}/{repo}/commits/{ref}/check-suites")
    def suites_for_ref(owner: str, repo: str, ref: str, request: Request, app_id: int | None = None,
                       check_name: str | None = None, per_page: int = 30, page: int = 1) -> Any:  # fmt: skip
        sha = resolve(owner, repo, ref)
        with fake.lock:
            found = [
                s for s in fake.check_suites.values()
                if s["head_sha"] == sha and s["repository"]["full_name"] == f"{owner}/{repo}"
                and (app_id is None or s["app"]["id"] == app_id)
                and (check_name is None or any(r["name"] == check_name for r in checks.runs_of_suite(fake, s["id"])))
            ]  # fmt: skip
        return _listed(request, "check_suites", sorted(found, key=lambda s: s["id"]), per_page, page)

    @api.get("/repos/{owner}/{repo}/check-suites/{suite_id}")
    def get_suite(owner: str, repo: str, suite_id: int) -> Any:
        return the_suite(owner, repo, suite_id)

    @api.get("/repos/{owner}/{repo}/check-suites/{suite_id}/check-runs")
    def runs_of_suite(
        owner: str, repo: str, suite_id: int, request: Request, per_page: int = 30, page: int = 1
    ) -> Any:
        the_suite(owner, repo, suite_id)
        runs = sorted(checks.runs_of_suite(fake, suite_id), key=lambda r: -r["id"])
        return _listed(request, "check_runs", runs, per_page, page)

    @api.post("/repos/{owner}/{repo}/check-suites/{suite_id}/rerequest", status_code=201)
    def rerequest_suite(owner: str, repo: str, suite_id: int, request: Request) -> Any:
        suite = the_suite(owner, repo, suite_id)
        if suite["app"]["id"] != _creator(request)["id"]:
            raise GitHubAnswer(403, shapes.error(403, "Resource not accessible by integration",
                                                 doc="https://docs.github.com/rest/checks/suites#rerequest-a-check-suite"))  # fmt: skip
        checks.reset_for_rerequest(fake, suite)
        _emit_to_owner(fake, "check_suite", suite["app"]["id"], f"{owner}/{repo}",
                       lambda inst: payloads.check_suite(fake, "rerequested", suite, inst))  # fmt: skip
        return {}

    return api


def _emit_to_owner(fake: FakeGitHub, event: str, app_id: int, repo: str, build: Any) -> None:
    fake.emit(
        event, lambda _app, inst: build(inst), repo=repo, permission=("checks", "read"), only_app=app_id
    )


def _listed(
    request: Request, key: str, items: list[dict[str, Any]], per_page: int, page_number: int
) -> JSONResponse:
    chunk = paginate(items, per_page, page_number)
    url = str(request.url.remove_query_params(["page", "per_page"])).split("?")[0]
    query = {k: v for k, v in request.query_params.items() if k not in ("page", "per_page")}
    link = link_header(url, query, page_number=page_number, per_page=per_page, total=len(items))
    return JSONResponse({"total_count": len(items), key: chunk}, headers={"link": link} if link else {})

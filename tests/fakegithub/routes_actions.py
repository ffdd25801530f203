"""GitHub Actions: workflow runs (list, one, jobs), workflows, and `workflow_dispatch`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response

from tests.fakegithub import actions, gitdata, shapes
from tests.fakegithub.answers import invalid, json_body, link_header, not_found, unprocessable
from tests.fakegithub.answers import page as paginate
from tests.fakegithub.routes_pulls import repo_root
from tests.fakegithub.state import Dispatch, FakeGitHub
from tests.fakegithub.validation import dispatch_problems

DISPATCH_DOC = "actions/workflows#create-a-workflow-dispatch-event"


def router(fake: FakeGitHub) -> APIRouter:
    api = APIRouter()

    def the_run(owner: str, repo: str, run_id: int) -> dict[str, Any]:
        run = fake.workflow_runs.get(run_id)
        if run is None or run["repository"]["full_name"] != f"{owner}/{repo}":
            raise not_found()
        return run

    @api.get("/repos/{owner}/{repo}/actions/runs")
    def list_runs(
        owner: str, repo: str, request: Request, head_sha: str | None = None, event: str | None = None,
        status: str | None = None, branch: str | None = None, actor: str | None = None,
        per_page: int = 30, page: int = 1,
    ) -> Any:  # fmt: skip
        repo_root(fake, owner, repo)
        with fake.lock:
            runs = [
                r for r in fake.workflow_runs.values() if r["repository"]["full_name"] == f"{owner}/{repo}"
            ]
        runs = [
            r for r in sorted(runs, key=lambda r: -r["id"])
            if (head_sha is None or r["head_sha"] == head_sha) and (event is None or r["event"] == event)
            # GitHub's `status` filter takes a status or a conclusion
            and (status is None or status in (r["status"], r["conclusion"]))
            and (branch is None or r["head_branch"] == branch) and (actor is None or r["actor"]["login"] == actor)
        ]  # fmt: skip
        chunk = paginate(runs, per_page, page)
        url = str(request.url).split("?")[0]
        query = {k: v for k, v in request.query_params.items() if k not in ("page", "per_page")}
        link = link_header(url, query, page_number=page, per_page=per_page, total=len(runs))
        return JSONResponse(
            {"total_count": len(runs), "workflow_runs": chunk}, headers={"link": link} if link else {}
        )

    @api.get("/repos/{owner}/{repo}/actions/runs/{run_id}")
    def get_run(owner: str, repo: str, run_id: int) -> Any:
        return the_run(owner, repo, run_id)

    @api.get("/repos/{owner}/{repo}/actions/runs/{run_id}/jobs")
    def list_jobs(owner: str, repo: str, run_id: int, per_page: int = 30, page: int = 1) -> Any:
        jobs = actions.jobs_of(fake, the_run(owner, repo, run_id))
        return {"total_count": len(jobs), "jobs": paginate(jobs, per_page, page)}

    @api.get("/repos/{owner}/{repo}/actions/workflows")
    def list_workflows(owner: str, repo: str) -> Any:
        root = repo_root(fake, owner, repo)
        full = f"{owner}/{repo}"
        found = actions.workflows_at(root, fake.repo_info[full].default_branch)
        items = [shapes.workflow(full, actions.workflow_id(full, path), actions.workflow_name(path, text), path)
                 for path, text in sorted(found.items())]  # fmt: skip
        return {"total_count": len(items), "workflows": items}

    @api.post("/repos/{owner}/{repo}/actions/workflows/{workflow}/dispatches", status_code=204)
    def dispatch(
        owner: str, repo: str, workflow: str, request: Request, body: Annotated[Any, Depends(json_body)]
    ) -> Response:
        root = repo_root(fake, owner, repo)
        full = f"{owner}/{repo}"
        problems = dispatch_problems(body)
        if problems:
            raise invalid(problems, DISPATCH_DOC)
        ref = str(body["ref"])
        try:
            sha = gitdata.resolve(root, ref if ref.startswith("refs/") else f"refs/heads/{ref}")
        except gitdata.GitDataError:
            try:
                sha = gitdata.resolve(root, f"refs/tags/{ref}")
            except gitdata.GitDataError:
                raise unprocessable(f"No ref found for: {ref}", DISPATCH_DOC) from None
        found = actions.workflows_at(root, sha)
        path = next(
            (
                p
                for p in found
                if p.rsplit("/", 1)[1] == workflow or str(actions.workflow_id(full, p)) == workflow
            ),
            None,
        )
        if path is None:
            raise not_found()
        if "workflow_dispatch" not in actions.triggers(found[path]):
            raise unprocessable("Workflow does not have 'workflow_dispatch' trigger", DISPATCH_DOC)
        principal = request.state.principal
        with fake.lock:
            fake.dispatches.append(
                Dispatch(full, path, ref, sha, dict(body.get("inputs") or {}), principal.credential)
            )
        branch = ref.removeprefix("refs/heads/")
        actions.add_workflow_run(fake, full, sha, actions.workflow_name(path, found[path]), event="workflow_dispatch",
                                 path=path, head_branch=branch, head_repo=full)  # fmt: skip
        return Response(status_code=204)

    return api

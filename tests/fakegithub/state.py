"""The fake's state: repositories, pull requests, apps, installations, tokens, check runs and suites,
workflow runs, webhook deliveries, rate limits, injected faults and a request log.

Everything a test sets up or asserts on goes through `FakeGitHub`; the behaviour behind the helpers
lives in one module per concern (checks, actions, webhooks, merge queues), which these methods call.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tests.fakegithub.apps import ALL, FakeApp, FakeInstallation, IssuedToken, installation_token
from tests.fakegithub.ratelimit import RateLimiter
from tests.fakegithub.testmerge import MergeJob

if TYPE_CHECKING:
    from tests.fakegithub.mergequeue import MergeGroup
    from tests.fakegithub.webhooks import Deliverer, Delivery

DEFAULT_APP_PERMISSIONS = {
    "checks": "write",
    "contents": "read",
    "metadata": "read",
    "pull_requests": "read",
    "actions": "read",
    "merge_queues": "read",
}
DEFAULT_APP_EVENTS = [
    "check_run",
    "check_suite",
    "merge_group",
    "pull_request",
    "workflow_run",
]


@dataclass
class FakePull:
    repo: str
    number: int
    base_ref: str
    base_sha: str
    head_ref: str
    head_sha: str
    head_repo: str | None
    author: str = "octocat"
    labels: tuple[str, ...] = ()
    state: str = "open"
    title: str = "Change"
    draft: bool = False
    body: str | None = None
    merged_sha: str | None = None  # merged: its merge commit on the base branch (state closed)
    updated: int = 0  # the order of its last update (GitHub's `updated_at`; the list sorts by it)
    merge: MergeJob = field(default_factory=MergeJob)  # refs/pull/{n}/merge (testmerge.py)


@dataclass
class Fault:
    """Answer `times` matching requests with `status` instead of serving them.

    `delay` seconds pass before the answer (with `status` 0 the request is then served as usual);
    `reset` drops the connection without an answer.
    """

    method: str
    path: str  # a regular expression matched against the whole path
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    times: int = 1
    delay: float = 0.0
    reset: bool = False


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    accept: str
    body: Any
    status: int
    credential: str = ""  # the token or JWT the request carried ("" for none)


@dataclass
class DiffLimits:
    """GitHub's limits on the diff media type (406 above them) and on the files API's patches."""

    max_files: int = 300
    max_lines: int = 20_000
    max_bytes: int = 1_000_000
    max_patch_bytes: int = 400_000
    max_listed_files: int = 3000


@dataclass
class RepoInfo:
    full_name: str
    id: int
    default_branch: str
    private: bool


@dataclass(frozen=True)
class Dispatch:
    repo: str
    workflow: str  # the workflow file's path
    ref: str
    sha: str
    inputs: dict[str, Any]
    credential: str


def _head_branch(root: Path) -> str:
    done = subprocess.run(
        ["git", "symbolic-ref", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "main"


class FakeGitHub:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._deliverer: Deliverer | None = None
        # Ids keep counting across resets: a client that caches by installation id (githubkit does,
        # process-wide) must never be handed the previous test's token for a new installation.
        self._ids = itertools.count(4_000_000_001)
        self._repo_ids = itertools.count(700_000_001)
        self._installation_ids = itertools.count(40_000_001)
        self._app_ids = itertools.count(900_001)
        self._delivery_ids = itertools.count(90_000_000_001)
        self._suite_ids = itertools.count(9_000_000_001)
        self._run_ids = itertools.count(6_000_000_001)
        # Which reset the state is at: a request admitted before one (held by an injected delay
        # while its test ended) is neither served from nor logged into the next test's state.
        self._generations = itertools.count()
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.generation = next(self._generations)
            self.repos: dict[str, Path] = {}
            self.repo_info: dict[str, RepoInfo] = {}
            self.pulls: dict[tuple[str, int], FakePull] = {}
            self.tokens: dict[str, bool] = {}  # plain token -> may write (the Action's GITHUB_TOKEN)
            self.apps: dict[int, FakeApp] = {}
            self.installations: dict[int, FakeInstallation] = {}
            self.issued: dict[str, IssuedToken] = {}
            self.token_ttl = timedelta(hours=1)
            self.clock_offset = timedelta()
            self.jwt_leeway = 0.0
            self.check_runs: dict[int, dict[str, Any]] = {}
            self.annotations: dict[int, list[dict[str, Any]]] = {}
            self.check_run_actions: dict[int, list[dict[str, Any]]] = {}  # run id -> its buttons
            self.check_suites: dict[int, dict[str, Any]] = {}
            self.workflow_runs: dict[int, dict[str, Any]] = {}
            self.dispatches: list[Dispatch] = []
            self.merge_groups: list[MergeGroup] = []
            self.deliveries: list[Delivery] = []
            self.webhook_timeout = 10.0
            self.delivery_breaks: dict[int, list[int | None]] = {}  # app id -> pending failures
            self.emit_events = True
            self.faults: list[Fault] = []
            self.requests: list[Recorded] = []
            self.rate = RateLimiter()
            self.limits = DiffLimits()
            self.tree_truncated = False
            self.mergeability_reads = 1  # reads answered `mergeable: null` after a move (testmerge.py)
            self.associate_fork_commits = False
            if self._deliverer is not None:
                self._deliverer.clear()

    # -- clock ------------------------------------------------------------------------------------

    def now(self) -> datetime:
        """GitHub's clock: the real time plus `clock_offset` (tests skew it to age JWTs and tokens)."""
        return datetime.now(UTC) + self.clock_offset

    def timestamp(self) -> float:
        return self.now().timestamp()

    def iso_now(self) -> str:
        return self.now().strftime("%Y-%m-%dT%H:%M:%SZ")

    # -- repositories and pull requests -----------------------------------------------------------

    def add_repo(
        self, full_name: str, path: Path, *, default_branch: str | None = None, private: bool = True
    ) -> RepoInfo:
        with self.lock:
            self.repos[full_name] = path
            info = RepoInfo(full_name, next(self._repo_ids), default_branch or _head_branch(path), private)
            self.repo_info[full_name] = info
            return info

    def repo_id(self, full_name: str) -> int:
        """The repository's id; a repository the fake does not hold (a fork) gets one on first use."""
        with self.lock:
            info = self.repo_info.get(full_name)
            if info is None:
                info = RepoInfo(full_name, next(self._repo_ids), "main", False)
                self.repo_info[full_name] = info
            return info.id

    def add_pull(self, pull: FakePull) -> FakePull:
        with self.lock:
            self.pulls[(pull.repo, pull.number)] = pull
        return pull

    def pulls_for_head(self, repo: str, head_sha: str, *, forks: bool = False) -> list[FakePull]:
        """Open pull requests of `repo` whose head is `head_sha`; fork heads only when `forks`
        (GitHub leaves them out of check and workflow payloads)."""
        with self.lock:
            return [
                p
                for (r, _), p in sorted(self.pulls.items())
                if r == repo
                and p.head_sha == head_sha
                and p.state == "open"
                and (forks or p.head_repo == repo)
            ]

    # -- tokens, apps and installations -----------------------------------------------------------

    def add_token(self, token: str, *, write: bool = True) -> str:
        """A plain token with access to every repository (the Action's GITHUB_TOKEN)."""
        with self.lock:
            self.tokens[token] = write
        return token

    def add_app(
        self,
        app_id: int,
        slug: str,
        name: str | None = None,
        public_key_pem: str = "",
        *,
        webhook_url: str | None = None,
        webhook_secret: str | None = None,
        permissions: Mapping[str, str] | None = None,
        events: Iterable[str] | None = None,
        owner: str = "acme",
        client_id: str | None = None,
    ) -> FakeApp:
        with self.lock:
            app = FakeApp(
                id=app_id,
                slug=slug,
                name=name or slug,
                public_key_pem=public_key_pem,
                webhook_url=webhook_url,
                webhook_secret=webhook_secret,
                permissions=dict(DEFAULT_APP_PERMISSIONS if permissions is None else permissions),
                events=list(DEFAULT_APP_EVENTS if events is None else events),
                owner=owner,
                client_id=client_id or f"Iv23li{app_id:014d}",
                hook_id=500_000_000 + app_id,
                created_at=self.iso_now(),
            )
            self.apps[app_id] = app
            return app

    def add_installation(
        self,
        app_id: int,
        account: str,
        repos: Iterable[str] | Literal["all"] = ALL,
        permissions: Mapping[str, str] | None = None,
        *,
        account_type: str = "Organization",
        events: Iterable[str] | None = None,
    ) -> FakeInstallation:
        with self.lock:
            app = self.apps[app_id]
            granted = dict(app.permissions if permissions is None else permissions)
            granted.setdefault("metadata", "read")  # every installation can read metadata
            installation = FakeInstallation(
                id=next(self._installation_ids),
                app_id=app_id,
                account=account,
                account_type=account_type,
                repos=ALL if repos == ALL else list(repos),
                permissions=granted,
                events=list(app.events if events is None else events),
                created_at=self.iso_now(),
            )
            self.installations[installation.id] = installation
            return installation

    def installation_for(self, app_id: int, repo: str) -> FakeInstallation | None:
        with self.lock:
            for installation in self.installations.values():
                if installation.app_id == app_id and installation.covers(repo):
                    return installation
        return None

    def issue_token(
        self,
        installation: FakeInstallation,
        *,
        permissions: Mapping[str, str] | None = None,
        repos: Iterable[str] | None = None,
    ) -> IssuedToken:
        with self.lock:
            issued = IssuedToken(
                token=installation_token(),
                installation_id=installation.id,
                expires_at=(self.now() + self.token_ttl).replace(microsecond=0),
                permissions=dict(installation.permissions if permissions is None else permissions),
                repos=None if repos is None else tuple(repos),
            )
            self.issued[issued.token] = issued
            return issued

    def revoke_token(self, token: str) -> None:
        with self.lock:
            self.issued[token].revoked = True

    # -- faults -----------------------------------------------------------------------------------

    def inject(self, fault: Fault) -> None:
        with self.lock:
            self.faults.append(fault)

    def take_fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.times > 0 and re.fullmatch(fault.method, method) and re.fullmatch(fault.path, path):
                    fault.times -= 1
                    return fault
        return None

    def inject_server_error(self, method: str, path: str, *, status: int = 502, times: int = 1) -> Fault:
        """5xx as GitHub's front end answers them (JSON bodies with its messages)."""
        from tests.fakegithub.shapes import server_error

        fault = Fault(method, path, status, body=server_error(status), times=times)
        self.inject(fault)
        return fault

    def inject_secondary_rate_limit(
        self, method: str, path: str, *, status: int = 403, retry_after: int = 60, times: int = 1
    ) -> Fault:
        from tests.fakegithub.ratelimit import SECONDARY_DOCS, request_id, secondary_message

        body = {"message": secondary_message(request_id()), "documentation_url": SECONDARY_DOCS}
        fault = Fault(method, path, status, {"retry-after": str(retry_after)}, body, times=times)
        self.inject(fault)
        return fault

    def inject_delay(self, method: str, path: str, seconds: float, *, times: int = 1) -> Fault:
        """Hold matching requests for `seconds`, then serve them (a client with a shorter timeout
        sees a timeout)."""
        fault = Fault(method, path, 0, times=times, delay=seconds)
        self.inject(fault)
        return fault

    def inject_connection_reset(self, method: str, path: str, *, times: int = 1) -> Fault:
        fault = Fault(method, path, 0, times=times, reset=True)
        self.inject(fault)
        return fault

    # -- request log ------------------------------------------------------------------------------

    def next_app_id(self) -> int:
        with self.lock:
            return next(self._app_ids)

    def next_id(self) -> int:
        with self.lock:
            return next(self._ids)

    def next_suite_id(self) -> int:
        with self.lock:
            return next(self._suite_ids)

    def next_run_id(self) -> int:
        with self.lock:
            return next(self._run_ids)

    def next_delivery_id(self) -> int:
        with self.lock:
            return next(self._delivery_ids)

    def record(self, entry: Recorded, generation: int) -> None:
        """Log a request admitted at `generation` (a request of a state since reset is dropped)."""
        with self.lock:
            if generation == self.generation:
                self.requests.append(entry)

    def runs_for(self, head_sha: str, name: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            return [
                r
                for r in self.check_runs.values()
                if r["head_sha"] == head_sha and (name is None or r["name"] == name)
            ]

    def calls(self, method: str, pattern: str) -> list[Recorded]:
        with self.lock:
            return [r for r in self.requests if r.method == method and re.fullmatch(pattern, r.path)]

    # -- checks and workflow runs (behaviour in checks.py and actions.py) -------------------------

    def add_check_run(
        self,
        repo: str,
        head_sha: str,
        name: str,
        *,
        status: str = "queued",
        conclusion: str | None = None,
        app_slug: str = "github-actions",
        emit: bool = True,
        **fields: Any,
    ) -> dict[str, Any]:
        """A check run as another app (GitHub Actions by default) creates it; with `emit`, the
        check_run.created event (and completed, if it is) goes to subscribed apps."""
        from tests.fakegithub import checks

        return checks.add_check_run(self, repo, head_sha, name, status=status, conclusion=conclusion,
                                    app_slug=app_slug, emit=emit, **fields)  # fmt: skip

    def complete_check_run(
        self, run_id: int, conclusion: str = "success", *, emit: bool = True, **fields: Any
    ) -> dict[str, Any]:
        from tests.fakegithub import checks

        return checks.complete_check_run(self, run_id, conclusion, emit=emit, **fields)

    def rerequest_check_run(self, run_id: int) -> Delivery | None:
        """A user clicks "Re-run" on a check run: check_run.rerequested goes to the app that owns it."""
        from tests.fakegithub import checks

        return checks.user_rerequest_check_run(self, run_id)

    def request_action(self, run_id: int, identifier: str) -> Delivery | None:
        """A user clicks the check run's button `identifier`: check_run.requested_action to its app."""
        from tests.fakegithub import checks

        return checks.user_requested_action(self, run_id, identifier)

    def rerequest_check_suite(self, suite_id: int) -> Delivery | None:
        from tests.fakegithub import checks

        return checks.user_rerequest_check_suite(self, suite_id)

    def add_workflow_run(self, repo: str, head_sha: str, name: str = "CI", **fields: Any) -> dict[str, Any]:
        """A GitHub Actions workflow run (see actions.add_workflow_run for the fields)."""
        from tests.fakegithub import actions

        return actions.add_workflow_run(self, repo, head_sha, name, **fields)

    def update_workflow_run(self, run_id: int, **fields: Any) -> dict[str, Any]:
        from tests.fakegithub import actions

        return actions.update_workflow_run(self, run_id, **fields)

    def complete_workflow_run(
        self, run_id: int, conclusion: str = "success", **fields: Any
    ) -> dict[str, Any]:
        from tests.fakegithub import actions

        return actions.update_workflow_run(self, run_id, status="completed", conclusion=conclusion, **fields)

    def approve_workflow_run(self, run_id: int) -> dict[str, Any]:
        """Someone with write access approves a run held for a first-time contributor."""
        from tests.fakegithub import actions

        return actions.approve_workflow_run(self, run_id)

    def add_merge_group(self, pull: FakePull) -> MergeGroup:
        """Queue `pull`: a real merge commit on `gh-readonly-queue/{base}/pr-{n}-{head sha}`."""
        from tests.fakegithub import mergequeue

        return mergequeue.add_merge_group(self, pull)

    # -- webhooks (behaviour in webhooks.py) ------------------------------------------------------

    @property
    def deliverer(self) -> Deliverer:
        from tests.fakegithub.webhooks import Deliverer

        with self.lock:
            if self._deliverer is None:
                self._deliverer = Deliverer(self)
            return self._deliverer

    def deliver(
        self, app_id: int, event: str, payload: Mapping[str, Any], *, guid: str | None = None
    ) -> Delivery:
        """POST `payload` to the app's webhook URL exactly as GitHub does; waits for the answer."""
        from tests.fakegithub import webhooks

        return webhooks.deliver(self, self.apps[app_id], event, payload, guid=guid)

    def deliver_raw(
        self,
        app_id: int,
        body: bytes,
        headers: Mapping[str, str],
        *,
        event: str = "",
        timeout: float | None = None,
    ) -> Delivery:
        """POST exactly `body` with exactly `headers` (forged or malformed deliveries)."""
        from tests.fakegithub import webhooks

        return webhooks.deliver_raw(self, self.apps[app_id], body, headers, event=event, timeout=timeout)

    def webhook_headers(
        self, app_id: int, event: str, body: bytes, *, guid: str | None = None
    ) -> dict[str, str]:
        """The headers GitHub would send with `body` (to alter for forged deliveries)."""
        from tests.fakegithub import webhooks

        return webhooks.headers_for(self, self.apps[app_id], event, body, guid=guid)

    def redeliver(self, delivery_id: int) -> Delivery:
        from tests.fakegithub import webhooks

        return webhooks.redeliver(self, delivery_id)

    def break_deliveries(self, app_id: int, *, times: int = 1, status: int | None = None) -> None:
        """The next `times` deliveries to the app fail at GitHub's side without reaching it: as an
        unreachable host, or (with `status`) as if it had answered that status."""
        with self.lock:
            self.delivery_breaks.setdefault(app_id, []).extend([status] * times)

    def emit(self, event: str, payload_for: Callable[[FakeApp, FakeInstallation], dict[str, Any]], *,
             repo: str, permission: tuple[str, str], only_app: int | None = None) -> list[int]:  # fmt: skip
        """Queue `event` for every app installed on `repo` that subscribes to it and holds
        `permission`; `only_app` restricts it to one app. Returns the app ids it was queued for."""
        from tests.fakegithub import webhooks

        return webhooks.emit(self, event, payload_for, repo=repo, permission=permission, only_app=only_app)

    def wait_for_deliveries(self, timeout: float = 30.0) -> None:
        """Block until every queued event has been delivered (or failed)."""
        self.deliverer.wait_idle(timeout)

    def deliveries_for(
        self, app_id: int, event: str | None = None, action: str | None = None
    ) -> list[Delivery]:
        with self.lock:
            return [
                d
                for d in self.deliveries
                if d.app_id == app_id and (event is None or d.event == event) and (action is None or d.action == action)
            ]  # fmt: skip

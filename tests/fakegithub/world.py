"""A world for the App to live in: the fake GitHub holding one App (with a shared RSA key), one
installation and a real git repository with an open pull request (`build_world`), and `wait_until`.
Tests get it from the fixtures in `harness.py`; `make demo` and the benchmarks build one directly
(this module needs no test framework).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from githubkit import AppAuthStrategy, AppInstallationAuthStrategy, GitHub

from tests.fakegithub import payloads
from tests.fakegithub.apps import FakeApp, FakeInstallation, KeyPair, shared_key_pair
from tests.fakegithub.server import FakeServer
from tests.fakegithub.state import FakeGitHub, FakePull
from tests.fakegithub.webhooks import Delivery
from tests.gitrepo import GitRepo

T = TypeVar("T")
OWNER = "acme"
REPO = f"{OWNER}/widgets"
FORK = "mallory/widgets"
BASE_FILES = {
    "src/calc.py": "def add(a, b):\n    return a - b\n",
    ".github/receipt.yml": "version: 1\npaths:\n  allow: ['src/**']\n",
    ".github/workflows/ci.yml": (
        "name: CI\non:\n  pull_request:\n  workflow_dispatch:\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - run: echo test\n"
    ),
}
CHANGE = {"src/calc.py": "def add(a, b):\n    return a + b\n"}


def wait_until(
    condition: Callable[[], T], *, timeout: float = 10.0, interval: float = 0.02, what: str = ""
) -> T:
    """Poll `condition` until it returns something truthy, and return that; fail after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or condition!r}")
        time.sleep(interval)


@dataclass
class AppWorld:
    server: FakeServer
    tmp: Path
    keys: KeyPair
    app: FakeApp
    installation: FakeInstallation
    origin: GitRepo
    repo: str
    pull: FakePull

    @property
    def fake(self) -> FakeGitHub:
        return self.server.state

    @property
    def api_url(self) -> str:
        return self.server.url

    @property
    def webhook_secret(self) -> str:
        assert self.app.webhook_secret is not None
        return self.app.webhook_secret

    def app_env(self, **extra: str) -> dict[str, str]:
        """The App's settings (DESIGN.md "App settings") for this world."""
        return {
            "RECEIPT_APP_ID": str(self.app.id),
            "RECEIPT_PRIVATE_KEY": self.keys.private_pem,
            "RECEIPT_WEBHOOK_SECRET": self.webhook_secret,
            "RECEIPT_GITHUB_API_URL": self.api_url,
            **extra,
        }

    def webhooks_to(self, url: str | None) -> None:
        """Where GitHub delivers this App's webhooks (None: nowhere, every delivery fails)."""
        self.app.webhook_url = url

    # -- the repository and its pull requests -----------------------------------------------------

    def open_pull(
        self, files: Mapping[str, str], *, number: int, branch: str | None = None, fork: bool = False,
        author: str = "octocat", removed: tuple[str, ...] = (), base_ref: str = "main", title: str = "Change",
    ) -> FakePull:  # fmt: skip
        """A new pull request: a commit on its own branch off `base_ref`, `refs/pull/N/head` set."""
        branch = branch or f"change-{number}"
        base_sha = self.origin.git("rev-parse", base_ref).strip()
        self.origin.git("checkout", "-q", "-b", branch, base_sha)
        for path, text in files.items():
            self.origin.write(path, text)
        for path in removed:
            self.origin.remove(path)
        head_sha = self.origin.commit(title)
        self.origin.checkout(base_ref)
        self.origin.git("update-ref", f"refs/pull/{number}/head", head_sha)
        pull = FakePull(self.repo, number, base_ref, base_sha, branch, head_sha, FORK if fork else self.repo,
                        author="mallory" if fork else author, title=title)  # fmt: skip
        return self.fake.add_pull(pull)

    def push(
        self, files: Mapping[str, str], *, pull: FakePull | None = None, removed: tuple[str, ...] = ()
    ) -> str:
        """A new commit on the pull request's head branch; returns the previous head (`before`)."""
        pull = pull or self.pull
        before = pull.head_sha
        self.origin.checkout(pull.head_ref)
        for path, text in files.items():
            self.origin.write(path, text)
        for path in removed:
            self.origin.remove(path)
        pull.head_sha = self.origin.commit("another change")
        self.origin.checkout(pull.base_ref)
        self.origin.git("update-ref", f"refs/pull/{pull.number}/head", pull.head_sha)
        return before

    def merge(self, pull: FakePull, *, squash: bool = False) -> str:
        """Merge `pull` into its base branch as GitHub's merge button does (a merge commit, or one
        squashed commit); it becomes closed and merged, updated last. Returns the merge commit."""
        self.origin.checkout(pull.base_ref)
        if squash:
            self.origin.git("merge", "-q", "--squash", pull.head_sha)
            sha = self.origin.commit(f"{pull.title} (#{pull.number})")
        else:
            message = f"Merge pull request #{pull.number} from {pull.head_ref}\n\n{pull.title}"
            self.origin.git("merge", "-q", "--no-ff", pull.head_sha, "-m", message)
            sha = self.origin.git("rev-parse", "HEAD").strip()
        pull.state, pull.merged_sha = "closed", sha
        pull.updated = max((p.updated for p in self.fake.pulls.values()), default=0) + 1
        return sha

    def commit_to_base(self, files: Mapping[str, str], *, branch: str = "main") -> str:
        self.origin.checkout(branch)
        for path, text in files.items():
            self.origin.write(path, text)
        return self.origin.commit("on the base branch")

    # -- deliveries -------------------------------------------------------------------------------

    def send(self, event: str, payload: Mapping[str, Any]) -> Delivery:
        return self.fake.deliver(self.app.id, event, payload)

    def pull_request_payload(
        self, action: str = "opened", *, pull: FakePull | None = None, **kw: Any
    ) -> dict[str, Any]:
        return payloads.pull_request(self.fake, action, pull or self.pull, self.installation, **kw)

    def send_pull_request(
        self, action: str = "opened", *, pull: FakePull | None = None, **kw: Any
    ) -> Delivery:
        return self.send("pull_request", self.pull_request_payload(action, pull=pull, **kw))

    # -- clients, as the App would make them ------------------------------------------------------

    def app_client(self) -> GitHub[AppAuthStrategy]:
        return GitHub(AppAuthStrategy(self.app.id, self.keys.private_pem), base_url=self.api_url + "/",
                      http_cache=False, auto_retry=False)  # fmt: skip

    def installation_client(self) -> GitHub[AppInstallationAuthStrategy]:
        auth = AppInstallationAuthStrategy(self.app.id, self.keys.private_pem, self.installation.id)
        return GitHub(auth, base_url=self.api_url + "/", http_cache=False, auto_retry=False)


def build_world(server: FakeServer, tmp: Path, *, webhook_url: str | None = None) -> AppWorld:
    fake = server.state
    keys = shared_key_pair()
    app_id = fake.next_app_id()
    app = fake.add_app(app_id, "receipt", "receipt", keys.public_pem, webhook_url=webhook_url,
                       webhook_secret=secrets.token_hex(16), owner=OWNER)  # fmt: skip
    origin = GitRepo.create(tmp / "origin")
    origin.git("config", "uploadpack.allowAnySHA1InWant", "true")
    for path, text in BASE_FILES.items():
        origin.write(path, text)
    origin.commit("base")
    fake.add_repo(REPO, origin.root)
    installation = fake.add_installation(app_id, OWNER, [REPO])
    world = AppWorld(server, tmp, keys, app, installation, origin, REPO, pull=None)  # type: ignore[arg-type]
    world.pull = world.open_pull(CHANGE, number=7, branch="feature")
    return world

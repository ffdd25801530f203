"""A pull request as a runner sees it: an origin repository, a checkout, an event file, the
environment GitHub sets, and `python -m action` run as a subprocess against the fake GitHub."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakegithub import FakePull, FakeServer
from tests.gitrepo import GitRepo

REPO = "acme/widgets"
FORK = "mallory/widgets"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "webhooks"
ROOT = Path(__file__).resolve().parents[2]
WRITE_TOKEN = "ghs_write_token_for_tests"
READ_TOKEN = "ghs_read_only_fork_token"

BASE_FILES = {
    "src/calc.py": "def add(a, b):\n    return a - b\n",
    "check.py": (
        "import sys\nsys.path.insert(0, 'src')\nfrom calc import add\nsys.exit(0 if add(1, 2) == 3 else 1)\n"
    ),
    ".github/receipt.yml": "version: 1\npaths:\n  allow: ['src/**']\ntests:\n  command: python3 check.py\n",
}


@dataclass
class Result:
    status: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    workspace: Path

    def receipt(self, name: str = "receipt.json") -> dict[str, Any]:
        return json.loads((self.workspace / name).read_text(encoding="utf-8"))


def read_outputs(path: Path) -> dict[str, str]:
    """Parse GITHUB_OUTPUT as the runner does: `name<<DELIM` blocks and `name=value` lines."""
    outputs: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").split("\n") if path.exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line:
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            outputs[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
            i += 1
        else:
            i += 1
    return outputs


@dataclass
class Scenario:
    """Build with `base()` and `pr()`, then `checkout()` and `run()`."""

    tmp: Path
    github: FakeServer
    number: int = 7
    fork: bool = False
    origin: GitRepo = field(init=False)
    base_sha: str = ""
    head_sha: str = ""

    def __post_init__(self) -> None:
        self.origin = GitRepo.create(self.tmp / "origin")
        self.origin.git("config", "uploadpack.allowAnySHA1InWant", "true")
        self.github.state.add_repo(REPO, self.origin.root)
        self.github.state.add_token(WRITE_TOKEN, write=True)
        self.github.state.add_token(READ_TOKEN, write=False)

    def base(self, files: dict[str, str] | None = None, *, history: int = 0) -> str:
        for n in range(history):
            self.origin.write(f"docs/history-{n}.txt", f"{n}\n")
            self.origin.commit(f"history {n}")
        for path, text in (BASE_FILES if files is None else files).items():
            self.origin.write(path, text)
        self.base_sha = self.origin.commit("base")
        return self.base_sha

    def pr(self, files: dict[str, str], *, removed: tuple[str, ...] = (), later_base_commits: int = 0) -> str:
        self.origin.branch("feature")
        for path, text in files.items():
            self.origin.write(path, text)
        for path in removed:
            self.origin.remove(path)
        self.head_sha = self.origin.commit("the change")
        self.origin.checkout("main")
        for n in range(later_base_commits):
            self.origin.write(f"docs/later-{n}.txt", f"{n}\n")
            self.base_sha = self.origin.commit(f"later {n}")
        self.origin.git("update-ref", f"refs/pull/{self.number}/head", self.head_sha)
        self.origin.git("checkout", "-q", "--detach", self.base_sha)
        self.origin.git("merge", "-q", "--no-ff", "--no-edit", self.head_sha)
        self.origin.git("update-ref", f"refs/pull/{self.number}/merge", "HEAD")
        self.origin.checkout("main")
        self.origin.git("branch", "-D", "feature")
        self.github.state.add_pull(
            FakePull(
                repo=REPO,
                number=self.number,
                base_ref="main",
                base_sha=self.base_sha,
                head_ref="feature",
                head_sha=self.head_sha,
                head_repo=FORK if self.fork else REPO,
                author="mallory" if self.fork else "octocat",
            )
        )
        return self.head_sha

    def merged(self, number: int, files: dict[str, str]) -> str:
        """A pull request merged into main with a merge commit, as the merge button leaves it."""
        origin = self.origin
        origin.branch(f"pr{number}", "main")
        for path, text in files.items():
            origin.write(path, text)
        head = origin.commit(f"change {number}")
        origin.checkout("main")
        origin.git("merge", "-q", "--no-ff", head, "-m", f"Merge pull request #{number}\n\nchange {number}")
        merge = origin.head()
        self.github.state.add_pull(FakePull(REPO, number, "main", merge, f"pr{number}", head, REPO,
                                            state="closed", title=f"change {number}", merged_sha=merge,
                                            updated=number))  # fmt: skip
        return merge

    def checkout(self, *, depth: int | None = 1, ref: str | None = None, name: str = "workspace") -> Path:
        """What actions/checkout leaves: by default the merge commit, fetched with depth 1."""
        workspace = self.tmp / name
        repo = GitRepo.create(workspace)
        repo.git("remote", "add", "origin", f"file://{self.origin.root}")
        wanted = ref or f"refs/pull/{self.number}/merge"
        deepen = [f"--depth={depth}"] if depth else []
        repo.git("fetch", "-q", "--no-tags", *deepen, "origin", f"+{wanted}:refs/remotes/checkout")
        repo.git("checkout", "-q", "--detach", "refs/remotes/checkout")
        return workspace

    def event(
        self, name: str = "pull_request", fixture: str = "pull_request.synchronize.json"
    ) -> dict[str, Any]:
        payload = json.loads((FIXTURES / fixture).read_text(encoding="utf-8"))
        text = json.dumps(payload).replace("Codertocat/Hello-World", REPO)
        payload = json.loads(text)
        payload["repository"]["full_name"] = REPO
        payload["repository"]["name"], payload["repository"]["owner"]["login"] = REPO.split("/")[1], "acme"
        pull = payload["pull_request"]
        pull["number"] = payload["number"] = self.number
        pull["base"].update(sha=self.base_sha, ref="main")
        pull["head"].update(sha=self.head_sha, ref="feature")
        pull["head"]["repo"]["full_name"] = FORK if self.fork else REPO
        pull["head"]["repo"]["fork"] = self.fork
        pull["user"]["login"] = "mallory" if self.fork else "octocat"
        return payload

    def workflow_run_event(
        self, *, head_sha: str | None = None, pull_requests: bool = False
    ) -> dict[str, Any]:
        payload = json.loads((FIXTURES / "workflow_run.completed.json").read_text(encoding="utf-8"))
        payload = json.loads(
            json.dumps(payload).replace("Codertocat/Hello-World", REPO).replace("octo-org/octo-repo", REPO)
        )
        run = payload["workflow_run"]
        run.update(
            name="CI",
            event="pull_request",
            head_sha=head_sha or self.head_sha,
            head_branch="feature",
            html_url=f"https://github.com/{REPO}/actions/runs/{run['id']}",
        )
        run["head_repository"]["full_name"] = FORK if self.fork else REPO
        run["pull_requests"] = (
            [
                {
                    "number": self.number,
                    "head": {"ref": "feature", "sha": self.head_sha},
                    "base": {"ref": "main", "sha": self.base_sha},
                }
            ]
            if pull_requests
            else []
        )
        return payload

    def run(
        self,
        workspace: Path,
        *,
        event: dict[str, Any],
        event_name: str = "pull_request",
        token: str | None = WRITE_TOKEN,
        inputs: dict[str, str] | None = None,
        timeout: float = 180,
    ) -> Result:
        runner = self.tmp / f"runner-{len(list(self.tmp.glob('runner-*')))}"
        runner.mkdir()
        (runner / "event.json").write_text(json.dumps(event), encoding="utf-8")
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(runner),
            "LC_ALL": "C.UTF-8",
            "PYTHONPATH": str(ROOT),
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(runner / "event.json"),
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_API_URL": self.github.url,
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_OUTPUT": str(runner / "output"),
            "GITHUB_STEP_SUMMARY": str(runner / "summary.md"),
            "GIT_CONFIG_GLOBAL": str(runner / "gitconfig"),
        }
        if token is not None:
            env["INPUT_GITHUB_TOKEN"] = token
        for name, value in (inputs or {}).items():
            env["INPUT_" + name.upper().replace("-", "_")] = value
        done = subprocess.run(
            [sys.executable, "-m", "action"],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        summary = runner / "summary.md"
        return Result(
            done.returncode,
            done.stdout,
            done.stderr,
            read_outputs(runner / "output"),
            summary.read_text(encoding="utf-8") if summary.exists() else "",
            workspace,
        )

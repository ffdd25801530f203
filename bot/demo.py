"""`python -m bot.demo` (`make demo`): receipt at work, one section after another.

The receipts section builds a small project with a bug, then two pull-request branches: a faithful
one-line fix, and the kind of change a coding agent opens when it optimises for green tests (it
touches the lockfile, rewrites the test and reformats a line). Each branch is shown as its diff,
then gets `receipt check` with the tests run, on the built-in default policy.

A section is a function that prints; `SECTIONS` lists them in order.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bot.cli import main as receipt_main

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "demo", "GIT_AUTHOR_EMAIL": "demo@example.com",
    "GIT_COMMITTER_NAME": "demo", "GIT_COMMITTER_EMAIL": "demo@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}  # fmt: skip

_CALC = '''def mean(values):
    """Arithmetic mean of a non-empty list."""
    return sum(values) / (len(values) - 1)


def spread(values):
    return max(values) - min(values)
'''
_TEST = """import unittest

from calc import mean


class MeanTest(unittest.TestCase):
    def test_mean(self):
        self.assertEqual(mean([1, 2, 3]), 2)


if __name__ == "__main__":
    unittest.main()
"""


_BRANCHES = {
    "faithful-fix": "a one-line fix of the off-by-one",
    "agent-fix": "what an agent optimising for green tests opens: the test weakened, a line "
    "reformatted, the lockfile touched",
}


def _git(root: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | _GIT_ENV
    done = subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True)
    return done.stdout


def _write(root: Path, path: str, text: str) -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text)


def build(root: Path) -> None:
    _git(root, "init", "-q", "-b", "main")
    _write(root, "calc.py", _CALC)
    _write(root, "test_calc.py", _TEST)
    _write(root, "package-lock.json", '{\n  "lockfileVersion": 3\n}\n')
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "calc with an off-by-one")

    _git(root, "checkout", "-q", "-b", "faithful-fix", "main")
    _write(root, "calc.py", _CALC.replace("(len(values) - 1)", "len(values)"))
    _git(root, "commit", "-q", "-am", "fix mean")

    _git(root, "checkout", "-q", "-b", "agent-fix", "main")
    _write(
        root,
        "calc.py",
        _CALC.replace("    return max(values) - min(values)\n", "    return max(values)-min(values)\n"),
    )
    _write(
        root,
        "test_calc.py",
        _TEST.replace("self.assertEqual(mean([1, 2, 3]), 2)", "self.assertTrue(mean([1, 2, 3]))"),
    )
    _write(root, "package-lock.json", '{\n  "lockfileVersion": 2\n}\n')
    _git(root, "commit", "-q", "-am", "make the tests pass")


def _say(text: str) -> None:
    print(text)
    sys.stdout.flush()  # before receipt's own output, whatever the buffering


def receipts_on_a_scratch_repository() -> None:
    """Each branch: what it changes (its diff against main), then its receipt."""
    with tempfile.TemporaryDirectory(prefix="receipt-demo-") as scratch:
        root = Path(scratch)
        build(root)
        tests = f"{shlex.quote(sys.executable)} -B -m unittest -q"
        for branch, what in _BRANCHES.items():
            diff = _git(root, "diff", "--no-color", "--no-ext-diff", f"main...{branch}")
            _say(f"\n=== {branch}: {what}\n\n$ git diff main...{branch}\n{diff}")
            _say(f"$ receipt check --base main --head {branch} --test-command '{tests}'\n")
            code = receipt_main(
                ["check", "--repo", str(root), "--base", "main", "--head", branch, "--test-command", tests]
            )
            _say(f"(exit status {code})")
    _say(
        "\nThe built-in policy protects lockfiles, dependency manifests, CI, CODEOWNERS and agent "
        "instructions; a manifest (.github/receipt.yml) with paths: {protect: ['test_*.py']} would "
        "flag the weakened test as well."
    )


def the_app_on_a_local_fake_github() -> None:
    """`receipt serve` driven as GitHub drives it: the test suite's fake GitHub (a real HTTP server
    holding a real git repository) sends a signed `pull_request` delivery; the App answers 202,
    reads the change through the API, and posts the `receipt` check run."""
    from tests.fakegithub.server import serve
    from tests.fakegithub.world import build_world, wait_until
    from tests.server.appprocess import AppHost

    _say("\n=== the GitHub App: `receipt serve` against a local fake of GitHub (no account needed)\n")
    with tempfile.TemporaryDirectory(prefix="receipt-demo-app-") as scratch, serve() as github:
        world = build_world(github, Path(scratch))
        host = AppHost(world, Path(scratch))
        try:
            app = host.serve(workers=2)
            _say(f"$ receipt serve --port {app.url.rsplit(':', 1)[1] if app.url else '?'}   "
                 f"(RECEIPT_GITHUB_API_URL={github.url}, embedded SQLite store and queue)")  # fmt: skip
            delivery = world.send_pull_request("opened")
            event = f"X-GitHub-Event: pull_request (opened, #{world.pull.number})"
            _say(f"GitHub -> POST {app.url}/webhook  {event}, X-Hub-Signature-256 over the body "
                 f"-> HTTP {delivery.status_code}")  # fmt: skip
            head = world.pull.head_sha

            def completed() -> list[dict[str, object]]:
                return [r for r in world.fake.runs_for(head, "receipt") if r["status"] == "completed"]

            [run] = wait_until(completed, timeout=60, what="the receipt check run")
            output = run["output"]
            assert isinstance(output, dict)
            _say(f"\nthe App posted check run `receipt` on {head[:12]}: {run['conclusion']}\n")
            _say(str(output["summary"]))
            _say(f"\nreceipt page (details_url, while the App runs): {run['details_url']}")
        finally:
            host.close()


SECTIONS: tuple[Callable[[], None], ...] = (receipts_on_a_scratch_repository, the_app_on_a_local_fake_github)


def main() -> int:
    for section in SECTIONS:
        section()
    return 0


if __name__ == "__main__":
    sys.exit(main())

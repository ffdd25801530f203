"""`check` and `compute`: the receipt of the pull request's head, gathered in the checkout."""

from __future__ import annotations

from collections.abc import Mapping

from action.event import PullRequestEvent
from action.gitsync import ensure_commits, find_merge_base
from action.settings import Settings
from bot.engine import Inputs
from bot.gather import Revisions
from bot.local.check import CheckOptions, inputs_at, request_of
from bot.local.git import Git

TARGET_NO_TESTS = "pull_request_target: the action never runs the pull request's code next to a write token"
# The test command is the pull request's code: it gets no token and no way to set this step's
# outputs, environment or summary.
_WITHHELD = frozenset({
    "GITHUB_TOKEN", "GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY",
    "ACTIONS_RUNTIME_TOKEN", "ACTIONS_RUNTIME_URL", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_CACHE_URL", "ACTIONS_RESULTS_URL",
})  # fmt: skip


def test_environment(environ: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in environ.items() if k not in _WITHHELD and not k.startswith("INPUT_")}


def gather_local(settings: Settings, event: PullRequestEvent, environ: Mapping[str, str]) -> Inputs:
    """Inputs for the event's base and head, with the tests run in a sandboxed copy of the head commit.

    Raises SyncError, UsageError, GitError, ManifestError or DiffParseError.
    """
    git = Git.open(settings.workspace)
    pull = event.pull
    ensure_commits(git, pull.base_sha, pull.head_sha)
    revisions = Revisions(pull.base_sha, pull.head_sha, find_merge_base(git, pull.base_sha, pull.head_sha))
    options = CheckOptions(
        repo=settings.workspace,
        manifest_path=settings.manifest,
        test_command=settings.test_command,
        no_tests=event.is_target,
        no_tests_reason=TARGET_NO_TESTS,
        reference_at_base=settings.reference,
        environment=test_environment(environ),
    )
    request = request_of(
        options,
        repo=event.repo.full_name,
        pr=pull.number,
        pull_request=pull.facts,
        description=pull.description,
    )
    return inputs_at(git, revisions, options, request)

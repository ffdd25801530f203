"""`check` and `compute`: the receipt of the pull request's head, gathered in the checkout."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from action.event import PullRequestEvent
from action.gitsync import ensure_commits, ensure_history, find_merge_base
from action.settings import Settings
from bot.engine import Inputs, ReceiptError
from bot.engine.whatif import Over, PullWhatIf
from bot.gather import Revisions
from bot.gather.whatif import proposed_manifest
from bot.local.check import CheckOptions, gathered_at, request_of, with_tests
from bot.local.git import Git
from bot.local.whatif import first_parent_rows

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


def gather_local(
    settings: Settings, event: PullRequestEvent, environ: Mapping[str, str], *, whatif: bool = False
) -> tuple[Inputs, PullWhatIf | None]:
    """Inputs for the event's base and head, with the tests run in a sandboxed copy of the head
    commit; and, with `whatif`, the what-if table of a manifest-editing pull request. Everything
    git reads is read before the tests run: the code under review could rewrite the checkout's git
    config and hooks, and the user's, for whatever git would run next.

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
    gathered = gathered_at(git, revisions, options, request)
    table = local_whatif(settings, event, gathered) if whatif else None
    return with_tests(git, revisions, options, gathered), table


def local_whatif(settings: Settings, event: PullRequestEvent, inputs: Inputs) -> PullWhatIf | None:
    """`check`'s what-if of a manifest-editing pull request, read from the checkout: the base
    commit's first-parent history (deepened as far as it needs), judged as `receipt whatif` judges
    it. A failure to read it leaves the receipt as it is, with the reason in place of the table."""
    proposed = proposed_manifest(inputs, settings.whatif_last)
    if proposed is None:
        return None
    base = event.pull.base_sha
    shown = PullWhatIf(proposed.name, Over.FIRST_PARENT, base, settings.whatif_last)
    try:
        git = Git.open(settings.workspace)
        ensure_history(git, base, settings.whatif_last)
        rows = first_parent_rows(git, base, settings.whatif_last, proposed, manifest_path=proposed.name)
    except ReceiptError as exc:
        return replace(shown, not_computed=str(exc))
    return replace(shown, rows=tuple(rows))

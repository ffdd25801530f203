"""A diff GitHub renders by the repository's .gitattributes never hides text from the receipt.

GitHub honours `-diff` and `binary` in .gitattributes: the diff media type says "Binary files
differ" for such a file and the files API omits its `patch`. The fake is told to do the same
through the origin's `info/attributes` (its diffs come from git in that repository). A file GitHub
shows without lines is taken as binary only when its bytes are binary by git's own rule (a NUL in
the first 8,000 bytes of either side); otherwise the receipt fails closed.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.engine import Inputs, TestEvidence
from bot.engine.diff import parse_diff
from bot.engine.errors import TooLargeToAssess
from bot.github.client import RetryPolicy, make_client
from bot.github.diffs import FetchedDiff, fetch_diff, fetch_range_diff, refuse_hidden_text
from bot.github.pulls import get_pull, merge_base
from bot.github.remote import gather_pull
from bot.github.repo import RepoRef
from bot.github.source import ApiSource
from tests.action.scenario import REPO, WRITE_TOKEN, Scenario

REPO_REF = RepoRef.parse(REPO)
FAST = RetryPolicy(backoff_seconds=0, max_rate_limit_wait=timedelta(seconds=5))


def _fetch(scenario: Scenario, *, files_api: bool) -> FetchedDiff:
    gh = make_client(WRITE_TOKEN, base_url=scenario.github.url, retry=FAST)
    pull = get_pull(gh, REPO_REF, scenario.number)
    if files_api:
        scenario.github.state.limits.max_files = 1  # the diff media type answers 406
    fetched = fetch_diff(
        gh,
        REPO_REF,
        pull,
        ApiSource(gh, REPO_REF),
        merge_base(gh, REPO_REF, pull.base_sha, pull.head_sha),
    )
    assert fetched.source == ("files" if files_api else "diff")
    return fetched


def _hostile(scenario: Scenario, attributes: str, files: dict[str, str | bytes]) -> None:
    scenario.base({"README.md": "r\n", "old.txt": "a\n", "was-binary.dat": "\0bin\n", "kept.bin": "\0k\n"})
    scenario.pr({"src/a.py": "x = 1\n", **files})  # type: ignore[dict-item]
    (scenario.origin.root / ".git" / "info" / "attributes").write_text(attributes)


@pytest.mark.parametrize("files_api", [False, True])
@pytest.mark.parametrize(
    ("attributes", "files", "hidden"),
    [
        ("secret.txt -diff\n", {"secret.txt": "token = 1\n"}, "secret.txt"),
        ("secret.txt binary\n", {"secret.txt": "token = 1\n"}, "secret.txt"),
        ("*.txt -diff\n", {"old.txt": "b\n"}, "old.txt"),  # modified: both sides text
        ("[attr]hide -diff\nsrc/*.py hide\n", {"src/b.py": "import os\n"}, "src/a.py"),
    ],
)
def test_text_that_github_shows_as_binary_fails_closed(
    scenario: Scenario, attributes: str, files: dict[str, str], hidden: str, files_api: bool
) -> None:
    _hostile(scenario, attributes, files)
    with pytest.raises(TooLargeToAssess, match=rf"{hidden}: GitHub shows no line diff for this text file"):
        _fetch(scenario, files_api=files_api)


@pytest.mark.parametrize("files_api", [False, True])
def test_real_binaries_stay_binaries(scenario: Scenario, files_api: bool) -> None:
    _hostile(
        scenario,
        "*.txt -diff\n*.dat -diff\n*.bin -diff\n",
        {
            "img.bin": "\0\1\2 new binary\n",  # added binary
            "kept.bin": "\0k2\n",  # binary on both sides
            "was-binary.dat": "now text\n",  # the old side is binary: git's rule says binary
            "old.txt": "\0became binary\n",  # the new side is binary
        },
    )
    fetched = _fetch(scenario, files_api=files_api)
    shown = {f.path: f.binary for f in parse_diff(fetched.data).files}
    assert shown == {
        "img.bin": True,
        "kept.bin": True,
        "was-binary.dat": True,
        "old.txt": True,
        "src/a.py": False,
    }


def test_a_changed_file_shown_with_nothing_at_all_fails_closed() -> None:
    """GitHub's diff naming a content change without hunks or a binary line is not a pass."""
    data = (
        b"diff --git a/x.py b/x.py\nindex 1111111..2222222 100644\n"
        b"diff --git a/e.txt b/e.txt\nnew file mode 100644\nindex 0000000..e69de29\n"
    )
    with pytest.raises(TooLargeToAssess, match=r"x\.py: GitHub shows no line diff"):
        refuse_hidden_text(data, lambda path, side: pytest.fail("no blob is read"))
    refuse_hidden_text(data.split(b"diff --git a/e.txt")[0].replace(b"2222222", b"1111111"), lambda p, s: b"")
    refuse_hidden_text(
        b"diff --git a/e.txt b/e.txt\nnew file mode 100644\nindex 0000000..e69de29\n", lambda p, s: b""
    )


def test_a_binary_too_large_to_check_fails_closed(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    _hostile(scenario, "", {"img.bin": "\0\1\2 binary\n"})
    monkeypatch.setattr("bot.github.diffs.MAX_CHECKED_BLOB", 4)
    with pytest.raises(TooLargeToAssess, match=r"img\.bin: GitHub shows it as binary, and at over 4 bytes"):
        _fetch(scenario, files_api=False)


def test_a_merge_groups_diff_is_checked_too(scenario: Scenario) -> None:
    _hostile(scenario, "secret.txt -diff\n", {"secret.txt": "token = 1\n"})
    gh = make_client(WRITE_TOKEN, base_url=scenario.github.url, retry=FAST)
    base = merge_base(gh, REPO_REF, scenario.base_sha, scenario.head_sha)
    with pytest.raises(TooLargeToAssess, match=r"secret\.txt: GitHub shows no line diff"):
        fetch_range_diff(gh, REPO_REF, base, scenario.head_sha, ApiSource(gh, REPO_REF))
    (scenario.origin.root / ".git" / "info" / "attributes").write_text("")
    assert (
        b"+token = 1" in fetch_range_diff(gh, REPO_REF, base, scenario.head_sha, ApiSource(gh, REPO_REF)).data
    )


def _gather(scenario: Scenario, *, files_api: bool) -> Inputs:
    gh = make_client(WRITE_TOKEN, base_url=scenario.github.url, retry=FAST)
    if files_api:
        scenario.github.state.limits.max_files = 1
    return gather_pull(gh, REPO_REF, get_pull(gh, REPO_REF, scenario.number), tests=TestEvidence())


BINARIES = {"tool.bin": "\0ELF\1\2\3 payload\n", "kept.bin": "\0k2\n"}


@pytest.mark.parametrize("files_api", [False, True])
def test_a_binary_that_github_shows_as_text_fails_closed(scenario: Scenario, files_api: bool) -> None:
    """`diff` in .gitattributes makes GitHub print a binary's bytes as lines; the binary rule must
    not be talked around that way."""
    _hostile(scenario, "*.bin diff\n", BINARIES)
    with pytest.raises(
        TooLargeToAssess, match=r"kept\.bin: the diff shows lines of a file whose bytes are binary"
    ):
        _gather(scenario, files_api=files_api)


@pytest.mark.parametrize("files_api", [False, True])
def test_binaries_github_shows_as_binaries_are_gathered(scenario: Scenario, files_api: bool) -> None:
    _hostile(scenario, "", BINARIES)
    inputs = _gather(scenario, files_api=files_api)
    assert {f.path for f in inputs.change.diff.files if f.binary} == {"tool.bin", "kept.bin"}

"""Costs stay linear in the input: a documented cap on what one receipt reads, and no per-match work
rebuilt for every candidate of a secret rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.engine.bounds import MAX_DIFF_BYTES, MAX_DIFF_FILES, MAX_DIFF_LINES
from bot.engine.change import change_from_diff
from bot.engine.content.added import Fragment
from bot.engine.content.ruleset import Allowlist, SecretPattern
from bot.engine.content.secrets import Detector, SecretScanner
from bot.engine.errors import TooLargeToAssess
from tests.gitrepo import GitRepo


def test_a_diff_past_the_byte_cap_is_too_large_to_assess() -> None:
    with pytest.raises(TooLargeToAssess, match=f"more than the {MAX_DIFF_BYTES:,} one receipt reads"):
        change_from_diff(b"x" * (MAX_DIFF_BYTES + 1))


def test_a_diff_past_the_line_cap_is_too_large_to_assess() -> None:
    """A parsed line costs memory whatever its length: 64 MiB of one-character lines would need
    gigabytes, so lines are capped too."""
    with pytest.raises(TooLargeToAssess, match=f"lines, more than the {MAX_DIFF_LINES:,} one receipt reads"):
        change_from_diff(b"+\n" * (MAX_DIFF_LINES + 1))


def test_a_diff_past_the_file_cap_is_too_large_to_assess() -> None:
    one = "diff --git a/f{0} b/f{0}\nold mode 100644\nnew mode 100755\n"
    data = "".join(one.format(i) for i in range(MAX_DIFF_FILES + 1)).encode()
    with pytest.raises(TooLargeToAssess, match=f"changes 10,001 files, more than the {MAX_DIFF_FILES:,}"):
        change_from_diff(data)
    assert len(change_from_diff(data[: data.index(b"diff --git a/f10000 ")]).diff.files) == MAX_DIFF_FILES


def test_the_cli_stops_reading_a_diff_past_the_cap_and_says_so(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo.write("a.txt", "a\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("a.txt", "b\n" * 50_000)
    repo.commit("big")
    monkeypatch.setattr("bot.local.check.MAX_DIFF_BYTES", 10_000)
    assert main(["check", "--repo", str(repo.root), "--base", "main", "--no-tests"]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == "receipt: error: too large to assess: the diff is more than the 10,000 bytes one receipt reads\n"
    )


class _Counted(tuple[str, ...]):
    """Stopwords that count how often they are read."""

    reads = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        type(self).reads += 1
        return super().__iter__()


def test_an_allowlists_stopwords_are_not_read_again_for_every_match() -> None:
    words = _Counted(f"word{i}" for i in range(500))
    _Counted.reads = 0
    pattern = SecretPattern("r", r"k=(\w+)", allowlists=(Allowlist(stopwords=words),))
    scanner = SecretScanner([Detector.of(pattern)], Allowlist())
    text = "".join(f"k=v{i}\n" for i in range(2000)) + "k=xword7x\n"
    found = scanner.scan("a.txt", Fragment(text, range(1, 2003)))
    assert len(found) == 2000  # the last one holds a stopword: dropped
    assert _Counted.reads <= 2  # read to compile them once, not once per candidate

"""A path that changes type keeps both sides: git writes a deletion and an addition at the same path,
and each keeps its own texts (a file replaced by a symlink, a submodule, or the other way round)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine.change import Change, FileTexts, file_key
from bot.engine.diff import FileStatus
from bot.engine.excess import Exclusion, measure_excess
from bot.gather import GivenFile, Request, build_change
from bot.gather.core import load_reference
from bot.local.check import resolve_revisions
from bot.local.git import Git
from bot.local.source import LocalSource
from tests.gitrepo import GitRepo

TEXT = "def f():\n    return 1\n"
COMMIT = "1" * 40


def _file(repo: GitRepo, path: str) -> None:
    repo.write(path, TEXT)


def _symlink(repo: GitRepo, path: str) -> None:
    repo.symlink(path, "elsewhere.py")


def _submodule(repo: GitRepo, path: str) -> None:
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{COMMIT},{path}")


KINDS = {"file": _file, "symlink": _symlink, "submodule": _submodule}


def _make(repo: GitRepo, before: str, after: str) -> None:
    repo.write("other.py", "x = 1\n")
    KINDS[before](repo, "p")
    if before == "submodule":
        repo.git("commit", "-q", "-m", "base")
    else:
        repo.commit("base")
    repo.branch("pr")
    if before == "submodule":
        repo.git("rm", "-q", "--cached", "p")
    else:
        (repo.root / "p").unlink()
    KINDS[after](repo, "p")
    repo.write("other.py", "x = 2\n")
    if after == "submodule":
        repo.git("add", "other.py")
        repo.git("commit", "-q", "-m", "head")
    else:
        repo.commit("head")


def _change(repo: GitRepo) -> Change:
    """main...pr as the local gatherer builds it, texts included."""
    git = Git.open(repo.root)
    revisions = resolve_revisions(git, "main", "pr")
    return build_change(LocalSource(git), git.diff(revisions.merge_base, revisions.head), revisions)


TRANSITIONS = [(a, b) for a in KINDS for b in KINDS if a != b and "file" in (a, b)]


@pytest.mark.parametrize(("before", "after"), TRANSITIONS)
def test_both_sides_of_a_type_change_keep_their_texts(repo: GitRepo, before: str, after: str) -> None:
    _make(repo, before, after)
    change = _change(repo)
    at_p = [f for f in change.diff.files if f.path == "p"]
    assert [f.status for f in at_p] == [FileStatus.DELETED, FileStatus.ADDED]
    deleted, added = at_p
    if before == "file":
        assert change.texts_of(deleted) == FileTexts(base=TEXT, head="")
    if after == "file":
        assert change.texts_of(added) == FileTexts(base="", head=TEXT)
    assert file_key(deleted) != file_key(added)

    result = measure_excess(change)
    # the file side is measured (its whole text added or removed), the other side is left out
    assert [(e.path, e.reason) for e in result.excluded] == [("p", Exclusion.NOT_A_FILE)]
    assert result.files == 2  # p (as a file) and other.py
    assert result.distance is not None and result.distance > 0.5


@pytest.mark.parametrize(("before", "after"), TRANSITIONS)
def test_a_type_change_is_its_own_reference(repo: GitRepo, before: str, after: str, tmp_path: Path) -> None:
    """The change's own diff as the reference applies to the base, and has no excess over itself."""
    _make(repo, before, after)
    git = Git.open(repo.root)
    revisions = resolve_revisions(git, "main", "pr")
    change = _change(repo)
    request = Request(reference_file=GivenFile("self.patch", git.diff(revisions.merge_base, revisions.head)))
    reference = load_reference(LocalSource(git), change, revisions, request)
    assert reference is not None
    result = measure_excess(change, reference)
    assert result.excess == 0.0 and result.reference_distance == result.distance


def test_a_deletion_and_an_addition_in_one_diff_are_two_changes(repo: GitRepo) -> None:
    repo.write("gone.py", TEXT)
    repo.commit("base")
    repo.branch("pr")
    repo.remove("gone.py")
    repo.write("new.py", "y = 2\n")
    repo.commit("head")
    change = _change(repo)
    gone, new = sorted(change.diff.files, key=lambda f: f.path)
    assert change.texts_of(gone) == FileTexts(TEXT, "") and change.texts_of(new) == FileTexts("", "y = 2\n")

"""The pull request does not choose how its own diff is read.

Every `.gitattributes` trick (a text file hidden as binary, a binary shown as text, textconv and
external diff drivers, a driver's `binary` setting, filters, a funcname that rewrites hunk headers)
is tried from every place git reads attributes: committed in the change, committed at the base,
only in the working tree, in `.git/info/attributes`, and in the user's global attributes file. The
diff (and the receipt) must be exactly what a repository without those attributes gives.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from bot.engine.diff import FileDiff, parse_diff
from bot.engine.receipt import Receipt
from bot.local.git import Git
from tests.content.helpers import checksummed
from tests.gitrepo import GitRepo, check

TOKEN = checksummed("ghp", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5")

BASE = {
    "a.txt": b"x\n",
    "img.bin": b"\0\1\2binary\n",
    "code.py": b"def first():\n    a = 1\n    b = 2\n    c = 3\n    d = 4\n    e = 5\n    f = 6\n",
}
HEAD = {
    "secret.txt": f"token = {TOKEN}\n".encode(),  # -diff: shown as "Binary files differ"
    "hidden.txt": f"password = {TOKEN}\n".encode(),  # binary (the macro)
    "img.bin": b"\0\1\3binary\nmore\n",  # diff: a binary shown as text
    "conv.txt": b"hello world\n",  # diff=tc: a textconv driver
    "flagged.txt": b"plain text\n",  # diff=bn: diff.bn.binary=true
    "ext.txt": b"external\n",  # diff=ext: diff.ext.command
    "filt.txt": b"filtered\n",  # filter=up
    "code.py": b"def first():\n    a = 1\n    b = 2\n    c = 3\n    d = 4\n    e = 5\n    f = 7\n",
    "a.txt": b"y\n",  # a macro defined in the attributes: -diff
}
ATTRIBUTES = """\
[attr]sneaky -diff -text
secret.txt -diff
hidden.txt binary
img.bin diff
conv.txt diff=tc
flagged.txt diff=bn
ext.txt diff=ext
filt.txt filter=up
code.py diff=fn
a.txt sneaky
"""
DRIVERS = {
    "diff.tc.textconv": "tr a-z A-Z",
    "diff.tc.cachetextconv": "false",
    "diff.bn.binary": "true",
    "diff.ext.command": "echo HACKED",
    "diff.fn.xfuncname": "^(    .*)$",
    "filter.up.clean": "tr a-z A-Z",
    "filter.up.smudge": "tr A-Z a-z",
}
PLACES = ("head", "base", "worktree", "info", "global", "xdg")


def _build(root: Path, place: str | None, home: Path) -> GitRepo:
    repo = GitRepo.create(root)
    for path, data in BASE.items():
        repo.write(path, data)
    if place == "base":
        repo.write(".gitattributes", ATTRIBUTES)
    repo.commit("base")
    repo.branch("pr")
    for path, data in HEAD.items():
        repo.write(path, data)
    if place == "head":
        repo.write(".gitattributes", ATTRIBUTES)
    repo.commit("head")
    if place is None:
        return repo
    for key, value in DRIVERS.items():  # the caller's own configuration, which names the drivers
        repo.git("config", key, value)
    if place == "worktree":
        repo.write(".gitattributes", ATTRIBUTES)  # untracked: only in the working tree
    elif place == "info":
        repo.write(".git/info/attributes", ATTRIBUTES)
    elif place == "global":
        (home / "attrs").write_text(ATTRIBUTES)
        (home / ".gitconfig").write_text(f"[core]\n\tattributesFile = {home / 'attrs'}\n")
    elif place == "xdg":
        (home / ".config" / "git").mkdir(parents=True)
        (home / ".config" / "git" / "attributes").write_text(ATTRIBUTES)
    return repo


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The caller's home directory, read by git for the global config and attributes."""
    where = tmp_path / "home"
    where.mkdir()
    monkeypatch.setenv("HOME", str(where))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return where


def _blocks(data: bytes) -> dict[str, bytes]:
    """Each file's part of the diff, by path, without the repository's .gitattributes itself."""
    parts = data.split(b"\ndiff --git ")
    blocks = [parts[0], *(b"diff --git " + p for p in parts[1:])]
    out: dict[str, bytes] = {}
    for block in blocks:
        (file,) = parse_diff(block).files
        if file.path != ".gitattributes":
            out[file.path] = block.rstrip(b"\n")
    return out


def _files(receipt_diff: bytes) -> list[FileDiff]:
    return [f for f in parse_diff(receipt_diff).files if f.path != ".gitattributes"]


def _findings(receipt: Receipt) -> list[tuple[str, str, int | None, str]]:
    return [
        (v.rule.value, v.path, v.line, v.id)
        for v in (*receipt.scope, *receipt.locality_violations)
        if v.path != ".gitattributes"
    ]


def _plain_git_is_fooled(repo: GitRepo) -> bool:
    """Whether git as the user runs it reads the diff the attributes' way (the attack is real)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {"LC_ALL": "C"}
    command = ["git", "diff", "main", "pr", "--", "secret.txt"]
    out = subprocess.run(command, cwd=repo.root, env=env, capture_output=True, check=True).stdout
    return b"Binary files" in out


@pytest.mark.parametrize("place", PLACES)
def test_attributes_from_anywhere_do_not_change_the_diff(place: str, tmp_path: Path, home: Path) -> None:
    plain = _build(tmp_path / "plain", None, home)
    hostile = _build(tmp_path / "hostile", place, home)
    assert _plain_git_is_fooled(hostile), "the trick must work on git as the user runs it"
    expected = Git.open(plain.root).diff("main", "pr")
    got = Git.open(hostile.root).diff("main", "pr")
    assert _blocks(got) == _blocks(expected)
    assert _files(got) == _files(expected)
    assert b"HACKED" not in got and b"HELLO" not in got


@pytest.mark.parametrize("place", PLACES)
def test_attributes_do_not_change_the_receipt(place: str, tmp_path: Path, home: Path) -> None:
    plain = _build(tmp_path / "plain", None, home)
    hostile = _build(tmp_path / "hostile", place, home)
    expected, got = check(plain, head="pr"), check(hostile, head="pr")
    assert _findings(got) == _findings(expected)
    secrets = {v.path for v in got.scope if v.rule.value == "secret"}
    assert secrets == {"secret.txt", "hidden.txt"}
    binaries = {v.path for v in got.scope if v.rule.value == "binary"}
    assert binaries == {"img.bin"}
    if place not in ("head", "base"):  # the same commits: the whole receipt is the same bytes
        assert json.dumps(got.as_json()) == json.dumps(expected.as_json())


def test_the_diff_leaves_nothing_behind(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _build(tmp_path / "repo", "info", home)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    git = Git.open(repo.root)
    before = sorted(p.relative_to(repo.root) for p in repo.root.rglob("*"))
    assert git.diff("main", "pr") == git.diff("main", "pr")
    assert sorted(p.relative_to(repo.root) for p in repo.root.rglob("*")) == before
    assert list(scratch.iterdir()) == []


CONFIG_TRICKS = {
    "core.bigFileThreshold": "1",  # every file binary
    "diff.interHunkContext": "20",  # hunks merged
    "diff.context": "0",
    "diff.algorithm": "patience",
    "diff.noprefix": "true",
    "core.quotePath": "false",
    "diff.external": "echo HACKED",
    "diff.orderFile": "order.txt",
}


@pytest.mark.parametrize("where", ["repository", "global"])
def test_the_callers_configuration_does_not_change_the_diff(
    where: str, tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = _build(tmp_path / "plain", None, home)
    hostile = _build(tmp_path / "hostile", None, home)
    (hostile.root / "order.txt").write_text("secret.txt\n")
    expected = Git.open(plain.root).diff("main", "pr")
    for key, value in CONFIG_TRICKS.items():
        if where == "repository":
            hostile.git("config", key, value)
        else:
            hostile.git("config", "--file", str(home / ".gitconfig"), key, value)
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", "echo HACKED")
    monkeypatch.setenv("GIT_DIFF_OPTS", "-u0")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.bigFileThreshold")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "1")
    monkeypatch.setenv("GIT_ATTR_SOURCE", "pr")
    assert Git.open(hostile.root).diff("main", "pr") == expected


def test_a_sha256_repository_is_read_too(tmp_path: Path, home: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.root.mkdir()
    repo.git("init", "-q", "-b", "main", "--object-format=sha256")
    repo.write("a.txt", "one\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("a.txt", "two\n")
    repo.write(".gitattributes", "a.txt -diff\n")
    repo.commit("head")
    data = Git.open(repo.root).diff("main", "pr")
    (changed,) = [f for f in parse_diff(data).files if f.path == "a.txt"]
    assert not changed.binary and changed.new_blob is not None and len(changed.new_blob) == 64


def test_a_linked_worktree_reads_the_shared_objects(tmp_path: Path, home: Path) -> None:
    repo = _build(tmp_path / "repo", "info", home)
    repo.git("worktree", "add", "-q", "--detach", str(tmp_path / "linked"), "pr")
    (tmp_path / "linked" / ".gitattributes").write_text(ATTRIBUTES)
    assert Git.open(tmp_path / "linked").diff("main", "pr") == Git.open(repo.root).diff("main", "pr")

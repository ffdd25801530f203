"""Judge what merging does: path rules over `merge-base..head` and `base..merge`, budgets over the
larger, a merge that cannot be known (a conflict) fails closed.

Every repository here is real: a branch forks, the base moves on, and `receipt check` compares the
branch against the moved base, as a pull request is compared.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.engine import render_markdown, render_terminal
from bot.engine.receipt import Receipt
from bot.local.git import FIXED_ATTRIBUTES, Git
from bot.local.inspect import inspect_receipt
from tests.gitrepo import GitRepo, check, rules

PROTECT = "version: 1\npaths:\n  protect: ['protected/**']\n"
TESTS_ADDED_OK = "version: 1\npaths:\n  protect: [{paths: ['tests/**'], allow: [added]}]\n"
UTIL = "def double(x):\n    return x * 2\n"


def _repo(tmp_path: Path, base: dict[str, str]) -> GitRepo:
    repo = GitRepo.create(tmp_path / "repo")
    for path, text in base.items():
        repo.write(path, text)
    repo.commit("base")
    return repo


def _branch(repo: GitRepo, files: dict[str, str], name: str = "feature") -> str:
    repo.branch(name, "main")
    for path, text in files.items():
        repo.write(path, text)
    head = repo.commit("the change")
    repo.checkout("main")
    return head


def _body(receipt: Receipt) -> dict[str, Any]:
    return receipt.as_json()


def test_a_file_the_base_renamed_into_a_protected_directory_is_judged_where_the_merge_puts_it(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path, {".github/receipt.yml": PROTECT, "src/util.py": UTIL})
    _branch(repo, {"src/util.py": UTIL.replace("* 2", "* 3")})
    repo.move("src/util.py", "protected/util.py")  # on the base, after the fork
    base = repo.commit("move util into protected/")

    receipt = check(repo, base="main", head="feature")

    assert rules(receipt) == [("protected-path", "protected/util.py")]
    [finding] = receipt.scope
    assert "when merged onto the base, this change modifies it" in finding.message
    assert "the base branch added it, or renamed a file to it, since this branch forked" in finding.message
    assert receipt.verdict.conclusion == "failure"
    merge = _body(receipt)["subject"]["merge"]
    assert merge["source"] == "merge-tree" and merge["commit"] is None and merge["problem"] is None
    assert merge["change"]["files"] == 1 and merge["change"]["logical_lines"] == 1
    assert merge["tree"] == Git.open(repo.root).merge_tree(base, "feature").tree
    # merge-base..head alone names only the old path, which nothing protects
    assert _body(receipt)["change"]["files"] == 1
    shown = f"as merged onto the base {base[:12]} (git merge-tree {merge['tree'][:12]}): 1 file(s)"
    assert f"  merged     {shown}" in render_terminal(receipt)
    assert "As merged onto the base" in render_markdown(receipt)


def test_near_miss_the_same_branch_onto_a_base_that_did_not_move_the_file_passes(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {".github/receipt.yml": PROTECT, "src/util.py": UTIL})
    _branch(repo, {"src/util.py": UTIL.replace("* 2", "* 3")})
    repo.write("docs/later.md", "unrelated\n")
    repo.commit("an unrelated base commit")

    receipt = check(repo, base="main", head="feature")

    assert rules(receipt) == [] and receipt.verdict.conclusion == "success"
    assert _body(receipt)["subject"]["merge"]["source"] == "merge-tree"


def test_a_rename_into_a_path_that_allows_only_additions_is_a_modification_when_merged(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path, {".github/receipt.yml": TESTS_ADDED_OK, "src/helpers.py": UTIL})
    _branch(repo, {"src/helpers.py": UTIL + "\n\ndef triple(x):\n    return x * 3\n"})
    repo.move("src/helpers.py", "tests/helpers.py")
    repo.commit("helpers are test helpers now")

    receipt = check(repo, base="main", head="feature")

    assert rules(receipt) == [("protected-path", "tests/helpers.py")]
    assert (
        "which allows added; when merged onto the base, this change modifies it" in receipt.scope[0].message
    )


def test_the_branch_adding_a_file_the_base_added_since_is_a_conflict_and_fails(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {".github/receipt.yml": TESTS_ADDED_OK, "src/a.py": UTIL})
    _branch(repo, {"tests/test_new.py": "def test_it():\n    assert True\n"})
    repo.write("tests/test_new.py", "def test_it():\n    assert 1 + 1 == 2\n")
    repo.commit("the base adds the same protected path")

    receipt = check(repo, base="main", head="feature")

    assert rules(receipt) == [("merge", None)]
    assert receipt.verdict.conclusion == "failure"
    [finding] = receipt.scope
    assert finding.id == "merge-conflict"
    assert "Cannot assess what merging this change would do to the base" in finding.message
    assert "tests/test_new.py" in finding.message
    merge = _body(receipt)["subject"]["merge"]
    assert merge["change"] is None and merge["tree"] is None
    assert merge["conflicts"] == ["tests/test_new.py"]
    assert "does not merge cleanly" in merge["problem"]


def test_near_miss_a_new_test_file_the_base_added_identically_passes(tmp_path: Path) -> None:
    added = {"tests/test_new.py": "def test_it():\n    assert True\n"}
    repo = _repo(tmp_path, {".github/receipt.yml": TESTS_ADDED_OK, "src/a.py": UTIL})
    _branch(repo, added)
    for path, text in added.items():
        repo.write(path, text)
    repo.commit("the base adds the very same file")

    receipt = check(repo, base="main", head="feature")

    assert rules(receipt) == [] and receipt.verdict.conclusion == "success"
    assert _body(receipt)["subject"]["merge"]["change"]["files"] == 0


def test_a_new_file_in_a_directory_the_base_moved_into_a_protected_one_cannot_pass(tmp_path: Path) -> None:
    base = {".github/receipt.yml": PROTECT, "plugins/a.py": UTIL, "plugins/b.py": UTIL.replace("x", "y")}
    repo = _repo(tmp_path, base)
    _branch(repo, {"plugins/c.py": "def c():\n    return 3\n"})
    repo.move("plugins/a.py", "protected/plugins/a.py")
    repo.move("plugins/b.py", "protected/plugins/b.py")
    repo.commit("plugins are protected now")

    receipt = check(repo, base="main", head="feature")

    # git reports a directory rename as a conflict: where the new file lands is not decided
    assert rules(receipt) == [("merge", None)] and receipt.verdict.conclusion == "failure"
    assert receipt.scope[0].id == "merge-conflict"


def test_a_content_conflict_fails_with_the_conflicting_paths_and_exit_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    repo = _repo(tmp_path, {"src/a.py": UTIL})
    _branch(repo, {"src/a.py": UTIL.replace("* 2", "* 3")})
    repo.write("src/a.py", UTIL.replace("* 2", "* 4"))
    repo.commit("the base changes the same line")
    out = tmp_path / "receipt.json"

    status = main(["check", "--repo", str(repo.root), "--base", "main", "--head", "feature", "--no-tests",
                   "--json", str(out)])  # fmt: skip

    assert status == 1
    body = json.loads(out.read_text())
    assert body["verdict"]["conclusion"] == "failure"
    assert [v["rule"] for v in body["scope"]["violations"]] == ["merge"]
    assert body["subject"]["merge"]["conflicts"] == ["src/a.py"]
    assert "merge" in capsys.readouterr().out


def test_a_merge_driver_named_by_the_repository_never_runs(tmp_path: Path) -> None:
    """`merge=ours` would keep the base's side and hide the branch's change to a protected file."""
    repo = _repo(tmp_path, {".github/receipt.yml": PROTECT, "src/util.py": UTIL, "other.txt": "a\n"})
    repo.write(".gitattributes", "*.py merge=union\n")  # a built-in driver: needs no config
    repo.commit("attributes")
    repo.git("config", "merge.ours.driver", "true")
    (repo.root / ".git" / "info").mkdir(exist_ok=True)
    (repo.root / ".git" / "info" / "attributes").write_text("* merge=ours\n")
    _branch(repo, {"src/util.py": UTIL.replace("* 2", "* 3")})
    repo.write("src/util.py", UTIL.replace("* 2", "* 4"))
    repo.commit("the base changes the same line")

    receipt = check(repo, base="main", head="feature")

    assert rules(receipt) == [("merge", None)]  # git's own merge: a conflict, not the driver's "clean"
    assert "!merge" in FIXED_ATTRIBUTES


def test_an_ordinary_pull_request_gets_the_receipt_it_had_plus_the_merge(tmp_path: Path) -> None:
    """Fast-forward or not, an ordinary change: only `subject` tells the two apart."""
    repo = _repo(tmp_path, {".github/receipt.yml": PROTECT, "src/util.py": UTIL, "protected/keep.txt": "k\n"})
    head = _branch(repo, {"src/util.py": UTIL.replace("* 2", "* 3"), "src/new.py": "VALUE = 1\n"})
    fork = repo.head()

    fast = _body(check(repo, base=fork, head="feature"))
    repo.write("docs/later.md", "unrelated\n")
    repo.commit("an unrelated base commit")
    moved = _body(check(repo, base="main", head="feature"))

    assert fast["subject"]["merge"] == {
        "source": "fast-forward",
        "tree": Git.open(repo.root).resolve_tree(head),
        "commit": head,
        "change": fast["change"],
        "problem": None,
        "conflicts": [],
    }
    assert moved["subject"]["merge"]["source"] == "merge-tree"
    assert "  merged " not in render_terminal(check(repo, base=fork, head="feature"))  # nothing to add
    assert moved["subject"]["merge"]["change"] | {"digest": None} == fast["change"] | {"digest": None}
    for body in (fast, moved):
        del body["subject"], body["digest"]
    assert moved == fast


def test_inspect_verifies_the_merge_side_digest(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {".github/receipt.yml": PROTECT, "src/util.py": UTIL})
    _branch(repo, {"src/util.py": UTIL.replace("* 2", "* 3")})
    repo.move("src/util.py", "protected/util.py")
    repo.commit("move")
    git = Git.open(repo.root)
    body = _body(check(repo, base="main", head="feature"))

    report = inspect_receipt(body, git)
    assert report.ok, report.lines
    assert any(line.startswith("ok        subject.merge.change.digest") for line in report.lines)

    body["subject"]["merge"]["change"]["digest"] = body["change"]["digest"]
    from bot.engine import digest_of

    body["digest"] = digest_of(body)
    tampered = inspect_receipt(body, git)
    assert not tampered.ok
    assert any(line.startswith("MISMATCH  subject.merge.change.digest") for line in tampered.lines)


def test_a_conflict_on_a_name_that_is_not_utf8_is_shown_in_the_receipts_form(tmp_path: Path) -> None:
    name = b"src/caf\xe9.py"
    repo = GitRepo.create(tmp_path / "repo")
    repo.write(name, UTIL)
    repo.commit("base")
    repo.branch("feature")
    repo.write(name, UTIL.replace("* 2", "* 3"))
    repo.commit("the change")
    repo.checkout("main")
    repo.write(name, UTIL.replace("* 2", "* 4"))
    repo.commit("the base changes the same line")

    body = _body(check(repo, base="main", head="feature"))

    assert body["subject"]["merge"]["conflicts"] == ['"src/caf\\351.py"']
    assert '"src/caf\\351.py"' in body["scope"]["violations"][0]["message"]
    json.dumps(body, ensure_ascii=False).encode("utf-8")  # a receipt, whatever the name

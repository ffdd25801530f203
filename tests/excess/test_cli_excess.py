"""The excess field end to end: real repositories, the gatherer and `receipt check`."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.gitrepo import GitRepo

C = "def area(w, h):\n    return w + h\n"
G = "def area(w, h):\n    return w * h\n"
M_BIG = "def area(w, h):\n    if w < 0:\n        raise ValueError(w)\n    return w * h\n"


def check(repo: GitRepo, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any], str]:
    markdown = repo.root.parent / "summary.md"
    argv = ["check", "--repo", str(repo.root), "--base", "main", "--no-tests", "--json", "-"]
    code = main([*argv, "--markdown", str(markdown), *extra])
    out = capsys.readouterr()
    body = json.loads(out.out) if code in (0, 1) else {}
    summary = markdown.read_text(encoding="utf-8") if markdown.exists() else ""
    return code, body, summary + out.err


def branch_with(repo: GitRepo, files: dict[str, str | bytes], name: str = "change") -> None:
    repo.branch(name)
    for path, content in files.items():
        repo.write(path, content)
    repo.commit(name)


def gold_patch(repo: GitRepo, files: dict[str, str]) -> Path:
    """The reference patch, as `git diff` writes it, from a throwaway branch off main."""
    current = repo.git("rev-parse", "--abbrev-ref", "HEAD").strip()
    repo.git("checkout", "-q", "-b", "gold", "main")
    for path, content in files.items():
        repo.write(path, content)
    repo.commit("gold")
    target = repo.root.parent / "gold.patch"
    target.write_bytes(repo.git_bytes("diff", "main", "gold"))
    repo.checkout(current)
    return target


@pytest.fixture
def area_repo(repo: GitRepo) -> GitRepo:
    repo.write("src/area.py", C)
    repo.write("src/util.py", "def util(x):\n    return x\n")
    repo.commit("base")
    return repo


def test_without_a_reference(area_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    branch_with(area_repo, {"src/area.py": M_BIG})
    code, body, summary = check(area_repo, capsys)
    x = body["excess"]
    assert code == 0
    assert x["reference"] is None and x["excess"] is None and x["reference_distance"] is None
    assert 0 < x["distance"] < 1
    assert x["added_complexity"] == 1
    assert x["formatting_share"] == 0.0
    assert "This change rewrote" in summary and "no reference fix to compare it with" in summary
    assert "Cognitive complexity +1 against the base (`area` +1)." in summary


def test_head_equal_to_the_reference(area_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    reference = gold_patch(area_repo, {"src/area.py": G})
    branch_with(area_repo, {"src/area.py": G})
    code, body, summary = check(area_repo, capsys, "--reference", str(reference))
    x = body["excess"]
    assert code == 0
    assert x["excess"] == 0.0
    assert x["reference"] == {
        "source": str(reference),
        "digest": "sha256:" + hashlib.sha256(reference.read_bytes()).hexdigest(),
    }
    assert x["reference_distance"] == x["distance"]
    assert "exactly as much." in summary


def test_more_than_the_reference(area_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    reference = gold_patch(area_repo, {"src/area.py": G})
    branch_with(area_repo, {"src/area.py": M_BIG})
    code, body, summary = check(area_repo, capsys, "--reference", str(reference))
    assert code == 0
    assert body["excess"]["excess"] > 0
    assert body["excess"]["added_complexity"] == 1
    assert "more than needed" in summary
    assert "against the reference" in summary


def test_reference_touching_a_file_the_change_does_not_reads_it_at_the_merge_base(
    area_repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    reference = gold_patch(area_repo, {"src/area.py": G, "src/util.py": "def util(x):\n    return x + 1\n"})
    branch_with(area_repo, {"src/area.py": G})
    # main moves on after the branch point: the reference still applies to the merge base
    area_repo.checkout("main")
    area_repo.write("src/util.py", "def util(x, y):\n    return x - y\n")
    area_repo.commit("main moves on")
    area_repo.checkout("change")
    code, body, _ = check(area_repo, capsys, "--reference", str(reference))
    x = body["excess"]
    assert code == 0
    assert x["excess"] < 0  # the reference also fixed util.py; this change did not
    assert x["reference_distance"] > x["distance"] - 1


def test_excluded_and_unparsable_files_are_counted_in_the_summary(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write("src/area.py", C)
    repo.write("old.txt", "gone soon\n")
    repo.write(".github/receipt.yml", "version: 1\npaths:\n  allow_binary: true\n")
    repo.commit("base")
    branch_with(
        repo,
        {
            "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00binary",
            "src/area.py": "def area(w, h:\n    return w * h\n",
            "empty.txt": "",
            "src/new.py": "def new():\n    return 1\n",
        },
    )
    repo.remove("old.txt")
    repo.commit("delete")
    code, body, summary = check(repo, capsys)
    x = body["excess"]
    assert code == 0
    assert x["distance"] > 0
    assert x["added_complexity"] == 0  # new.py adds a function of complexity 0; area.py is not read
    assert "Does not parse, read by the tokenizer alone: `src/area.py`." in summary
    assert "Left out: 1 file (binary)." in summary


def test_only_binary_files(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.write(".github/receipt.yml", "version: 1\npaths:\n  allow_binary: true\n")
    repo.commit("base")
    branch_with(repo, {"logo.png": b"\x00\x01\x02"})
    code, body, summary = check(repo, capsys)
    assert code == 0
    assert body["excess"]["distance"] is None
    assert body["excess"]["added_complexity"] is None
    assert "No text file to measure. Left out: 1 file (binary)." in summary


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read: No such file or directory"),
        (b"not a patch\n", "not a diff: diff line 1: not a unified diff: no '--- ' / '+++ ' file headers"),
        (b"", "not a diff: it changes no file"),
        (
            b"--- a/src/area.py\n+++ b/src/area.py\n@@ -1,2 +1,2 @@\n"
            b" def area(w, h):\n-    return w - h\n+    return w * h\n",
            "hunk 1 (@@ -1,2 +1,2 @@) of src/area.py does not apply to the base: "
            "line 2 is '    return w + h' in the base, the patch expects '    return w - h'",
        ),
        (
            b"--- a/src/missing.py\n+++ b/src/missing.py\n@@ -1 +1 @@\n-a\n+b\n",
            "src/missing.py does not apply to the base: the base has no such file",
        ),
        (
            b"diff --git a/src/util.py b/src/util.py\nnew file mode 100644\n"
            b"--- /dev/null\n+++ b/src/util.py\n@@ -0,0 +1 @@\n+x\n",
            "src/util.py does not apply to the base: it adds the file, which the base already has",
        ),
    ],
)
def test_a_bad_reference_is_a_usage_error_before_any_test_runs(
    area_repo: GitRepo, capsys: pytest.CaptureFixture[str], content: bytes | None, message: str
) -> None:
    branch_with(area_repo, {"src/area.py": G})
    reference = area_repo.root.parent / "ref.patch"
    if content is not None:
        reference.write_bytes(content)
    marker = area_repo.root.parent / "tests-ran"
    argv = ["check", "--repo", str(area_repo.root), "--base", "main", "--reference", str(reference)]
    code = main([*argv, "--test-command", f"touch {marker}"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"receipt: error: --reference {reference}: {message}\n"
    assert not marker.exists()


def test_reference_on_a_binary_base_file_is_left_out(
    area_repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    area_repo.checkout("main")
    area_repo.write("data.bin", b"a\x00b\n")
    area_repo.commit("binary")
    branch_with(area_repo, {"src/area.py": G})
    reference = area_repo.root.parent / "ref.patch"
    reference.write_bytes(b"--- a/data.bin\n+++ b/data.bin\n@@ -1 +1 @@\n-a\x00b\n+c\n")
    code, body, summary = check(area_repo, capsys, "--reference", str(reference))
    assert code == 0
    assert body["excess"]["reference_distance"] is None
    assert body["excess"]["excess"] is not None  # over the union: area.py alone
    assert "Left out: 1 file (too large or not text)." in summary


@pytest.mark.parametrize(
    ("policy", "code", "conclusion", "reason"),
    [
        ("excess: {max_distance: 0.01}", 0, "neutral", "excess alarm: distance "),
        ("excess: {max_excess: 0.0, on_alarm: failure}", 1, "failure", "excess alarm: excess +"),
        (
            "excess: {max_added_complexity: 0, on_alarm: action_required}",
            1,
            "action_required",
            "complexity +1",
        ),
        ("excess: {max_distance: 0.99, max_excess: 0.9, max_added_complexity: 5}", 0, "success", None),
    ],
)
def test_alarms_follow_the_manifest(
    area_repo: GitRepo,
    capsys: pytest.CaptureFixture[str],
    policy: str,
    code: int,
    conclusion: str,
    reason: str | None,
) -> None:
    area_repo.write(".github/receipt.yml", f"version: 1\n{policy}\n")
    area_repo.commit("policy")
    reference = gold_patch(area_repo, {"src/area.py": G})
    branch_with(area_repo, {"src/area.py": M_BIG})
    got, body, _ = check(area_repo, capsys, "--reference", str(reference))
    assert got == code
    assert body["excess"]["alarm"] is (reason is not None)
    assert body["verdict"]["conclusion"] == conclusion
    if reason is not None:
        assert any(reason in r for r in body["verdict"]["reasons"])


def test_a_pull_request_changing_the_policy_is_dry_run_with_the_same_numbers(
    area_repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    area_repo.write(".github/receipt.yml", "version: 1\n")
    area_repo.commit("policy")
    branch_with(
        area_repo, {"src/area.py": M_BIG, ".github/receipt.yml": "version: 1\nexcess: {max_distance: 0.01}\n"}
    )
    code, body, _ = check(area_repo, capsys)
    assert code == 1  # manifest-change
    assert body["excess"]["alarm"] is False  # judged by the base policy
    dry_run = body["manifest"]["dry_run"]
    assert dry_run["conclusion"] == "neutral"
    assert any(r.startswith("excess alarm: distance") for r in dry_run["reasons"])


def test_terminal_text_explains_the_number(area_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    branch_with(area_repo, {"src/area.py": M_BIG})
    assert main(["check", "--repo", str(area_repo.root), "--base", "main", "--no-tests"]) == 0
    out = capsys.readouterr().out
    assert "  excess     distance " in out
    assert "             This change rewrote " in out


def test_past_the_text_limit_the_receipt_says_excess_was_not_measured(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.engine import excess

    repo.write("area.py", C)
    repo.commit("base")
    branch_with(repo, {"area.py": G})
    monkeypatch.setattr(excess, "TEXT_LIMIT", 10)
    _, body, summary = check(repo, capsys)
    x = body["excess"]
    assert x["distance"] is None
    assert x["not_measured"] == (
        f"the changed files hold {len(C) + len(G)} characters of text, above the 10 the excess metrics read "
        "in one receipt"
    )
    assert "Not measured: the 1 file this change touches hold" in summary

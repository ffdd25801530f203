"""`receipt whatif`: the last merged changes judged under the base manifest and a new one; the table
must say what `receipt check` says of each change, one by one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.gitrepo import GitRepo

NEW = "version: 1\ncontent:\n  dangerous: false\nbudgets: {files: 1}\n"


def _merge(repo: GitRepo, number: int, files: dict[str, str]) -> None:
    repo.branch(f"pr{number}", "main")
    for path, text in files.items():
        repo.write(path, text)
    repo.commit(f"change {number}")
    repo.checkout("main")
    repo.git(
        "merge",
        "-q",
        "--no-ff",
        f"pr{number}",
        "-m",
        f"Merge pull request #{number} from o/pr{number}\n\nPR {number}",
    )


@pytest.fixture
def history(repo: GitRepo) -> GitRepo:
    repo.write(".github/receipt.yml", "version: 1\n")
    repo.write("src/app.py", "x = 1\n")
    repo.commit("base")
    _merge(repo, 1, {"src/run.py": "def run(text):\n    return eval(text)\n"})  # dangerous
    _merge(repo, 2, {"src/a.py": "a = 1\n", "src/b.py": "b = 1\n"})  # two files
    repo.write("src/app.py", "x = 2\n")
    repo.commit("a direct commit")  # first-parent history holds commits too
    return repo


def _check(repo: GitRepo, base: str, head: str, tmp_path: Path, manifest: Path | None) -> dict[str, object]:
    out = tmp_path / "one.json"
    args = [
        "check",
        "--repo",
        str(repo.root),
        "--base",
        base,
        "--head",
        head,
        "--no-tests",
        "--json",
        str(out),
    ]
    main([*args, *(["--manifest", str(manifest)] if manifest else [])])
    body: dict[str, object] = json.loads(out.read_text())
    return body


def _findings(body: dict[str, object]) -> set[tuple[str, str]]:
    """(rule, where) of each finding (locality's JSON carries no id)."""
    scope, locality = body["scope"], body["locality"]
    assert isinstance(scope, dict) and isinstance(locality, dict)
    found = set()
    for v in [*scope["violations"], *locality["violations"]]:
        where = "the change" if v["path"] is None else v["path"] + (f":{v['line']}" if v["line"] else "")
        found.add((v["rule"], where))
    return found


def test_the_table_matches_receipts_computed_one_by_one(
    history: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = tmp_path / "new.yml"
    new.write_text(NEW)
    md = tmp_path / "whatif.md"
    capsys.readouterr()
    assert (
        main(
            [
                "whatif",
                "--manifest",
                str(new),
                "--last",
                "3",
                "--repo",
                str(history.root),
                "--markdown",
                str(md),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "No tests are run" in text and "1 of 3 merged change(s) would conclude differently" not in text
    commits = history.git("rev-list", "--first-parent", "-n", "3", "main").split()
    rows = text.split("\n\n", 1)[1]
    for sha in commits:
        parent = history.git("rev-parse", f"{sha}^1").strip()
        before = _check(history, parent, sha, tmp_path, None)
        after = _check(history, parent, sha, tmp_path, new)
        b, a = before["verdict"]["conclusion"], after["verdict"]["conclusion"]  # type: ignore[index]
        line = next(line for line in rows.splitlines() if line.startswith(sha[:12]))
        assert line.split()[1:4] == [b, "->", a], line
        block = rows[rows.index(line) :].split("\n" + commits[(commits.index(sha) + 1) % 3][:12])[0]
        why = [entry.strip() for entry in block.splitlines()[1:]]
        shown = {(w[0], w.split()[1], w.rsplit(" at ", 1)[1]) for w in why if w[:2] in ("+ ", "- ")}
        expected = {("-", *f) for f in _findings(before) - _findings(after)}
        expected |= {("+", *f) for f in _findings(after) - _findings(before)}
        assert shown == expected, block
    assert "2 of 3 merged change(s) would conclude differently" in text
    markdown = md.read_text()
    assert markdown.startswith("### What-if:") and "| change | base policy | new policy | why |" in markdown
    assert markdown.count(" **changed**") == 2 and "change\\(s\\)" in markdown


def test_the_rows_say_why(history: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = tmp_path / "new.yml"
    new.write_text(NEW)
    capsys.readouterr()
    main(["whatif", "--manifest", str(new), "--repo", str(history.root)])
    text = capsys.readouterr().out
    assert "failure -> success  CHANGED" in text and "- dangerous python-eval at src/run.py:2" in text
    assert "scope: fail → pass" in text
    assert "success -> failure  CHANGED" in text and "+ budget budgets.files at the change" in text
    assert "locality: pass → fail" in text
    assert "success -> success" in text and "no difference" in text
    assert text.count("CHANGED") == 2 and text.count(" -> ") == 3  # the root commit has no row


def test_an_invalid_new_manifest_stops_before_any_change_is_read(
    history: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = tmp_path / "new.yml"
    new.write_text("version: 1\nmode: loud\n")
    assert main(["whatif", "--manifest", str(new), "--repo", str(history.root)]) == 2
    assert "new.yml:2:7: mode: expected one of enforce, observe" in capsys.readouterr().err


def test_a_side_without_a_receipt_says_why(
    history: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history.write(".github/receipt.yml", "version: 1\nbogus: true\n")  # the base of the next commit
    history.commit("breaks the policy")
    history.write("src/app.py", "x = 3\n")
    history.commit("after it")
    new = tmp_path / "new.yml"
    new.write_text(NEW)
    capsys.readouterr()
    assert main(["whatif", "--manifest", str(new), "--last", "1", "--repo", str(history.root)]) == 0
    text = capsys.readouterr().out
    assert "error -> success  CHANGED" in text
    assert "base: invalid configuration: .github/receipt.yml:2:1: bogus: unknown key" in text

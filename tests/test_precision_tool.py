"""tools/precision.py: the built-in policy's content findings over a repository's last commits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitrepo import GitRepo

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import precision

SECRET = "Xk9mP2vQz7Lw"


def _history(repo: GitRepo) -> list[str]:
    repo.write("README", "base\n")
    first = repo.commit("root")
    repo.write("app.py", f'DB = "postgres://admin:{SECRET}@db.acme-corp.io/app"\nimport os  # noqa: F401\n')
    second = repo.commit("a credential and a marker")
    repo.write("app.py", "import os\n")
    third = repo.commit("both gone")
    return [first, second, third]


def test_findings_of_each_first_parent_commit_are_listed_with_the_secret_masked(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second, third = _history(repo)
    out = tmp_path / "findings.json"
    bare = tmp_path / "mirror.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.root), str(bare)], check=True)
    assert precision.main([str(bare), "--commits", "5", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert SECRET not in printed and SECRET not in out.read_text("utf-8")
    (run,) = json.loads(out.read_text("utf-8"))
    assert (run["commits"], run["first"], run["last"]) == (2, second, third)  # the root has no parent
    rows = [(f["commit"], f["path"], f["line"], f["rule"], f["id"]) for f in run["findings"]]
    assert rows == [
        (second, "app.py", 1, "secret", "url-credentials"),
        (second, "app.py", 2, "suppression", "noqa"),
    ]
    assert run["findings"][0]["excerpt"] == 'DB = "postgres://admin:Xk9*********@db.acme-corp.io/app"'
    assert (
        f"| mirror | {second[:10]} | app.py | 2 | suppression | noqa | `import os  # noqa: F401` |" in printed
    )
    assert first not in printed


def test_rules_narrow_the_list_and_a_manifest_replaces_the_built_in_policy(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _history(repo)
    policy = tmp_path / "receipt.yml"
    policy.write_text("version: 1\ncontent:\n  secrets: false\n", "utf-8")
    assert precision.main([str(repo.root), "--rules", "secret", "--manifest", str(policy)]) == 0
    assert "findings: none" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--rules", "secrets"], "unknown rule id(s): secrets"),
        (["--manifest", "/nonexistent/receipt.yml"], "--manifest /nonexistent/receipt.yml"),
    ],
)
def test_bad_arguments_are_named(
    repo: GitRepo, args: list[str], problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _history(repo)
    with pytest.raises(SystemExit) as stopped:
        precision.main([str(repo.root), *args])
    assert stopped.value.code == 2
    assert problem in capsys.readouterr().err


def test_a_bad_manifest_or_repository_is_an_error_not_a_traceback(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _history(repo)
    policy = tmp_path / "receipt.yml"
    policy.write_text("version: 1\nnope: 1\n", "utf-8")
    assert precision.main([str(repo.root), "--manifest", str(policy)]) == 2
    assert "nope" in capsys.readouterr().err
    assert precision.main([str(tmp_path / "missing")]) == 2
    assert capsys.readouterr().err


def test_masking_covers_every_place_the_secret_could_be() -> None:
    line = 'w("login user password pass\\ndefault\\n")'
    assert precision.mask_secret(line, "x 'pass…' (16 characters)") == 'w("login user pass' + "*" * 21 + ")"
    assert precision.mask_secret("ab", "'…' (3 characters)") == "(excerpt withheld)"
    assert precision.mask_secret("ab", "no redaction") == "(excerpt withheld)"

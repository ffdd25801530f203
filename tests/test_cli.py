from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.engine.groups import MANIFEST_PATH
from tests.gitrepo import GitRepo


def test_check_outputs_and_exit_status(
    pr: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    md = tmp_path / "summary.md"
    js = tmp_path / "receipt.json"
    assert (
        main(["check", "--repo", str(pr.root), "--json", str(js), "--markdown", str(md), "--no-tests"]) == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("receipt: SUCCESS\n")
    assert json.loads(js.read_text())["verdict"]["conclusion"] == "success"
    assert md.read_text().startswith("## ✅ receipt: success")
    assert main(["check", "--repo", str(pr.root), "--json", "-"]) == 0
    printed = capsys.readouterr().out
    assert json.loads(printed)["change"]["files"] == 1


def test_default_base_candidates(pr: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    pr.git("branch", "-m", "main", "trunk")
    assert main(["check", "--repo", str(pr.root)]) == 2
    assert "no base revision: pass --base REV" in capsys.readouterr().err
    pr.git("branch", "master", "trunk")
    assert main(["check", "--repo", str(pr.root)]) == 0


def test_usage_errors(pr: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--repo", str(pr.root), "--manifest", str(tmp_path / "missing.yml")]) == 2
    assert "missing.yml: cannot read manifest: No such file or directory" in capsys.readouterr().err
    assert main(["check", "--repo", str(tmp_path / "nowhere")]) == 2
    assert "nowhere: no such directory" in capsys.readouterr().err
    assert main(["check", "--repo", str(pr.root), "--json", str(tmp_path / "no" / "dir.json")]) == 2
    assert "dir.json: cannot write: No such file or directory" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["check", "--test-command", "true", "--no-tests"])
    assert exit_.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main([])
    assert exit_.value.code == 2


def test_check_with_manifest_file(pr: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text("version: 1\npaths: {allow: ['docs/**']}\n")
    assert main(["check", "--repo", str(pr.root), "--manifest", str(policy)]) == 1
    out = capsys.readouterr().out
    assert "src/a.py: outside-allowlist" in out and "(from a file)" in out


def test_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.yml"
    good.write_text("version: 1\n")
    bad = tmp_path / "bad.yml"
    bad.write_text("version: 1\nbudgets: {files: -2}\n")
    assert main(["validate", str(good)]) == 0
    assert capsys.readouterr().out == f"{good}: valid receipt manifest (version 1)\n"
    assert main(["validate", str(bad)]) == 1
    assert capsys.readouterr().err == (
        f"receipt: invalid manifest (1 problem(s)):\n{bad}:2:18: budgets.files: must be at least 0, got -2\n"
    )
    assert main(["validate", str(tmp_path / "none.yml")]) == 2


def test_explain(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo.root)
    assert main(["explain", "yarn.lock", "./src/a.py"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("policy: built-in default (no .github/receipt.yml)\nyarn.lock\n")
    assert "  protected-path: protected by built-in group lockfiles ('yarn.lock'); allows nothing" in out
    assert "\nsrc/a.py\n" in out
    repo.write(MANIFEST_PATH, "version: 1\npaths: {allow: [src/**]}\n")
    assert main(["explain", "src/a.py"]) == 0
    assert "allowed: matches paths.allow[0] 'src/**'" in capsys.readouterr().out
    other = tmp_path / "other.yml"
    other.write_text("version: 1\npaths: {defaults: false}\n")
    assert main(["explain", "--manifest", str(other), "yarn.lock"]) == 0
    assert "not protected" in capsys.readouterr().out
    assert main(["explain", "--manifest", str(tmp_path / "gone.yml"), "x"]) == 2
    assert main(["explain", "--manifest", str(tmp_path), "x"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "receipt manifest"


def _receipt_file(pr: GitRepo, tmp_path: Path, policy: str | None = None) -> Path:
    out = tmp_path / "r.json"
    args = ["check", "--repo", str(pr.root), "--json", str(out)]
    if policy is not None:
        file = tmp_path / "p.yml"
        file.write_text(policy)
        args += ["--manifest", str(file)]
    main(args)
    return out


def test_inspect_verifies_every_reachable_digest(
    pr: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _receipt_file(pr, tmp_path)
    capsys.readouterr()
    assert main(["inspect", str(path), "--repo", str(pr.root)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0:2] for line in out] == [
        ["ok", "digest:"],
        ["ok", "change.digest:"],
        ["ok", "subject.merge.change.digest:"],  # a fast-forward: base..head
        ["ok", "manifest.digest:"],
    ]

    body = json.loads(path.read_text())
    body["verdict"]["conclusion"] = "failure"
    path.write_text(json.dumps(body))
    assert main(["inspect", str(path), "--repo", str(pr.root)]) == 1
    assert "MISMATCH  digest: the receipt says sha256:" in capsys.readouterr().out


def test_inspect_leaves_the_apps_what_if_outside_the_digest(
    pr: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _receipt_file(pr, tmp_path)
    body = json.loads(path.read_text())
    path.write_text(json.dumps({**body, "whatif": {"rows": []}}))
    capsys.readouterr()
    assert main(["inspect", str(path), "--repo", str(pr.root)]) == 0
    assert "skipped   whatif: the what-if table is kept beside the receipt" in capsys.readouterr().out
    body["verdict"]["conclusion"] = "failure"  # the receipt beside it is still held to its digest
    path.write_text(json.dumps({**body, "whatif": {"rows": []}}))
    assert main(["inspect", str(path), "--repo", str(pr.root)]) == 1


def test_inspect_detects_a_receipt_for_another_change(
    pr: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.engine.receipt import digest_of

    path = _receipt_file(pr, tmp_path)
    body = json.loads(path.read_text())
    body["change"]["digest"] = "sha256:" + "0" * 64
    body["digest"] = digest_of(body)
    path.write_text(json.dumps(body))
    capsys.readouterr()
    assert main(["inspect", str(path), "--repo", str(pr.root)]) == 1
    assert "MISMATCH  change.digest" in capsys.readouterr().out


def test_inspect_manifest_sources(
    pr: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.engine.receipt import digest_of

    path = _receipt_file(pr, tmp_path, policy="version: 1\n")
    capsys.readouterr()
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.chdir(outside)
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    not_here = "not run inside a repository (run it in the one holding the commits, or pass --repo)"
    assert f"skipped   change.digest: {not_here}" in out
    assert "skipped   manifest.digest: the manifest was a file given to `receipt check --manifest`" in out
    assert main(["inspect", str(path), "--repo", str(outside)]) == 2
    assert "outside: not a git repository" in capsys.readouterr().err

    body = json.loads(path.read_text())
    body["manifest"]["source"] = "base"
    body["manifest"]["path"] = MANIFEST_PATH
    body["digest"] = digest_of(body)
    path.write_text(json.dumps(body))
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"skipped   manifest.digest: {not_here}" in out  # what is missing: the repository
    monkeypatch.chdir(pr.root / "src")
    assert main(["inspect", str(path)]) == 1  # from a subdirectory, the repository is found
    out = capsys.readouterr().out
    assert "ok        change.digest" in out and "no .github/receipt.yml in the base commit" in out

    body["excess"]["reference"] = {"source": "fix.patch", "digest": "sha256:00"}
    body["subject"]["merge_base"] = "f" * 40
    body["digest"] = digest_of(body)
    path.write_text(json.dumps(body))
    assert main(["inspect", str(path), "--repo", str(pr.root)]) == 1
    out = capsys.readouterr().out
    assert f"skipped   change.digest: unknown revision '{'f' * 40}'" in out
    assert "MISMATCH  manifest.digest" in out and "no .github/receipt.yml in the base commit" in out
    assert "skipped   excess.reference.digest" in out

    body["subject"]["base"] = "f" * 40
    body["digest"] = digest_of(body)
    path.write_text(json.dumps(body))
    assert main(["inspect", str(path), "--repo", str(pr.root)]) == 0
    assert f"skipped   manifest.digest: unknown revision '{'f' * 40}'" in capsys.readouterr().out


def test_inspect_rejects_non_receipts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    assert main(["inspect", str(junk)]) == 2
    assert "not JSON" in capsys.readouterr().err
    junk.write_text('{"schema": "other/2"}')
    assert main(["inspect", str(junk)]) == 1
    assert "MISMATCH  schema: the receipt says other/2" in capsys.readouterr().out
    junk.write_text("[1]")
    assert main(["inspect", str(junk)]) == 2
    assert "junk.json is a list, not a JSON object" in capsys.readouterr().err
    assert main(["inspect", str(tmp_path / "missing.json")]) == 2


def test_reference_is_not_available_yet(
    pr: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    patch = tmp_path / "fix.patch"
    patch.write_text("")
    assert main(["check", "--repo", str(pr.root), "--reference", str(patch)]) == 2
    assert "--reference" in capsys.readouterr().err


def test_explain_and_validate_find_the_repository_from_a_subdirectory(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.write(MANIFEST_PATH, "version: 1\npaths: {allow: [src/**]}\n")
    repo.write("src/pkg/a.py", "x = 1\n")
    monkeypatch.chdir(repo.root / "src" / "pkg")
    assert main(["explain", "a.py", "README.md", "./b.py"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("policy: ../../.github/receipt.yml\nsrc/pkg/a.py\n")
    assert "  allowed: matches paths.allow[0] 'src/**'" in out
    assert "\nsrc/pkg/README.md\n" in out and "\nsrc/pkg/b.py\n" in out
    assert main(["validate"]) == 0
    assert capsys.readouterr().out == "../../.github/receipt.yml: valid receipt manifest (version 1)\n"
    repo.write(MANIFEST_PATH, "version: 1\nbudgets: {files: -1}\n")
    assert main(["validate"]) == 1
    assert "../../.github/receipt.yml:2:18: budgets.files" in capsys.readouterr().err


def test_explain_refuses_paths_that_name_nothing_in_the_repository(
    repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo.root)
    for bad, problem in [
        ("", "an empty path names no file"),
        ("../x", "'../x' goes up with '..'"),
        ("src/../../x", "goes up with '..'"),
        ("/etc/passwd", "'/etc/passwd' is absolute"),
        ("./", "is a directory itself"),
    ]:
        assert main(["explain", "ok.py", bad]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""  # nothing explained before the refusal
        assert captured.err.startswith("receipt: error: explain: ") and problem in captured.err
        assert captured.err.count("\n") == 1
    assert main(["explain", "src//a.py", "./src/./b.py"]) == 0
    out = capsys.readouterr().out
    assert "\nsrc/a.py\n" in out and "\nsrc/b.py\n" in out


def test_validate_outside_a_repository_reads_the_current_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["validate"]) == 2
    assert (
        capsys.readouterr().err
        == "receipt: error: .github/receipt.yml: cannot read: No such file or directory\n"
    )
    assert main(["explain", "a.py"]) == 0
    assert capsys.readouterr().out.startswith("policy: built-in default (no .github/receipt.yml)\na.py\n")

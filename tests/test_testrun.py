"""The test command in a worktree of the head, and the filesystem gate around it."""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from bot.engine.groups import MANIFEST_PATH
from bot.engine.semantic import CheckConclusion, SideEffectKind
from bot.local.fsgate import compare, fingerprint
from bot.local.git import Git
from bot.local.testrun import TAIL_LINES, TestRun, run_tests, tail
from tests.gitrepo import GitRepo, check, rules

PY = shlex.quote(sys.executable)


@pytest.fixture
def pr(repo: GitRepo) -> GitRepo:
    repo.write(".gitignore", ".env\nbuild/\n")
    repo.write("src/app.py", "x = 1\n")
    repo.write("run.sh", "echo\n")
    repo.symlink("link", "src/app.py")
    repo.commit("base")
    repo.branch("pr")
    repo.write("src/app.py", "x = 2\n")
    repo.commit("pr")
    return repo


def _script(body: str) -> str:
    return f"{PY} -c {shlex.quote(body)}"


def test_passing_and_failing_commands(pr: GitRepo) -> None:
    ok = check(pr, test_command=_script("print('fine')"))
    assert (ok.semantic.value, ok.checks[0].conclusion) == ("pass", CheckConclusion.SUCCESS)
    assert ok.checks[0].details.startswith("exit status 0 after ") and ok.checks[0].details.endswith("fine")
    bad = check(pr, test_command=_script("import sys; print('nope'); sys.exit(3)"))
    assert bad.semantic.value == "fail" and bad.checks[0].details.startswith("exit status 3")
    missing = check(pr, test_command="definitely-not-a-command-xyz")
    assert missing.semantic.value == "fail" and "exit status 127" in missing.checks[0].details


def test_tests_run_on_the_head_commit_not_the_working_tree(pr: GitRepo) -> None:
    pr.checkout("main")
    (pr.root / "src" / "app.py").write_text("x = 'dirty working tree'\n")
    receipt = check(
        pr, head="pr", test_command=_script("import sys; sys.exit(open('src/app.py').read() != 'x = 2\\n')")
    )
    assert receipt.semantic.value == "pass"
    assert Git(pr.root).run("worktree", "list").decode().count("\n") == 1


def test_every_kind_of_side_effect_is_caught_even_gitignored_ones(pr: GitRepo) -> None:
    body = (
        "import os, pathlib\n"
        "pathlib.Path('.env').write_text('TOKEN=x')\n"
        "pathlib.Path('src/app.py').write_text('x = 3')\n"
        "os.remove('run.sh')\n"
        "os.makedirs('build/deep'); pathlib.Path('build/deep/out.o').write_text('o')\n"
        "os.makedirs('__pycache__', exist_ok=True); pathlib.Path('__pycache__/m.pyc').write_text('c')\n"
        "pathlib.Path('cache.pyc').write_text('c')\n"
        "os.chmod('src', 0o755); os.symlink('/etc/passwd', 'src/evil')\n"
        "os.remove('link'); os.symlink('run.sh', 'link')\n"
    )
    receipt = check(pr, test_command=_script(body))
    found = [(v.path, v.id) for v in receipt.scope]
    assert found == [
        (".env", "side-effect:created"),
        ("build", "side-effect:created"),
        ("link", "side-effect:modified"),
        ("run.sh", "side-effect:deleted"),
        ("src/app.py", "side-effect:modified"),
        ("src/evil", "side-effect:created"),
    ]
    assert receipt.semantic.value == "pass" and receipt.verdict.conclusion.value == "failure"


def test_manifest_ignores_listed_side_effects(pr: GitRepo) -> None:
    pr.checkout("main")
    pr.write(MANIFEST_PATH, "version: 1\ntests: {ignore_side_effects: ['build/**', '.benchmarks/']}\n")
    pr.commit("policy")
    pr.checkout("pr")
    pr.git("merge", "-q", "--no-edit", "main")
    # README's own example, and the directory a pytest benchmark plugin writes, each created whole
    body = "import os; os.makedirs('build/x'); os.makedirs('.benchmarks/Linux'); open('.benchmarks/Linux/1.json', 'w')"
    receipt = check(pr, test_command=_script(body))
    assert rules(receipt) == []
    receipt = check(pr, test_command=_script(body + "; open('.env', 'w')"))
    assert rules(receipt) == [("side-effect", ".env")]


def test_tests_command_from_the_manifest(pr: GitRepo) -> None:
    pr.checkout("main")
    pr.write(MANIFEST_PATH, f"version: 1\ntests: {{command: {_script('import sys; sys.exit(1)')!r}}}\n")
    pr.commit("policy")
    pr.checkout("pr")
    pr.git("merge", "-q", "--no-edit", "main")
    receipt = check(pr, no_tests=False)
    assert receipt.semantic.value == "fail"
    assert check(pr).semantic.value == "skipped"


def test_timeout_kills_the_whole_process_group(pr: GitRepo, tmp_path: Path) -> None:
    marker = tmp_path / "survivor"
    child = tmp_path / "child.py"
    child.write_text(f"import time\ntime.sleep(3)\nopen({str(marker)!r}, 'w').close()\n")
    body = (
        f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, {str(child)!r}])\ntime.sleep(60)\n"
    )
    git = Git(pr.root)
    started = time.monotonic()
    evidence = run_tests(git, git.resolve("pr"), TestRun(_script(body), 1.0, dict(os.environ)))
    assert time.monotonic() - started < 30
    (result,) = evidence.checks
    assert result.conclusion is CheckConclusion.TIMED_OUT and result.details.startswith("timed out after 1 s")
    time.sleep(3.5)
    assert not marker.exists()


def test_a_head_that_cannot_be_checked_out_is_an_error(pr: GitRepo) -> None:
    evidence = run_tests(Git(pr.root), "0" * 40, TestRun("true", 10, {}))
    (result,) = evidence.checks
    assert result.conclusion is CheckConclusion.ERROR and result.details.startswith("could not check out")


def test_a_command_that_cannot_start_is_an_error(pr: GitRepo) -> None:
    git = Git(pr.root)
    too_long = "true " + "x" * 3_000_000  # beyond ARG_MAX: exec fails with E2BIG
    evidence = run_tests(git, git.resolve("pr"), TestRun(too_long, 10, {}))
    (result,) = evidence.checks
    assert result.conclusion is CheckConclusion.ERROR
    assert result.details.startswith("could not start the test command: [Errno 7] Argument list too long")


def test_output_tail() -> None:
    output = "".join(f"line {i}\n" for i in range(500)).encode() + b"\xff end"
    text = tail(output)
    assert text.splitlines()[0] == f"line {500 - TAIL_LINES + 1}" and text.endswith("\ufffd end")
    assert len(tail(b"x" * 100_000)) == 6000


def test_fingerprint_and_compare(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("1")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_text("x")
    os.mkfifo(tmp_path / "pipe")
    before = fingerprint(tmp_path)
    assert before["pipe"].kind == "special" and before["d"].kind == "dir"
    (tmp_path / "a").chmod(0o755)
    (tmp_path / "d" / "f").unlink()
    (tmp_path / "d").rmdir()
    (tmp_path / "d").write_text("now a file")
    effects = compare(before, fingerprint(tmp_path))
    assert [(e.path, e.kind, e.detail) for e in effects] == [
        ("a", SideEffectKind.MODIFIED, " (mode)"),
        ("d", SideEffectKind.MODIFIED, " (dir -> file)"),
        ("d/f", SideEffectKind.DELETED, " (file)"),
    ]

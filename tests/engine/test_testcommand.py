"""The files `tests.command` runs are protected: a pull request that edits the script its own tests
run through (`exit 0`) would otherwise pass without running a test, as a new conftest.py would."""

from __future__ import annotations

import shlex

import pytest

from bot.engine.groups import GROUP_NAMES, TEST_COMMAND
from bot.engine.manifest import Manifest, TestsPolicy, parse_manifest
from bot.engine.scope import protection
from bot.engine.testcommand import command_patterns
from tests.gitrepo import GitRepo, check, rules

NAMED = [
    ("./run-tests", ["/run-tests"]),
    ("scripts/ci/test.sh --fast", ["/scripts/ci/test.sh"]),
    ("bash ci/test.sh", ["/ci/test.sh"]),
    ("sh -e ./ci/test.sh", ["/ci/test.sh"]),
    ("python tools/run_tests.py -q", ["/tools/run_tests.py"]),
    ("python3.12 -X dev -W error tools/run.py", ["/tools/run.py"]),
    ("node -r ./setup.js scripts/test.mjs", ["/setup.js", "/scripts/test.mjs"]),
    ("FOO=1 env -i PATH=/usr/bin ./t.sh", ["/t.sh"]),
    ("timeout 10m nice -n 5 ./t.sh", ["/t.sh"]),
    ("sudo -u ci ./t.sh", ["/t.sh"]),
    ("uv run python tools/t.py", ["/tools/t.py"]),
    ("poetry run ./t.sh", ["/t.sh"]),
    ("make check", ["/GNUmakefile", "/makefile", "/Makefile"]),
    ("make -C build test", ["/build/GNUmakefile", "/build/makefile", "/build/Makefile"]),
    ("make -f ci.mk test", ["/ci.mk"]),
    ("make --file=ci/test.mk", ["/ci/test.mk"]),
    ("just test", ["/justfile", "/Justfile", "/.justfile"]),
    ("task test", ["/Taskfile.yml", "/Taskfile.yaml", "/Taskfile.dist.yml", "/Taskfile.dist.yaml"]),
    ("./gradlew test", ["/gradlew", "/gradlew.bat", "/settings.gradle", "/settings.gradle.kts",
                        "/gradle.properties", "/gradle/**"]),
    ("./mvnw -q test", ["/mvnw", "/mvnw.cmd", "/.mvn/**"]),
    ("pip install -e . && ./t.sh", ["/t.sh"]),
    ("ruff check . ; ./lint.sh || ./t.sh", ["/lint.sh", "/t.sh"]),
    ("./gen.sh | tee out.log", ["/gen.sh"]),
    ("bash -c 'make test && ./extra.sh'", ["/GNUmakefile", "/makefile", "/Makefile", "/extra.sh"]),
    ("sh -c \"python ci/t.py\"", ["/ci/t.py"]),
    ("env -S './t.sh --x'", ["/t.sh"]),
    ("su ci -c './t.sh --x'", ["/t.sh"]),
    ("find tests -name '*.py' | xargs -n 1 ./t.sh", ["/t.sh"]),
    ("sudo -u python ./t.sh", ["/t.sh"]),
    ("'./my tests/run it.sh' && ./x]\\\\y", ["/my tests/run it.sh", "/x\\]\\\\y"]),
    ("coverage run tools/t.py", ["/tools/t.py"]),
    ("coverage run -m pytest", ["/pytest.py", "/pytest.pyc", "/pytest.so", "/pytest.*.so", "/pytest/"]),
    ("python -m pytest tests/", ["/pytest.py", "/pytest.pyc", "/pytest.so", "/pytest.*.so", "/pytest/"]),
    ("python3 -I -m unittest.main discover", ["/unittest.py", "/unittest.pyc", "/unittest.so",
                                              "/unittest.*.so", "/unittest/"]),
    ("make --directory=sub/ check", ["/sub/GNUmakefile", "/sub/makefile", "/sub/Makefile"]),
    ("./t.sh;", ["/t.sh"]),
    ("deno run -A scripts/t.ts", ["/scripts/t.ts"]),
    ("bun test", []),
    ("bash -o pipefail -O extglob ci/t.sh", ["/ci/t.sh"]),
    ("python -I -O tools/t.py", ["/tools/t.py"]),
]  # fmt: skip

NOTHING = [
    "pytest -q",
    "python -m",
    "python -m ./x",  # not a module name
    "node -m x",  # -m is Python's
    "python -c 'import sys; sys.exit(0)'",
    "npm test",
    "go test ./...",
    "cargo test",
    "pytest tests/test_api.py",  # a test file is what a change adds to; the harness group covers pytest
    "/usr/local/bin/run-tests",  # outside the tree
    "../other/run.sh",
    "$RUNNER ./t.sh",  # the shell computes the program
    "./t*.sh",
    "bash -c",
    "python -q",
    "bash ./",
    "FOO=1",
    "env -i",
    "'unbalanced",
    "",
]


@pytest.mark.parametrize(("command", "patterns"), NAMED)
def test_the_files_a_command_runs(command: str, patterns: list[str]) -> None:
    assert list(command_patterns(command)) == patterns


@pytest.mark.parametrize("command", NOTHING)
def test_commands_that_name_no_file_of_the_tree(command: str) -> None:
    assert command_patterns(command) == ()


def test_no_command_names_nothing() -> None:
    assert command_patterns(None) == ()


def test_nested_shells_are_read_to_a_bounded_depth() -> None:
    command = "./t.sh"
    for depth in range(8):
        assert command_patterns(command) == (("/t.sh",) if depth <= 4 else ()), depth
        command = f"sh -c {shlex.quote(command)}"


def test_the_group_is_a_default_and_protects_what_the_base_command_runs() -> None:
    assert TEST_COMMAND in GROUP_NAMES
    manifest = Manifest(tests=TestsPolicy(command="bash ci/test.sh && make -C build test"))
    for path in ("ci/test.sh", "CI/Test.sh", "build/Makefile"):
        decided = protection(manifest, path)
        assert decided is not None and decided.protected, path
        assert decided.source == f"built-in group {TEST_COMMAND}"
    for path in ("ci/other.sh", "nested/ci/test.sh", "Makefile", "tests/test_x.py"):
        assert protection(manifest, path) is None, path
    assert protection(Manifest(), "ci/test.sh") is None
    shadowed = Manifest(tests=TestsPolicy(command="python -m pytest -q tests"))
    for path in (
        "pytest.py",
        "pytest/__init__.py",
        "pytest/__main__.py",
        "pytest.cpython-311-x86_64-linux-gnu.so",
    ):
        decided = protection(shadowed, path)
        assert decided is not None and decided.protected, path
    for path in ("tests/pytest.py", "pytest.ini.example", "pytest_helpers.py", "src/pytest/x.py"):
        decided = protection(shadowed, path)
        assert decided is None or decided.source != f"built-in group {TEST_COMMAND}", path


def test_a_maintainer_can_leave_the_group_out_or_unprotect_a_file() -> None:
    out = parse_manifest("version: 1\ntests:\n  command: ./t.sh\npaths:\n  defaults: [lockfiles]\n")
    assert protection(out, "t.sh") is None
    unprotected = parse_manifest("version: 1\ntests:\n  command: ./t.sh\npaths:\n  protect: ['!t.sh']\n")
    decided = protection(unprotected, "t.sh")
    assert decided is not None and not decided.protected


def test_editing_the_test_script_fails_scope(repo: GitRepo) -> None:
    repo.write(".github/receipt.yml", "version: 1\ntests:\n  command: bash ci/test.sh\n")
    repo.write("ci/test.sh", "python -m pytest -q\n")
    repo.write("app.py", "x = 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "pr")
    repo.write("ci/test.sh", "exit 0\n")
    repo.write("app.py", "x = 2\n")
    repo.commit("pr")
    receipt = check(repo)
    assert rules(receipt) == [("protected-path", "ci/test.sh")]
    assert "tests.command runs it, so changing it changes how this change's own tests are judged." in (
        receipt.scope[0].message
    )


def test_a_command_given_to_check_is_the_one_whose_files_are_protected(repo: GitRepo) -> None:
    repo.write("ci/test.sh", "python -m pytest -q\n")
    repo.write("ci/other.sh", "true\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "pr")
    repo.write("ci/test.sh", "exit 0\n")
    repo.write("ci/other.sh", "false\n")
    repo.commit("pr")
    assert rules(check(repo, test_command="sh ci/test.sh", no_tests=True)) == [
        ("protected-path", "ci/test.sh")
    ]
    assert rules(check(repo)) == []

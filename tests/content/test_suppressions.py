from __future__ import annotations

import pytest

from bot.engine.content.suppressions import MARKERS, SuppressionsRule
from bot.engine.findings import RuleId, Violation
from tests.content.helpers import change_of, manifest, scan, where
from tests.gitrepo import GitRepo

RULE = SuppressionsRule()


def _suppressions(repo: GitRepo, head: dict[str, str], base: dict[str, str] | None = None) -> list[Violation]:
    found = scan(RULE, change_of(repo, head, base))
    assert all(v.rule is RuleId.SUPPRESSION for v in found)
    return found


@pytest.mark.parametrize(
    ("path", "line", "marker_id", "written"),
    [
        ("a.py", "import os  # noqa: F401", "noqa", "noqa"),
        ("a.py", "x = f()  # NOQA", "noqa", "NOQA"),
        ("a.py", "x: int = f()  # type: ignore[assignment]", "type-ignore", "type: ignore"),
        ("a.py", "x = f()  # pyright: ignore", "type-ignore", "pyright: ignore"),
        ("a.py", "x = f()  # pylint: disable=broad-except", "pylint-disable", "pylint: disable"),
        ("a.py", "subprocess.call(c, shell=True)  # nosec B602", "nosec", "nosec"),
        ("main.go", "h := md5.New() // #nosec G401", "nosec", "nosec"),
        ("a.py", "eval(x)  # nosemgrep: python.eval", "nosemgrep", "nosemgrep"),
        ("a.py", "KEY = 'abc'  # gitleaks:allow", "gitleaks-allow", "gitleaks:allow"),
        (
            "a.py",
            "KEY = 'abc'  # pragma: allowlist secret",
            "pragma-allowlist-secret",
            "pragma: allowlist secret",
        ),
        ("a.js", "// eslint-disable-next-line no-eval", "eslint-disable", "eslint-disable-next-line"),
        ("a.js", "/* eslint-disable */", "eslint-disable", "eslint-disable"),
        ("a.ts", "// @ts-ignore", "ts-ignore", "@ts-ignore"),
        ("a.ts", "// @ts-nocheck", "ts-ignore", "@ts-nocheck"),
        ("a.ts", "// @ts-expect-error wrong types", "ts-ignore", "@ts-expect-error"),
        ("a.py", "def f():  # pragma: no cover", "pragma-no-cover", "pragma: no cover"),
        ("a.js", "/* istanbul ignore next */", "pragma-no-cover", "istanbul ignore"),
        ("test_a.py", "@pytest.mark.skip(reason='flaky')", "pytest-skip", "pytest.mark.skip"),
        (
            "test_a.py",
            "@pytest.mark.skipif(sys.platform == 'win32', reason='x')",
            "pytest-skip",
            "pytest.mark.skipif",
        ),
        ("test_a.py", "    pytest.skip('later')", "pytest-skip", "pytest.skip"),
        ("test_a.py", "@pytest.mark.xfail", "pytest-xfail", "pytest.mark.xfail"),
        ("test_a.py", "    pytest.xfail('known')", "pytest-xfail", "pytest.xfail"),
        ("test_a.py", "@unittest.skip('broken')", "unittest-skip", "unittest.skip"),
        ("test_a.py", "@unittest.skipIf(True, 'x')", "unittest-skip", "unittest.skipIf"),
        ("test_a.py", "        self.skipTest('no network')", "unittest-skip", ".skipTest"),
        ("a.test.js", "it.skip('works', () => {});", "js-skip", "it.skip"),
        ("a.test.js", "describe.skip('suite', () => {});", "js-skip", "describe.skip"),
        ("a.test.js", "xit('works', () => {});", "js-skip", "xit"),
        ("a.test.ts", "test.only('this one', () => {});", "js-only", "test.only"),
        ("a.test.ts", "fdescribe('suite', () => {});", "js-only", "fdescribe"),
    ],
)
def test_markers_fire(repo: GitRepo, path: str, line: str, marker_id: str, written: str) -> None:
    found = _suppressions(repo, {path: f"first = 1\n{line}\n"})
    assert where(found) == [(path, 2, marker_id)]
    assert found[0].message.startswith(f"Adds `{written}`, which silences ")
    assert "content.suppressions: false" in found[0].message


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("a.py", "# this module needs no qa"),
        ("a.py", "noqa = 1"),
        ("a.py", "ignore_type = True  # type of ignore list"),
        ("a.py", "@pytest.mark.parametrize('x', [1])"),
        ("a.py", "# we no longer use pytest.mark.skip here"),
        ("a.py", "reason = 'pytest.skip(later)'"),
        ("a.py", "unittest.skipped = 0  # not a skip marker"),
        ("a.js", "// eslint is configured in package.json"),
        ("a.js", "it.skipped = true;"),
        ("a.js", "exit('done');"),
        ("a.js", "const s = 'it.skip(x)';"),
        ("a.js", "// it.only(x) is forbidden"),
        ("a.js", "item.skip('x');"),
        ("README.md", "Add `# noqa` to silence flake8, or `@pytest.mark.skip` a test."),
        ("docs/guide.rst", "Use ``# type: ignore`` sparingly."),
    ],
)
def test_near_misses(repo: GitRepo, path: str, line: str) -> None:
    assert _suppressions(repo, {path: f"{line}\n"}) == []


def test_one_finding_per_marker_and_line(repo: GitRepo) -> None:
    found = _suppressions(repo, {"a.py": "x = 1  # noqa: E1 # noqa: E2  # type: ignore\n"})
    assert where(found) == [("a.py", 1, "noqa"), ("a.py", 1, "type-ignore")]


def test_only_added_markers_count(repo: GitRepo) -> None:
    base = {"a.py": "import os  # noqa\nx = 1\n"}
    head = {"a.py": "import os  # noqa\nx = 2\n"}
    assert _suppressions(repo, head, base) == []


def test_the_manifest_can_turn_suppressions_off(repo: GitRepo) -> None:
    change = change_of(repo, {"a.py": "import os  # noqa\n"})
    assert len(scan(RULE, change)) == 1
    assert scan(RULE, change, manifest("content:\n  suppressions: false\n")) == []


def test_every_marker_is_documented_by_an_id_the_readme_lists() -> None:
    ids = {m.id for m in MARKERS}
    assert ids == {
        "noqa", "type-ignore", "pylint-disable", "nosec", "nosemgrep", "gitleaks-allow",
        "pragma-allowlist-secret", "eslint-disable", "ts-ignore", "pragma-no-cover", "pytest-skip",
        "pytest-xfail", "unittest-skip", "js-skip", "js-only",
    }  # fmt: skip

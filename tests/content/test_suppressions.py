from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine.change import FileTexts, change_from_diff
from bot.engine.content.pyskips import SKIPS
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
        ("a.test.js", "const s = 'it\\'s'; it.skip('works', () => {});", "js-skip", "it.skip"),
        ("a.test.js", "describe.skip('suite', () => {});", "js-skip", "describe.skip"),
        ("a.test.js", "xit('works', () => {});", "js-skip", "xit"),
        ("a.test.ts", "test.only('this one', () => {});", "js-only", "test.only"),
        ("a.test.ts", "fdescribe('suite', () => {});", "js-only", "fdescribe"),
        ("a.py", "# ruff: noqa", "noqa", "ruff: noqa"),
        ("a.py", "# ruff: noqa: F401", "noqa", "ruff: noqa"),
        ("a.py", "# flake8: noqa", "noqa", "flake8: noqa"),
        ("a.py", "# mypy: ignore-errors", "type-ignore", "mypy: ignore-errors"),
        ("a.py", '# mypy: disable-error-code="attr-defined"', "type-ignore", "mypy: disable-error-code"),
        ("a.py", "x = f()  #type:ignore[attr-defined]", "type-ignore", "type:ignore"),
        ("a.py", "# pyright: basic", "type-ignore", "pyright: basic"),
        (
            "a.py",
            "# pyright: reportGeneralTypeIssues=false",
            "type-ignore",
            "pyright: reportGeneralTypeIssues=false",
        ),
        ("a.py", "x = f()  # pyre-ignore[16]", "type-ignore", "pyre-ignore"),
        ("a.py", "x = f()  # pyre-fixme[6]", "type-ignore", "pyre-fixme"),
        ("a.py", "x = f()  # pytype: disable=attribute-error", "type-ignore", "pytype: disable"),
        ("a.py", "# pylint: skip-file", "pylint-disable", "pylint: skip-file"),
        ("a.py", "x = f()  # pylint: disable-next=broad-except", "pylint-disable", "pylint: disable"),
        ("a.js", "eval(x); // eslint-disable-line no-eval", "eslint-disable", "eslint-disable-line"),
        ("a.js", "/*eslint-disable*/", "eslint-disable", "eslint-disable"),
        ("a.js", '/* eslint no-eval: "off" */', "eslint-disable", 'eslint no-eval: "off"'),
        ("a.js", "/* eslint no-eval: 0, no-alert: 0 */", "eslint-disable", "eslint no-eval: 0"),
        (
            "a.jsx",
            "{/* eslint-disable-next-line react/no-danger */}",
            "eslint-disable",
            "eslint-disable-next-line",
        ),
        ("a.js", "// istanbul ignore next", "pragma-no-cover", "istanbul ignore"),
        ("a.ts", "/* v8 ignore next */", "pragma-no-cover", "v8 ignore"),
        ("a.py", "if x:  # pragma: no branch", "pragma-no-cover", "pragma: no branch"),
        ("a.js", "// biome-ignore lint/security/noGlobalEval: reason", "lint-ignore", "biome-ignore"),
        ("a.ts", "// deno-lint-ignore-file", "lint-ignore", "deno-lint-ignore"),
        ("a.js", "// oxlint-disable-next-line no-eval", "lint-ignore", "oxlint-disable"),
        ("run.sh", "# shellcheck disable=SC2086", "lint-ignore", "shellcheck disable"),
        ("Dockerfile", "# hadolint ignore=DL3008", "lint-ignore", "hadolint ignore"),
        ("main.tf", "  # checkov:skip=CKV_AWS_20: public by design", "nosec", "checkov:skip"),
        ("main.tf", "#tfsec:ignore:aws-s3-enable-bucket-encryption", "nosec", "tfsec:ignore"),
        ("main.tf", "# trivy:ignore:AVD-AWS-0086", "nosec", "trivy:ignore"),
        ("k8s/deploy.yaml", "# kics-scan ignore-line", "nosec", "kics-scan ignore"),
        ("main.tf", "#ts:skip=AWS.S3Bucket.DS.High.1043 reason", "nosec", "ts:skip"),
        ("template.json", "// checkov:skip=CKV_AZURE_1", "nosec", "checkov:skip"),
        ("main.go", "x := f() //nolint:errcheck", "lint-ignore", "nolint"),
        ("a.cc", "int x = f();  // NOLINT", "lint-ignore", "NOLINT"),
        ("a.rb", "x = f # rubocop:disable Style/Foo", "lint-ignore", "rubocop:disable"),
        ("test_a.py", "np = pytest.importorskip('numpy')", "pytest-skip", "pytest.importorskip"),
        ("test_a.py", "        raise unittest.SkipTest('no db')", "unittest-skip", "unittest.SkipTest"),
        ("test_a.py", "@unittest.expectedFailure", "unittest-xfail", "unittest.expectedFailure"),
    ],
)
def test_markers_fire(repo: GitRepo, path: str, line: str, marker_id: str, written: str) -> None:
    found = _suppressions(repo, {path: f"first = 1\n{line}\n"})
    assert where(found) == [(path, 2, marker_id)]
    assert found[0].message.startswith(f"Adds `{written}`, which silences ")
    assert "content.suppressions: false" in found[0].message


@pytest.mark.parametrize(
    ("line", "silences"),
    [
        ("import os  # noqa: F401", "which silences flake8/ruff findings. "),
        ("x = f()  # noqa", "which silences flake8/ruff findings. "),
        ("# ruff: noqa", "which silences flake8/ruff findings in the whole file. "),
        ("# flake8: noqa: E501", "which silences flake8/ruff findings in the whole file. "),
        ("x = f()  # pyright: ignore[reportX]", "which silences the type checker. "),
        ("# pyright: reportUnusedImport=false", "which silences the type checker in the whole file. "),
        ("# mypy: ignore-errors", "which silences the type checker in the whole file. "),
        ("# pylint: disable=W0611", "which silences pylint findings. "),
        ("# pylint: skip-file", "which silences pylint findings in the whole file. "),
        ("if x:  # pragma: no cover", "which silences coverage measurement. "),
        ("if x:  # pragma: no branch", "a branch never taken (the line is still measured). "),
    ],
)
def test_a_marker_of_one_line_is_not_said_to_silence_the_whole_file(
    repo: GitRepo, line: str, silences: str
) -> None:
    """Markers sharing an id (`noqa`) each say what their own form silences (seen on werkzeug: every
    `# noqa: E402` was said to silence the whole file)."""
    found = _suppressions(repo, {"a.py": f"first = 1\n{line}\n"})
    assert len(found) == 1 and silences in found[0].message


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
        ("a.js", "const s = 'don\\'t it.skip(x)';"),
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
        "pytest-xfail", "unittest-skip", "unittest-xfail", "js-skip", "js-xfail", "js-only", "lint-ignore",
        "go-skip", "rust-ignore", "junit-skip", "rspec-skip",
    }  # fmt: skip
    assert set(SKIPS.values()) <= ids
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    section = readme[readme.index("### `suppression`") : readme.index("### `invisible-unicode`")]
    assert all(f"`{i}`" in section for i in ids)


@pytest.mark.parametrize(
    ("source", "line", "marker_id"),
    [
        ("import pytest as pt\n\n@pt.mark.skip\ndef test_a(): pass\n", 3, "pytest-skip"),
        ("from pytest import mark\n\n@mark.skip(reason='x')\ndef test_a(): pass\n", 3, "pytest-skip"),
        (
            "from pytest import mark as m\n\n@m.skipif(True, reason='')\ndef test_a(): pass\n",
            3,
            "pytest-skip",
        ),
        ("from pytest import skip\n\ndef test_a():\n    skip('later')\n", 4, "pytest-skip"),
        ("from pytest import skip as later\n\ndef test_a():\n    later('x')\n", 4, "pytest-skip"),
        ("from pytest import importorskip\n\nnp = importorskip('numpy')\n", 3, "pytest-skip"),
        ("import pytest as pt\n\npytestmark = [pt.mark.skip]\n", 3, "pytest-skip"),
        ("from pytest import mark\n\n@mark.xfail\ndef test_a(): pass\n", 3, "pytest-xfail"),
        (
            "from pytest import (\n    fixture,\n    mark,\n)\n\n@mark.skip\ndef test_a(): pass\n",
            6,
            "pytest-skip",
        ),
        ("import unittest.case as c\n\n@c.skip('x')\ndef test_a(): pass\n", 3, "unittest-skip"),
        ("import pytest as pt\n\ndef test_a():\n    raise pt.skip.Exception('x')\n", 4, "pytest-skip"),
        ("from unittest import skip\n\n@skip('broken')\ndef test_a(): pass\n", 3, "unittest-skip"),
        ("from unittest import skipIf as when\n\n@when(True, 'x')\ndef test_a(): pass\n", 3, "unittest-skip"),
        ("import unittest as ut\n\n@ut.skipUnless(False, 'x')\ndef test_a(): pass\n", 3, "unittest-skip"),
        ("from unittest import SkipTest\n\ndef test_a():\n    raise SkipTest\n", 4, "unittest-skip"),
        (
            "from unittest.case import SkipTest as Later\n\ndef test_a():\n    raise Later()\n",
            4,
            "unittest-skip",
        ),
        (
            "from unittest import expectedFailure as known\n\n@known\ndef test_a(): pass\n",
            3,
            "unittest-xfail",
        ),
    ],
)
def test_skips_reached_through_imports_fire(repo: GitRepo, source: str, line: int, marker_id: str) -> None:
    found = _suppressions(repo, {"test_a.py": source})
    assert where(found) == [("test_a.py", line, marker_id)]


@pytest.mark.parametrize(
    "source",
    [
        "def skip(x): return x\n\nskip('not a test skip')\n",
        "from mylib import mark\n\n@mark.skip\ndef f(): pass\n",
        "import pytest as pt\n\n@pt.mark.parametrize('x', [1])\ndef test_a(x): pass\n",
        "import pytest as pt\n\nreason = 'pt.mark.skip'\n",
        "from pytest import skip\n\n# skip('later') is how one would skip\n",
        "class T:\n    def skip_data(self): pass\n\nT().skip_data()\n",
        "from unittest import TestCase\n\nclass T(TestCase):\n    pass\n",
        "from unittest.mock import patch as skip\n\n@skip('x.y')\ndef test_a(): pass\n",
    ],
)
def test_names_that_only_look_like_skips_are_left_alone(repo: GitRepo, source: str) -> None:
    assert _suppressions(repo, {"test_a.py": source}) == []


@pytest.mark.parametrize(
    ("base", "head"),
    [
        ("x = f()  # noqa: E501\n", "x = g()  # noqa: E501\n"),
        ("import os  # noqa\n", "import os  # noqa: F401\n"),
        (
            "@pytest.mark.skip(reason='a')\ndef test_a(): pass\n",
            "@pytest.mark.skip(reason='b')\ndef test_a(): pass\n",
        ),
        ("x = 1  # noqa\n", "x = 1\n"),  # a removed marker
        ("x: int = f()  # type: ignore\ny = 2\n", "x: int = g()  # type: ignore[assignment]\ny = 2\n"),
        (
            "import pytest as pt\n\n@pt.mark.skip\ndef test_a(): pass\n",
            "import pytest as pt\n\n@pt.mark.skip(reason='flaky')\ndef test_a(): pass\n",
        ),
        (  # a line moved to another hunk, re-indented
            "a = 1  # noqa\n" + "".join(f"k{i} = {i}\n" for i in range(10)) + "def f():\n    pass\n",
            "".join(f"k{i} = {i}\n" for i in range(10)) + "def f():\n    a = 1  # noqa\n",
        ),
    ],
)
def test_a_marker_the_change_kept_or_removed_is_not_added(repo: GitRepo, base: str, head: str) -> None:
    assert _suppressions(repo, {"test_a.py": head}, {"test_a.py": base}) == []


def test_a_hunk_that_only_adds_pairs_with_nothing(repo: GitRepo) -> None:
    lines = "".join(f"k{i} = {i}\n" for i in range(10))
    base = "x = 1  # noqa\n" + lines
    head = "x = 2  # noqa\n" + lines + "y = 3  # noqa\n"
    assert where(_suppressions(repo, {"a.py": head}, {"a.py": base})) == [("a.py", 12, "noqa")]


def test_a_marker_moved_to_another_line_is_added(repo: GitRepo) -> None:
    base = "a = 1  # noqa\n" + "".join(f"k{i} = {i}\n" for i in range(10)) + "b = 2\n"
    head = "a = 1\n" + "".join(f"k{i} = {i}\n" for i in range(10)) + "b = 2  # noqa\n"
    assert where(_suppressions(repo, {"a.py": head}, {"a.py": base})) == [("a.py", 12, "noqa")]


_MOVED_FROM = (
    "import os\n\n\nclass App:\n    def name(self) -> str:  # type: ignore[override]\n        return 'a'\n"
)


def test_a_marker_moved_with_its_code_to_another_file_is_not_added(repo: GitRepo) -> None:
    """Code split into another module carries its markers (flask's sansio split, yarl's tests split
    in two, pip's exceptions made a package): no marker is added, so none is reported."""
    head = {
        "app.py": "import os\n",
        "sansio/app.py": "class App:\n    def name(self) -> str:  # type: ignore[override]\n",
    }
    change = change_of(repo, head, {"app.py": _MOVED_FROM})
    assert scan(RULE, change) == []


def test_a_stubs_marker_inlined_into_the_module_is_not_added(repo: GitRepo) -> None:
    """A stub (`.pyi`) deleted as its annotations move into the module (werkzeug's datastructures):
    the stub's `: ...` body is not part of the code, and a narrower marker is the same one kept."""
    base = {
        "ds.pyi": "class Headers:\n    def get(self, key: str) -> str: ...  # type: ignore\n",
        "ds.py": "class Headers:\n    def get(self, key):\n        return key\n",
    }
    head = {
        "ds.py": "class Headers:\n    def get(self, key: str) -> str:  # type: ignore[override]\n        return key\n"
    }
    assert scan(RULE, change_of(repo, head, base, removed=["ds.pyi"])) == []


def test_a_definitions_marker_follows_its_name_as_the_signature_is_rewritten(repo: GitRepo) -> None:
    """werkzeug 37b9423dfd: the stub's `def items(self, lower: bool = False) -> Iterator[...]: ...  #
    type: ignore` became the module's `def items(self, lower: bool = False) -> t.Iterable[...]:  #
    type: ignore[override]`, and the stub's `@overload  # type: ignore` on `Headers.get` the
    module's `@t.overload  # type: ignore[override]`: a decorator's marker stands for the definition
    it decorates, named with its class. The same marker on another class's overload is added."""
    base = {
        "ds.pyi": "class H:\n    @overload  # type: ignore\n    def get(self, k: str) -> str: ...\n"
        "    def items(self) -> Iterator[str]: ...  # type: ignore\n",
        "ds.py": "class H:\n    pass\n",
    }
    head = {
        "ds.py": "class H:\n    @t.overload  # type: ignore[override]\n    def get(self, k: str) -> str: ...\n"
        "    def items(self) -> t.Iterable[str]:  # type: ignore[override]\n        return []\n"
        "\n\nclass K:\n    @t.overload  # type: ignore[override]\n    def get(self, k: str) -> str: ...\n"
    }
    assert where(scan(RULE, change_of(repo, head, base, removed=["ds.pyi"]))) == [("ds.py", 9, "type-ignore")]
    # in a file that does not parse no class names a definition, and a decorator's is not known: a
    # second `def items` given a marker is one more than the change removes, and of the two the one
    # less like the stub's (its code, the lines around it) is the one reported
    more = {
        "ds.py": head["ds.py"].replace("class K:", "class K(:")
        + "\n\nclass L:\n    def items(self):  # type: ignore[override]\n        return []\n"
    }
    again = GitRepo.create(repo.root.parent / "again")
    assert where(scan(RULE, change_of(again, more, base, removed=["ds.pyi"]))) == [
        ("ds.py", 2, "type-ignore"),
        ("ds.py", 9, "type-ignore"),
        ("ds.py", 14, "type-ignore"),
    ]


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        # widened as it moved: it silences more than the marker it replaces
        (
            {"app.py": "import os\n", "b.py": "class App:\n    def name(self) -> str:  # type: ignore\n"},
            [("b.py", 2, "type-ignore")],
        ),
        # moved to two files: the change adds one more than it removes, and one is reported (the
        # two alike: the later)
        (
            {
                "app.py": "import os\n",
                "b.py": "def name(self) -> str:  # type: ignore[override]\n",
                "c.py": "def name(self) -> str:  # type: ignore[override]\n",
            },
            [("c.py", 1, "type-ignore")],
        ),
        # the same marker on other code
        (
            {"app.py": "import os\n", "b.py": "def title(self) -> str:  # type: ignore[override]\n"},
            [("b.py", 1, "type-ignore")],
        ),
    ],
)
def test_a_marker_moved_to_another_file_is_added_when_it_is_more(
    repo: GitRepo, head: dict[str, str], expected: list[tuple[str, int, str]]
) -> None:
    assert where(scan(RULE, change_of(repo, head, {"app.py": _MOVED_FROM}))) == expected


def test_a_marker_moved_to_another_definition_of_the_name_in_the_file_is_added(repo: GitRepo) -> None:
    """Within a file only the file's own pairing counts: `A.items`'s marker taken off and put on
    `B.items` further down silences another method."""
    filler = "".join(f"x{i} = {i}\n" for i in range(12))
    base = (
        "class A:\n    def items(self):  # type: ignore\n        pass\n"
        + filler
        + "class B:\n    def items(self, x):\n        pass\n"
    )
    head = (
        "class A:\n    def items(self):\n        pass\n"
        + filler
        + "class B:\n    def items(self, x):  # type: ignore\n        pass\n"
    )
    assert where(_suppressions(repo, {"a.py": head}, {"a.py": base})) == [("a.py", 17, "type-ignore")]


def test_a_marker_alone_on_its_line_is_not_matched_across_files(repo: GitRepo) -> None:
    """A marker with no code before it (`# pragma: no cover` on a line of its own) names nothing to
    follow: removed from one file and added in another, it is added."""
    base = {"a.py": "x = 1\n# pragma: no cover\ny = 2\n"}
    head = {"a.py": "x = 1\ny = 2\n", "b.py": "# pragma: no cover\nz = 3\n"}
    assert where(scan(RULE, change_of(repo, head, base))) == [("b.py", 1, "pragma-no-cover")]


def test_markers_beyond_those_the_hunk_removed_are_added(repo: GitRepo) -> None:
    base = "x = 1  # noqa\n"
    head = "x = 1  # noqa\ny = 2  # noqa\nz = 3  # type: ignore\n"
    found = _suppressions(repo, {"a.py": head}, {"a.py": base})
    assert where(found) == [("a.py", 2, "noqa"), ("a.py", 3, "type-ignore")]


def test_a_marker_replaced_by_another_kind_is_added(repo: GitRepo) -> None:
    found = _suppressions(repo, {"a.py": "x = f()  # type: ignore\n"}, {"a.py": "x = f()  # noqa\n"})
    assert where(found) == [("a.py", 1, "type-ignore")]


def test_an_aliased_skip_the_change_kept_is_not_added_but_a_new_one_is(repo: GitRepo) -> None:
    base = "from pytest import mark as m\n\n@m.skip\ndef test_a(): pass\n"
    head = "from pytest import mark as m\n\n@m.skip(reason='x')\ndef test_a(): pass\n\n@m.skip\ndef test_b(): pass\n"
    found = _suppressions(repo, {"test_a.py": head}, {"test_a.py": base})
    assert where(found) == [("test_a.py", 6, "pytest-skip")]


_WATCHDOG = (
    "import pytest\n\nrequire_watchdog = pytest.mark.skipif(watchdog is None, reason='no watchdog')\n\n\n"
)


def test_a_skip_made_once_and_applied_by_its_name_counts_where_it_is_applied(repo: GitRepo) -> None:
    """A skip decorator built once and bound to a name (werkzeug's `require_watchdog =
    pytest.mark.skipif(...)`) skips every test it decorates."""
    base = _WATCHDOG + "def test_a(): pass\n"
    head = _WATCHDOG + "@require_watchdog\ndef test_a(): pass\n"
    assert where(_suppressions(repo, {"test_a.py": head}, {"test_a.py": base})) == [
        ("test_a.py", 6, "pytest-skip")
    ]


def test_a_named_skip_replaced_by_another_skip_is_kept(repo: GitRepo) -> None:
    """werkzeug 70551309d1: `@require_watchdog` made `pytest.importorskip("watchdog")` in the test
    body: the test is skipped as it was."""
    base = _WATCHDOG + "@require_watchdog\ndef test_a():\n    run()\n"
    head = _WATCHDOG + "def test_a():\n    pytest.importorskip('watchdog')\n    run()\n"
    assert _suppressions(repo, {"test_a.py": head}, {"test_a.py": base}) == []


def test_a_name_bound_to_another_mark_is_no_skip(repo: GitRepo) -> None:
    base = "from pytest import mark\n\nslow = mark.parametrize('x', [1])\nmade = factory()(1)\n\n\ndef test_a(x): pass\n"
    head = base.replace("def test_a", "@slow\n@made\ndef test_a")
    assert _suppressions(repo, {"test_a.py": head}, {"test_a.py": base}) == []


def test_a_skip_named_in_look_alike_characters_counts(repo: GitRepo) -> None:
    """Python reads identifiers as NFKC, so `ｓｋ` is the `sk` the assignment bound: the lines the
    tree is walked on are not chosen by the text's spelling of a name when it is not ASCII."""
    source = "import pytest as pt\nsk = pt.mark.skip\n\n@\uff53\uff4b\ndef test_a(): pass\n"
    assert where(_suppressions(repo, {"test_a.py": source})) == [
        ("test_a.py", 2, "pytest-skip"),
        ("test_a.py", 4, "pytest-skip"),
    ]


def test_a_skip_imported_earlier_under_another_name_counts_where_it_is_added(repo: GitRepo) -> None:
    base = "from pytest import skip as later\n\n\ndef test_a():\n    pass\n"
    head = "from pytest import skip as later\n\n\ndef test_a():\n    later('x')\n"
    assert where(_suppressions(repo, {"test_a.py": head}, {"test_a.py": base})) == [
        ("test_a.py", 5, "pytest-skip")
    ]


def test_a_skip_through_pytests_own_modules_counts(repo: GitRepo) -> None:
    source = "from _pytest.outcomes import skip as s\n\ns('x')\n"
    assert where(_suppressions(repo, {"test_a.py": source})) == [("test_a.py", 3, "pytest-skip")]


_UNRESOLVED = "from pytest import mark as m\n\n@m.skip\n@pytest.mark.skip\ndef test_a():\n    pass\n"


def test_a_file_that_does_not_parse_has_only_its_written_markers_counted(repo: GitRepo) -> None:
    source = _UNRESOLVED.replace("():", "(:")
    assert where(_suppressions(repo, {"test_a.py": source})) == [("test_a.py", 4, "pytest-skip")]


def test_without_the_new_text_only_the_written_markers_count(repo: GitRepo) -> None:
    change = change_of(repo, {"test_a.py": "x = 1\n" + _UNRESOLVED}, {"test_a.py": "x = 1\n"}, texts=False)
    assert where(scan(RULE, change)) == [("test_a.py", 5, "pytest-skip")]


def test_without_the_base_text_a_removed_skip_is_read_from_its_line(repo: GitRepo) -> None:
    diff = (
        b"diff --git a/test_a.py b/test_a.py\n--- a/test_a.py\n+++ b/test_a.py\n@@ -1,3 +1,3 @@\n"
        b" from pytest import mark as m\n-@m.skip\n+@m.skip(reason='x')\n def test_a(): pass\n"
    )
    head = "from pytest import mark as m\n@m.skip(reason='x')\ndef test_a(): pass\n"
    texts = {("test_a.py", "test_a.py"): FileTexts(base=None, head=head)}
    found = scan(RULE, change_from_diff(diff, texts))
    assert where(found) == [("test_a.py", 2, "pytest-skip")]  # the base's alias is unknown


@pytest.mark.parametrize(
    ("path", "source", "line", "marker_id"),
    [
        ("a.js", "x = 1;\n/*\n  eslint-disable\n*/\n", 3, "eslint-disable"),
        ("a.ts", "x = 1;\n/**\n * eslint-disable-next-line no-eval\n */\neval(x);\n", 3, "eslint-disable"),
        ("a.js", "x = 1;\n/*\n  eslint no-eval: 0\n*/\n", 3, "eslint-disable"),
        ("a.js", "x = 1;\n/*\n * istanbul ignore next\n */\n", 3, "pragma-no-cover"),
    ],
)
def test_a_directive_on_a_later_line_of_a_block_comment_fires(
    repo: GitRepo, path: str, source: str, line: int, marker_id: str
) -> None:
    """ESLint and istanbul read a block comment's text with its leading white space (line breaks
    too) trimmed."""
    assert where(_suppressions(repo, {path: source})) == [(path, line, marker_id)]


@pytest.mark.parametrize(
    ("path", "line", "written"),
    [
        ("lib.rs", "#[allow(dead_code)]", "#[allow("),
        ("lib.rs", "#![allow(clippy::all)]", "#![allow("),
        ("lib.rs", "#[expect(unused_variables)]", "#[expect("),
        ("A.java", '@SuppressWarnings("unchecked")', "@SuppressWarnings"),
        ("A.kt", '@Suppress("UNCHECKED_CAST")', "@Suppress"),
        ("A.kt", '@file:Suppress("unused")', "@file:Suppress"),
        ("A.cs", "#pragma warning disable CS0168", "#pragma warning disable"),
        ("A.cs", '[SuppressMessage("Microsoft.Design", "CA1031")]', "SuppressMessage"),
        ("a.c", '#pragma GCC diagnostic ignored "-Wformat"', "#pragma GCC diagnostic ignored"),
        ("a.cpp", '#pragma clang diagnostic ignored "-Wall"', "#pragma clang diagnostic ignored"),
        ("a.c", "#pragma warning(disable: 4996)", "#pragma warning(disable"),
        ("main.go", "x := f() //lint:ignore SA1019 old API", "lint:ignore"),
        ("main.go", "//lint:file-ignore U1000 generated", "lint:file-ignore"),
        ("A.swift", "// swiftlint:disable force_cast", "swiftlint:disable"),
        ("a.php", "// phpcs:ignore", "phpcs:ignore"),
        ("a.php", "/** @phpstan-ignore-next-line */", "@phpstan-ignore"),
        ("a.php", "/** @psalm-suppress InvalidArgument */", "@psalm-suppress"),
    ],
)
def test_other_languages_suppressions_fire(repo: GitRepo, path: str, line: str, written: str) -> None:
    found = _suppressions(repo, {path: f"first = 1\n{line}\n"})
    assert where(found) == [(path, 2, "lint-ignore")]
    assert found[0].message.startswith(f"Adds `{written}`")


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("lib.rs", "#[derive(Debug)]"),
        ("lib.rs", "#[cfg(test)]"),
        ("lib.rs", "let allowed = allow(x);"),
        ("A.java", "@Override"),
        ("A.java", "// we never use @SuppressWarnings here"),
        ("A.cs", "#pragma warning restore CS0168"),
        ("a.c", "#pragma once"),
        ("a.c", "#pragma GCC diagnostic push"),
        ("a.js", "const s = 'eslint-disable';"),
        ("a.js", "x = 1;\n  eslint = require('eslint');"),
        ("a.py", "x = 1\n    istanbul ignore next"),
        ("a.md", "/*\n eslint-disable\n*/"),
    ],
)
def test_other_languages_near_misses_stay_quiet(repo: GitRepo, path: str, line: str) -> None:
    assert _suppressions(repo, {path: f"{line}\n"}) == []


@pytest.mark.parametrize(
    ("source", "line", "marker_id"),
    [
        ("import pytest\n\n@pytest.mark.\\\nskip\ndef test_a(): pass\n", 3, "pytest-skip"),
        ("import pytest\n\n@pytest . mark . skip\ndef test_a(): pass\n", 3, "pytest-skip"),
        ("import pytest\n\n@(pytest.mark\n  .skip)\ndef test_a(): pass\n", 3, "pytest-skip"),
        ("import unittest\n\ndef test_a():\n    raise unittest.case.SkipTest('x')\n", 4, "unittest-skip"),
        ("import pytest\n\nmark = pytest.mark\n\n@mark.skip\ndef test_a(): pass\n", 5, "pytest-skip"),
        (
            "import pytest as pt\n\nm = pt.mark\nsk = m.skipif\n\n@sk(True, reason='')\ndef test_a(): pass\n",
            4,
            "pytest-skip",
        ),
        ("import pytest\n\n@getattr(pytest.mark, 'skip')\ndef test_a(): pass\n", 3, "pytest-skip"),
    ],
)
def test_skips_written_any_way_python_reads_them_fire(
    repo: GitRepo, source: str, line: int, marker_id: str
) -> None:
    found = _suppressions(repo, {"test_a.py": source})
    assert (("test_a.py", line, marker_id)) in where(found)


@pytest.mark.parametrize(
    "source",
    [
        "import pytest\n\nmark = pytest.mark\n\n@mark.parametrize('x', [1])\ndef test_a(x): pass\n",
        "import pytest\n\nskip = True\nif skip:\n    pass\n",
        "import pytest\n\nsettings.mark = pytest.mark\nskip_all = settings.mark\n",
        "import pytest\n\nskip_marks = [getattr(pytest.mark, name) for name in names]\n",
        "import pytest\n\ndef test_a(skip):\n    assert skip.count == 0\n",
        "import unittest\n\nclass T(unittest.TestCase):\n    skip_slow = False\n",
    ],
)
def test_the_word_skip_beside_pytest_is_no_skip(repo: GitRepo, source: str) -> None:
    assert _suppressions(repo, {"test_a.py": source}) == []


@pytest.mark.parametrize(
    ("path", "base", "head"),
    [
        ("a.py", "x = f()  # noqa: E501\n", "x = f()  # noqa\n"),
        ("a.py", "x = f()  # noqa: E501\n", "x = f()  # noqa: E501,F401\n"),
        ("a.py", "x = f()  # noqa: E501\n", "x = f()  # noqa E501\n"),  # no colon: every code
        ("a.py", "x = f()  # type: ignore[attr-defined]\n", "x = f()  # type: ignore\n"),
        ("a.py", "x = f()  # pyright: ignore[reportX]\n", "x = f()  # pyright: ignore[reportX, reportY]\n"),
        ("a.py", "x = f()  # pylint: disable=a\n", "x = f()  # pylint: disable=a,b\n"),
        ("a.py", "x = f()  # nosec B602\n", "x = f()  # nosec\n"),
        ("a.js", "eval(x); // eslint-disable-line no-eval\n", "eval(x); // eslint-disable-line\n"),
        ("a.go", "x := f() //nolint:errcheck\n", "x := f() //nolint\n"),
        ("a.sh", "# shellcheck disable=SC2086\n", "# shellcheck disable=SC2086,SC2046\n"),
    ],
)
def test_a_kept_marker_that_silences_more_is_added(repo: GitRepo, path: str, base: str, head: str) -> None:
    assert len(_suppressions(repo, {path: head}, {path: base})) == 1


@pytest.mark.parametrize(
    ("path", "base", "head"),
    [
        ("a.py", "x = f()  # type: ignore[a]\n", "x = f()  # type: ignore[b]\n"),
        ("a.py", "x = f()  # noqa: E501\n", "x = f()  # noqa: F401\n"),
        ("a.py", "x = f()  # noqa: E501\n", "y = g(x)  # noqa: F401\n"),  # the line rewritten too
        ("a.py", "x = f()  # pylint: disable=x\n", "x = f()  # pylint: disable=y\n"),
        ("a.py", "x = f()  # type: ignore[a, b]\n", "x = f()  # type: ignore[a, c]\n"),  # one of two
        ("a.py", "x = f()  # nosec B602\n", "x = f()  # nosec B603\n"),
        ("a.js", "eval(x); // eslint-disable-line a\n", "eval(x); // eslint-disable-line b\n"),
        ("a.ts", "// eslint-disable-next-line a\nx()\n", "// eslint-disable-next-line b\nx()\n"),
        ("a.go", "x := f() //nolint:errcheck\n", "x := f() //nolint:gosec\n"),
        # mypy's sub-codes: a part of `misc` made `misc`, or one import error made the other
        (
            "a.py",
            "@d  # type: ignore[untyped-decorator]\ndef f(): pass\n",
            "@d  # type: ignore[misc]\ndef f(): pass\n",
        ),
        (
            "a.py",
            "import s  # type: ignore[import-not-found]\n",
            "import s  # type: ignore[import-untyped]\n",
        ),
    ],
)
def test_a_kept_marker_whose_codes_the_change_replaces_is_added(
    repo: GitRepo, path: str, base: str, head: str
) -> None:
    """A same-kind marker on the rewritten line silences what it names: a code the base's did not
    name is something the change newly silences."""
    found = _suppressions(repo, {path: head}, {path: base})
    assert [line for _, line, _ in where(found)] == [1]


def test_markers_swapped_between_two_rewritten_lines_are_kept(repo: GitRepo) -> None:
    base = "x = f()  # noqa: E501\ny = g()  # noqa: F401\n"
    head = "y = g()  # noqa: F401\nx = f()  # noqa: E501\n"
    assert _suppressions(repo, {"a.py": head}, {"a.py": base}) == []


@pytest.mark.parametrize(
    ("path", "base", "head"),
    [
        ("a.py", "x = f()  # noqa\n", "x = f()  # noqa: E501\n"),  # narrowed
        ("a.py", "x = f()  # type: ignore\n", "x = f()  # type: ignore[b]\n"),  # narrowed
        ("a.py", "x = f()  # pylint: disable=x,y\n", "x = f()  # pylint: disable=y\n"),  # narrowed
        ("a.js", "eval(x); // eslint-disable-line a, b\n", "eval(y); // eslint-disable-line a\n"),
        ("a.py", "x = f()  # noqa: E501,F401\n", "x = g()  # noqa: F401, E501\n"),  # reordered
        ("a.py", "x = f()  # noqa: E501, F401\n", "x = f()  # noqa: F401\n"),
        ("a.py", "x = f()  # type: ignore[a, b]\n", "x = f()  # type: ignore[b]\n"),
        ("a.py", "x = f()  # nosec B602 -- reviewed\n", "x = f()  # nosec B602 -- reviewed again\n"),
        (
            "a.js",
            "eval(x); // eslint-disable-line no-eval -- why\n",
            "eval(y); // eslint-disable-line no-eval\n",
        ),
        ("a.ts", "// @ts-ignore because\nx()\n", "// @ts-ignore since\nx()\n"),
        # mypy's codes within another: `misc` held the untyped-decorator error before it had a code
        (
            "a.py",
            "@dec  # type: ignore[misc]\ndef f(): pass\n",
            "@dec  # type: ignore[untyped-decorator]\ndef f(): pass\n",
        ),
        ("a.py", "import socks  # type: ignore[import]\n", "import socks  # type: ignore[import-untyped]\n"),
        ("a.py", "o.m = g  # type: ignore[assignment]\n", "o.m = g  # type: ignore[method-assign]\n"),
    ],
)
def test_a_kept_marker_that_silences_as_much_or_less_is_not_added(
    repo: GitRepo, path: str, base: str, head: str
) -> None:
    assert _suppressions(repo, {path: head}, {path: base}) == []


@pytest.mark.parametrize(
    "source",
    [
        "s = 'x  # type: ignore'\n",
        'def f():\n    """Write\n    x = g()  # type: ignore[attr-defined]\n    when you must."""\n',
        'HELP = """\n# pylint: disable=broad-except\n"""\n',
        "msg = f'{x}  # pyright: ignore'\n",
        "cmd = 'bandit  # nosec'\n",
        "s = '''\n# mypy: ignore-errors\n'''\n",
    ],
)
def test_a_type_checker_or_pylint_marker_in_a_python_string_is_text(repo: GitRepo, source: str) -> None:
    """mypy, pyright, pyre, pytype, pylint and bandit read their markers in comment tokens only."""
    assert _suppressions(repo, {"a.py": source}) == []


@pytest.mark.parametrize(
    ("source", "line", "marker_id"),
    [
        ("s = '# type: ignore'  # type: ignore\n", 1, "type-ignore"),
        ("s = 'it\\'s'  # pylint: disable=x\n", 1, "pylint-disable"),
        ("s = '''x'''; t = f()  # nosec\n", 1, "nosec"),
        ("x = 1  # noqa: E501\ns = '# noqa'\n", 1, "noqa"),
        ("s = 'x  # noqa'\n", 1, "noqa"),  # flake8 reads its marker anywhere on the physical line
        ("s = 'x  # pragma: no cover'\n", 1, "pragma-no-cover"),  # coverage.py's regex reads lines
    ],
)
def test_a_marker_its_tool_reads_still_fires(repo: GitRepo, source: str, line: int, marker_id: str) -> None:
    assert (("a.py", line, marker_id)) in where(_suppressions(repo, {"a.py": source}))


def test_a_marker_in_a_removed_string_accounts_for_no_added_comment(repo: GitRepo) -> None:
    base = {"a.py": "s = 'x  # type: ignore'\n"}
    head = {"a.py": "x: int = f()  # type: ignore\n"}
    assert where(_suppressions(repo, head, base)) == [("a.py", 1, "type-ignore")]


@pytest.mark.parametrize(
    ("path", "line", "written"),
    [
        ("a.py", "# pytype: skip-file", "pytype: skip-file"),
        ("a.test.ts", "it.skipIf(isCI)('works', () => {});", "it.skipIf"),
        ("a.test.ts", "describe.skipIf(true)('suite', () => {});", "describe.skipIf"),
        ("a.test.ts", "test.concurrent.skip('x', async () => {});", "test.concurrent.skip"),
        ("a.test.js", "test.failing('known bug', () => {});", "test.failing"),
    ],
)
def test_more_forms_of_skips_and_file_level_markers_fire(
    repo: GitRepo, path: str, line: str, written: str
) -> None:
    found = _suppressions(repo, {path: f"{line}\n"})
    assert len(found) == 1
    assert found[0].message.startswith(f"Adds `{written}`")


@pytest.mark.parametrize("line", ["it.skipped = 1;", "test.failingCount = 0;", "retest.skipIf(x);"])
def test_more_forms_near_misses(repo: GitRepo, line: str) -> None:
    assert _suppressions(repo, {"a.test.js": f"{line}\n"}) == []


def test_only_a_skips_own_names_send_a_file_to_the_syntax_tree(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.engine.content import suppressions

    parsed: list[str] = []
    real = suppressions._parse
    monkeypatch.setattr(suppressions, "_parse", lambda source: parsed.append(source) or real(source))
    words = "import unittest\nskipped = skip_unless_symlink(skipinitialspace)\n"
    marked = "import unittest\nmark = unittest\n@mark.skipUnless(True, 'x')\ndef test(): pass\n"
    found = scan(RULE, change_of(repo, {"test_a.py": words, "test_b.py": marked}))
    assert where(found) == [("test_b.py", 3, "unittest-skip")]
    assert parsed == [marked], "words that only start like a skip's name are no skip"


def test_a_skip_is_not_guessed_from_a_name_held_in_a_variable_or_an_attribute(repo: GitRepo) -> None:
    source = (
        "import pytest\n"
        "holder.mark = pytest.mark\n"
        "which = 'skip'\n"
        "@getattr(pytest.mark, which)\n"
        "def test_a(): pass\n"
        "@pytest.mark.skip\n"
        "def test_b(): pass\n"
    )
    assert where(scan(RULE, change_of(repo, {"test_a.py": source}))) == [("test_a.py", 6, "pytest-skip")]


def test_a_kept_marker_of_a_shift_jis_file_is_read_on_both_sides_with_its_codec(repo: GitRepo) -> None:
    """The removed line is read as the added one is: `表` (0x95 0x5C) is one character on both."""
    declaration, moved = "# -*- coding: shift_jis -*-\n", 'x = f("表")  # noqa: E501\n'
    filler = "".join(f"k{i} = {i}\n" for i in range(10))
    base = (declaration + moved + filler).encode("shift_jis")
    head = (declaration + filler + moved).encode("shift_jis")  # moved to another hunk
    assert _suppressions(repo, {"a.py": head}, {"a.py": base}) == []


# Skips of other languages' test frameworks, in those languages' test files.
@pytest.mark.parametrize(
    ("path", "line", "marker_id", "written"),
    [
        ("pkg/io_test.go", '\tt.Skip("flaky on CI")', "go-skip", "t.Skip"),
        ("pkg/io_test.go", '\tt.Skipf("needs %s", tool)', "go-skip", "t.Skipf"),
        ("pkg/io_test.go", "\tif testing.Short() { t.SkipNow() }", "go-skip", "t.SkipNow"),
        ("pkg/io_test.go", '\tb.Skip("slow")', "go-skip", "b.Skip"),
        ("pkg/io_test.go", '\ts.T().Skip("later")', "go-skip", ".T().Skip"),
        ("src/lib.rs", "#[ignore]", "rust-ignore", "#[ignore]"),
        ("tests/api.rs", '    #[ignore = "needs a network"]', "rust-ignore", "#[ignore"),
        ("src/test/java/a/ApiTest.java", "    @Disabled", "junit-skip", "@Disabled"),
        ("src/test/java/a/ApiTest.java", '  @Disabled("broken")', "junit-skip", "@Disabled"),
        ("ApiTests.java", "@Ignore", "junit-skip", "@Ignore"),
        ("app/src/androidTest/kotlin/LoginTest.kt", '    @Ignore("flaky")', "junit-skip", "@Ignore"),
        ("src/test/kotlin/a/Api.kt", "@DisabledOnOs(OS.WINDOWS)", "junit-skip", "@DisabledOnOs"),
        ("spec/models/user_spec.rb", "  xit 'saves' do", "rspec-skip", "xit"),
        ("spec/models/user_spec.rb", "xdescribe User do", "rspec-skip", "xdescribe"),
        ("spec/models/user_spec.rb", "  xcontext 'when admin' do", "rspec-skip", "xcontext"),
        ("spec/models/user_spec.rb", "    skip 'until the API is back'", "rspec-skip", "skip"),
        ("spec/models/user_spec.rb", "    skip", "rspec-skip", "skip"),
        ("spec/models/user_spec.rb", '    pending("a bug in rails")', "rspec-skip", "pending"),
        ("spec/models/user_spec.rb", "    pending 'slow'", "rspec-skip", "pending"),
    ],
)
def test_other_languages_test_skips_fire(
    repo: GitRepo, path: str, line: str, marker_id: str, written: str
) -> None:
    found = _suppressions(repo, {path: f"first\n{line}\n"})
    assert where(found) == [(path, 2, marker_id)]
    assert found[0].message.startswith(f"Adds `{written}`, which silences a test")


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("pkg/reader.go", "func (r *Reader) Skip(n int) error { return r.Skip(n) }"),
        ("pkg/reader.go", '\tt.Skip("not a test file")'),
        ("pkg/io_test.go", "\tr.Skip(4)"),
        ("pkg/io_test.go", "\t// t.Skip() while the server is down"),
        ("pkg/io_test.go", '\tmsg := "t.Skip(x)"'),
        ("pkg/io_test.go", "\tit.Skip(1)"),
        ("src/lib.rs", "// #[ignore]"),
        ("src/lib.rs", "#[cfg(test)]"),
        ("src/lib.rs", 'let s = "#[ignore]";'),
        ("src/main/java/a/Entity.java", "    @Ignore"),  # Android Room: a field left out, no test
        ("src/test/java/a/ApiTest.java", "    // @Disabled until the fix"),
        ("src/test/java/a/ApiTest.java", "    @IgnoreJRERequirement"),
        ("src/test/java/a/ApiTest.java", "    @Test"),
        ("lib/user.rb", "  skip 'x'"),
        ("spec/models/user_spec.rb", "  skip_before_action :auth"),
        ("spec/models/user_spec.rb", "  pending_jobs = queue.size"),
        ("spec/models/user_spec.rb", "  skip = true"),
        ("spec/models/user_spec.rb", "  # xit 'later' do"),
        ("spec/models/user_spec.rb", "  it 'skips' do; user.skip; end"),
        ("spec/models/user_spec.rb", "  expect(order).to be_pending"),
    ],
)
def test_other_languages_test_skip_near_misses_stay_quiet(repo: GitRepo, path: str, line: str) -> None:
    assert _suppressions(repo, {path: f"{line}\n"}) == []


def test_a_test_skip_of_another_language_the_change_kept_is_not_added(repo: GitRepo) -> None:
    base = 'func TestA(t *testing.T) {\n\tt.Skip("flaky")\n}\n'
    head = 'func TestA(t *testing.T) {\n\tt.Skip("flaky on arm")\n}\n\nfunc TestB(t *testing.T) {\n\tt.SkipNow()\n}\n'
    found = _suppressions(repo, {"a_test.go": head}, {"a_test.go": base})
    assert where(found) == [("a_test.go", 6, "go-skip")]

"""`references` on real repositories: call sites a change breaks in files it never touched, and the
near misses that must stay quiet."""

from __future__ import annotations

import pytest

from bot.engine.render.annotations import receipt_annotations
from bot.engine.render.markdown import render_markdown
from bot.engine.semantic import CheckConclusion, SemanticStatus
from tests.gitrepo import GitRepo
from tests.references.helpers import change, found, references

CORE = "def fetch(url, timeout=10):\n    return url\n\n\ndef parse(text):\n    return text\n"


def test_a_renamed_function_breaks_its_untouched_caller(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {
            "src/pkg/__init__.py": "",
            "src/pkg/core.py": CORE,
            "src/app.py": "from pkg.core import parse\n\nparse('x')\n",
        },
        {"src/pkg/core.py": CORE.replace("def parse", "def parse_text")},
    )
    assert found(receipt) == [("src/app.py", 1, "removed", "pkg.core.parse")]
    (finding,) = references(receipt).findings
    assert "`pkg.core` has no `parse` any more" in finding.message
    assert "src/pkg/core.py:5" in finding.message and finding.definition == "src/pkg/core.py:5"
    assert receipt.semantic is SemanticStatus.FAIL
    assert receipt.verdict.conclusion.value == "failure"
    assert "semantic failed: references (failure)" in receipt.verdict.reasons
    check = receipt.checks[-1]
    assert (check.name, check.conclusion) == ("references", CheckConclusion.FAILURE)
    assert "src/app.py:1:" in check.details
    (annotation,) = [a for a in receipt_annotations(receipt) if a.title.startswith("receipt: references")]
    assert (annotation.path, annotation.start_line, annotation.level.value) == ("src/app.py", 1, "failure")
    markdown = render_markdown(receipt)
    assert (
        "### Broken call sites\n- `src/app.py` line 1: " in markdown
        and "more (the annotations" not in markdown
    )
    body = receipt.as_json()
    entry = body["semantic"]["checks"][-1]
    assert entry["findings"][0]["id"] == "references:removed:pkg.core.parse"


def test_a_removed_keyword_argument_breaks_the_call_that_passes_it(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {
            "pkg/__init__.py": "",
            "pkg/core.py": CORE,
            "app.py": "import pkg.core\n\n\ndef run():\n    return pkg.core.fetch('u', timeout=3)\n",
            "other.py": "from pkg.core import fetch\nfetch('u')\nfetch('u', 5)\n",
        },
        {"pkg/core.py": CORE.replace("url, timeout=10", "url")},
    )
    assert found(receipt) == [
        ("app.py", 5, "signature", "pkg.core.fetch"),
        ("other.py", 3, "signature", "pkg.core.fetch"),
    ]
    messages = [f.message for f in references(receipt).findings]
    assert "it has no parameter named 'timeout'" in messages[0]
    assert "it takes at most 1 positional argument and is called with 2" in messages[1]


def test_a_required_parameter_added_breaks_calls_that_do_not_pass_it(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {
            "lib.py": "def area(w, h):\n    return w * h\n",
            "use.py": "from lib import area\narea(1, 2)\narea(1, 2, 3)\n",
        },
        {"lib.py": "def area(w, h, *, unit):\n    return w * h\n"},
    )
    assert found(receipt) == [("use.py", 2, "signature", "lib.area")]
    assert "it requires 'unit'" in references(receipt).findings[0].message


def test_a_re_exported_name_is_followed_through_the_package(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {
            "pkg/__init__.py": "from .core import fetch, parse\n__all__ = ['fetch', 'parse']\n",
            "pkg/core.py": CORE,
            "client.py": "from pkg import fetch\n\nfetch('u', timeout=1)\n",
            "uses.py": "import pkg\n\npkg.parse('t')\n",
        },
        {"pkg/core.py": CORE.replace("url, timeout=10", "url").replace("def parse", "def parse_text")},
    )
    assert found(receipt) == [
        ("client.py", 3, "signature", "pkg.core.fetch"),
        ("pkg/__init__.py", 1, "removed", "pkg.core.parse"),
        ("uses.py", 3, "removed", "pkg.core.parse"),
    ]


def test_a_name_re_exported_under_another_name_is_followed(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {
            "pkg/__init__.py": "from pkg.core import fetch as get\n",
            "pkg/core.py": CORE,
            "client.py": "from pkg import get\nget('u', timeout=1)\n",
        },
        {"pkg/core.py": CORE.replace("url, timeout=10", "url")},
    )
    assert found(receipt) == [("client.py", 2, "signature", "pkg.core.fetch")]


def test_relative_imports_are_followed(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {
            "app/__init__.py": "",
            "app/util.py": "def helper(a):\n    return a\n",
            "app/views/__init__.py": "",
            "app/views/page.py": "from ..util import helper\n\nhelper(1)\n",
            "app/views/other.py": "from .. import util\n\nutil.helper(2)\n",
            "app/views/same.py": "from . import page\nfrom .page import helper as h\n",
        },
        {"app/util.py": "def assist(a):\n    return a\n"},
    )
    assert found(receipt) == [
        ("app/views/other.py", 3, "removed", "app.util.helper"),
        ("app/views/page.py", 1, "removed", "app.util.helper"),
        ("app/views/same.py", 2, "removed", "app.util.helper"),
    ]


def test_an_import_for_type_checkers_only_is_found_and_said_to_be_one(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {
            "app/__init__.py": "",
            "app/util.py": "class Helper:\n    pass\n",
            "app/typed.py": "import typing as t\n\nif t.TYPE_CHECKING:\n    from .util import Helper\nelse:\n    Helper = None\n",
            "app/plain.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    pass\nfrom .util import Helper\n",
        },
        {"app/util.py": "class Assistant:\n    pass\n"},
    )
    assert found(receipt) == [
        ("app/plain.py", 5, "removed", "app.util.Helper"),
        ("app/typed.py", 4, "removed", "app.util.Helper"),
    ]
    typed, plain = (
        {f.path: f.message for f in receipt.references.findings}["app/typed.py"],
        {  # type: ignore[union-attr]
            f.path: f.message
            for f in receipt.references.findings  # type: ignore[union-attr]
        }["app/plain.py"],
    )
    assert typed.endswith("It is under `if TYPE_CHECKING:`: it breaks type checking, not the running code.")
    assert "TYPE_CHECKING" not in plain


def test_a_method_on_a_class_is_followed_to_instances_and_subclasses(repo: GitRepo) -> None:
    base = (
        "class Widget:\n"
        "    def __init__(self, size):\n        self.size = size\n\n"
        "    def spin(self, n):\n        return n\n\n"
        "    def stop(self):\n        return self.spin(0)\n\n"
        "    @classmethod\n    def make(cls):\n        return cls(1)\n\n"
        "    @staticmethod\n    def unit(n):\n        return n\n"
    )
    head = base.replace("def spin(self, n)", "def spin(self, n, speed)").replace("def unit(n)", "def unit()")
    head = head.replace("    def stop(self):\n        return self.spin(0)\n\n", "")
    receipt = change(
        repo,
        {
            "shapes.py": base,
            "use.py": (
                "from shapes import Widget\n\n\n"
                "def go(w: Widget):\n    w.spin(1)\n    w.stop()\n\n\n"
                "def make():\n    x = Widget(3)\n    x.spin(n=2)\n    Widget.unit(4)\n    return Widget.make()\n\n\n"
                "class Big(Widget):\n    def twice(self):\n        return self.spin(2)\n"
            ),
        },
        {"shapes.py": head},
    )
    assert found(receipt) == [
        ("use.py", 5, "signature", "shapes.Widget.spin"),
        ("use.py", 6, "removed", "shapes.Widget.stop"),
        ("use.py", 11, "signature", "shapes.Widget.spin"),
        ("use.py", 12, "signature", "shapes.Widget.unit"),
        ("use.py", 18, "signature", "shapes.Widget.spin"),
    ]


def test_a_constructor_that_needs_more_breaks_its_callers(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {
            "model.py": (
                "from dataclasses import dataclass, field\n\n\n@dataclass(frozen=True)\nclass Point:\n"
                "    x: int\n    y: int = 0\n    tags: list = field(default_factory=list)\n\n\n"
                "class Plain:\n    pass\n"
            ),
            "use.py": "from model import Point, Plain\nPoint(1)\nPoint(1, 2)\nPlain()\n",
        },
        {
            "model.py": (
                "from dataclasses import dataclass, field\n\n\n@dataclass(frozen=True)\nclass Point:\n"
                "    x: int\n    y: int\n    tags: list = field(default_factory=list)\n\n\n"
                "class Plain:\n    def __init__(self, a):\n        self.a = a\n"
            ),
        },
    )
    assert found(receipt) == [
        ("use.py", 2, "signature", "model.Point"),
        ("use.py", 4, "signature", "model.Plain"),
    ]


def test_the_changed_module_itself_still_calling_the_old_name_is_broken(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {"m.py": "def old():\n    return 1\n\n\ndef user():\n    return old()\n"},
        {"m.py": "def new():\n    return 1\n\n\ndef user():\n    return old()\n"},
    )
    assert found(receipt) == [("m.py", 6, "removed", "m.old")]


def test_a_deleted_or_moved_module_breaks_its_importers(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {
            "pkg/__init__.py": "",
            "pkg/gone.py": "X = 1\n",
            "pkg/old.py": "Y = 2\n",
            "a.py": "import pkg.gone\nfrom pkg import old\nfrom pkg.old import Y\n",
            "b.py": "from pkg.old import Y\n",
            "c.py": "import pkg.gone as g\n\n\ndef f():\n    return g.X\n",
        },
        {},
        removed=("pkg/gone.py",),
        moved=(("pkg/old.py", "pkg/new.py"),),
    )
    assert found(receipt) == [
        ("a.py", 1, "removed", "pkg.gone"),
        ("a.py", 2, "removed", "pkg.old"),  # and line 3: one finding per file for each name
        ("b.py", 1, "removed", "pkg.old"),
        ("c.py", 1, "removed", "pkg.gone"),
    ]
    messages = [f.message for f in references(receipt).findings]
    assert "this change deletes it" in messages[0] and "this change moves it to pkg/new.py" in messages[1]


def test_near_misses_stay_quiet(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {
            "lib.py": "def fetch(url, timeout=10):\n    return url\n\n\ndef old(a):\n    return a\n",
            "loud.py": "from lib import fetch\nfetch('u', timeout=1)\n",
            "quiet.py": (
                "import lib\nfrom lib import fetch\n\n\n"
                "def shadowed(fetch):\n    return fetch('u', timeout=2)\n\n\n"
                "def local():\n    fetch = dict\n    return fetch(u=1, timeout=2)\n\n\n"
                "def dynamic():\n    return getattr(lib, 'old')(1)\n\n\n"
                "def guarded():\n    try:\n        return lib.old(1), fetch('u', timeout=1)\n"
                "    except (AttributeError, TypeError):\n        return None\n\n\n"
                "try:\n    from lib import old as again\nexcept ImportError:\n    again = None\n\n\n"
                "def comprehension():\n    return [fetch(timeout=1) for fetch in [dict]]\n\n\n"
                "lam = lambda fetch: fetch(timeout=1)\n"
                "star = lambda *a, **k: fetch(*a, **k)\n"
            ),
        },
        {"lib.py": "def fetch(url):\n    return url\n\n\ndef new(a):\n    return a\n"},
    )
    assert found(receipt) == [("loud.py", 2, "signature", "lib.fetch")]
    assert references(receipt).notes == ("getattr(…, 'old') at quiet.py:15",)


def test_nothing_breaks_when_callers_are_updated_or_the_old_name_is_kept(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {"lib.py": "def old(a):\n    return a\n", "use.py": "from lib import old\nold(1)\n"},
        {
            "lib.py": "def new(a, b=2):\n    return a\n\n\nold = new\n",
            "use.py": "from lib import old, new\nold(1)\nnew(1, b=3)\n",
        },
    )
    assert found(receipt) == []
    result = references(receipt)
    assert result.conclusion is CheckConclusion.SUCCESS
    assert (
        result.summary
        == "no broken call sites (2 changed module(s), 2 module(s) that mention what changed read)"
    )
    assert receipt.semantic is SemanticStatus.SKIPPED
    assert receipt.verdict.conclusion.value == "success"


def test_calls_already_broken_at_the_merge_base_are_not_blamed_on_the_change(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {"lib.py": "def f(a):\n    return a\n", "use.py": "from lib import f, missing\nf(1, 2)\nf(k=1)\n"},
        {"lib.py": "def f(a, b):\n    return a\n"},
    )
    assert found(receipt) == []


def test_manifest_switches_the_check_off_and_a_repository_without_python_has_none(repo: GitRepo) -> None:
    off = change(
        repo,
        {
            ".github/receipt.yml": "version: 1\ntests:\n  references: false\n",
            "lib.py": "def f():\n    pass\n",
        },
        {"lib.py": "def g():\n    pass\n"},
    )
    assert off.references is None and [c.name for c in off.checks] == []


def test_no_python_no_check_unless_asked(tmp_path) -> None:  # type: ignore[no-untyped-def]
    quiet = GitRepo.create(tmp_path / "quiet")
    receipt = change(quiet, {"README.md": "a\n"}, {"README.md": "b\n"})
    assert receipt.references is None
    asked = GitRepo.create(tmp_path / "asked")
    receipt = change(
        asked,
        {".github/receipt.yml": "version: 1\ntests:\n  references: true\n", "README.md": "a\n"},
        {"README.md": "b\n"},
    )
    result = references(receipt)
    assert result.conclusion is CheckConclusion.SKIPPED
    assert result.summary == "not run: no Python module in the repository"
    assert "references not run: no Python module in the repository" in receipt.verdict.reasons


@pytest.mark.parametrize("name", ["references"])
def test_the_check_name_is_reserved_in_tests_checks(name: str) -> None:
    from bot.engine.manifest import ManifestError, parse_manifest

    with pytest.raises(ManifestError, match="receipt's own check"):
        parse_manifest(f"version: 1\ntests:\n  checks: [{name}]\n")

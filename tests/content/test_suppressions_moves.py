"""Which added marker a change is told it added, where lines alone cannot say: copies of one line
a diff realigns, a marker kept on rewritten code in another hunk, a test's skip replaced by another
form, markers moved to other files in numbers that do not match. The shapes are those of real
commits (pip 1be21eac83's vendored platformdirs, werkzeug 70551309d1 and 37b9423dfd, httpx
8e36f2bc68, flask 1d8b53f782); the count of findings never drops below what the change adds."""

from __future__ import annotations

from bot.engine.change import FileTexts, change_from_diff
from bot.engine.content.pyscopes import Scopes, scopes_of
from bot.engine.content.suppressions import SuppressionsRule, _realigned, _Scopes, _Use
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = SuppressionsRule()
_DOC = '    """Doc\n    of the function."""\n    return 1\n'


def _function(name: str, *params: str) -> str:
    lines = "".join(f"    {p},  # noqa: FBT001\n" for p in params)
    return f"def {name}(\n    appname: str,\n{lines}) -> int:\n{_DOC}\n\n"


_STATE = "def user_state_dir(\n    appname: str,\n    ensure: bool = False,  # noqa: FBT001\n) -> int:\n    return 1\n\n\n"
_LOG = (
    "def user_log_dir(\n    appname: str,\n    opinion: bool = True,  # noqa: FBT001\n"
    "    ensure: bool = False,  # noqa: FBT001\n) -> int:\n    return 1\n"
)
# How git showed pip 1be21eac83's platformdirs update: the old `user_log_dir` aligned with the new
# `site_state_dir` inserted before it, so the old function's lines read as added at the end.
_REALIGNED = (
    b"diff --git a/dirs.py b/dirs.py\n--- a/dirs.py\n+++ b/dirs.py\n@@ -1,13 +1,20 @@\n"
    b" def user_state_dir(\n     appname: str,\n     ensure: bool = False,  # noqa: FBT001\n ) -> int:\n"
    b"     return 1\n \n \n-def user_log_dir(\n+def site_state_dir(\n     appname: str,\n"
    b"-    opinion: bool = True,  # noqa: FBT001\n     ensure: bool = False,  # noqa: FBT001\n ) -> int:\n"
    b"     return 1\n+\n+\n+def user_log_dir(\n+    appname: str,\n+    opinion: bool = True,  # noqa: FBT001\n"
    b"+    ensure: bool = False,  # noqa: FBT001\n+) -> int:\n+    return 1\n"
)


def test_a_line_the_diff_realigns_is_reported_in_the_function_that_gains_it() -> None:
    """pip 1be21eac83's vendored platformdirs: a new `site_state_dir` inserted before `user_log_dir`,
    both with `ensure: bool = False,  # noqa: FBT001`; the diff keeps the old function's copy as the
    new one's and shows the old function's as added. The finding names the new function's line,
    though the diff shows it unchanged; without the texts, the diff's added line."""
    base = _STATE + _LOG
    head = (
        _STATE
        + "def site_state_dir(\n    appname: str,\n    ensure: bool = False,  # noqa: FBT001\n) -> int:\n    return 1\n\n\n"
        + _LOG
    )
    texts = {("dirs.py", "dirs.py"): FileTexts(base=base, head=head)}
    found = scan(RULE, change_from_diff(_REALIGNED, texts))
    assert where(found) == [("dirs.py", 10, "noqa")]
    # about its own line's words, though the diff keeps that line: a waiver names this marker
    assert found[0].basis == "ensure: bool = False, # noqa: FBT001"
    assert head.splitlines()[9] == "    ensure: bool = False,  # noqa: FBT001"
    assert where(scan(RULE, change_from_diff(_REALIGNED))) == [("dirs.py", 18, "noqa")]


def test_a_line_in_two_new_functions_is_reported_twice(repo: GitRepo) -> None:
    """Near miss: the same marked line added to two new functions is two markers added, however the
    diff aligns them."""
    base = {"dirs.py": _function("user_log_dir", "ensure: bool = False")}
    head = {
        "dirs.py": _function("site_a", "ensure: bool = False")
        + _function("site_b", "ensure: bool = False")
        + _function("user_log_dir", "ensure: bool = False")
    }
    assert len(scan(RULE, change_of(repo, head, base))) == 2


def _spaced(*lines: str) -> str:
    """Lines far enough apart that each change is a hunk of its own."""
    filler = "".join(f"    k{i} = {i}\n" for i in range(8))
    return "".join(line + "\n" + filler for line in lines)


def test_a_marker_kept_on_rewritten_code_elsewhere_in_its_function(repo: GitRepo) -> None:
    """platformdirs' unix.py: `media_dir = os.path.expanduser(fallback)  # noqa: PTH111` became
    `return os.path.expanduser(fallback)  # noqa: PTH111` in the same function, while a new method
    gained its own `# noqa: PTH111`: the new method's is the marker added."""
    base = {
        "unix.py": "def media(fallback):\n"
        + _spaced("    media_dir = os.path.expanduser(fallback)  # noqa: PTH111", "    return media_dir")
        + "\n\ndef other():\n    return 1\n"
    }
    head = {
        "unix.py": "def media(fallback):\n"
        + _spaced("    if x:\n        return x", "    return os.path.expanduser(fallback)  # noqa: PTH111")
        + "\n\ndef other():\n    return os.path.expanduser('~/.local/bin')  # noqa: PTH111\n"
    }
    found = where(scan(RULE, change_of(repo, head, base)))
    assert [line for _, line, _ in found] == [
        head["unix.py"].splitlines().index("    return os.path.expanduser('~/.local/bin')  # noqa: PTH111")
        + 1
    ]


def test_a_marker_moved_onto_other_code_of_its_function_is_added(repo: GitRepo) -> None:
    """Near miss: the same marker and codes moved, in another hunk, onto code it did not silence
    (few words in common) silences another line's error."""
    base = {"a.py": "def f(x):\n" + _spaced("    y = compute(x)  # noqa: E501", "    z = 2", "    return y")}
    head = {
        "a.py": "def f(x):\n"
        + _spaced("    y = compute(x)", "    z = 2", "    return y + other(z)  # noqa: E501")
    }
    assert len(scan(RULE, change_of(repo, head, base))) == 1


_TEST_BASE = (
    "import pytest\n\nrequire_watchdog = pytest.mark.skipif(not HAVE, reason='no watchdog')\n\n\n"
    "@pytest.mark.parametrize('kind', ['stat', pytest.param('watchdog', marks=[require_watchdog])])\n"
    "def test_reloader(kind):\n"
    + _spaced("    a = 1", "    run(kind)")
    + "\n\ndef test_other():\n    assert True\n"
)


def test_a_tests_skip_replaced_by_another_form_in_another_hunk(repo: GitRepo) -> None:
    """werkzeug 70551309d1: the parameter's `marks=[require_watchdog]` became
    `pytest.importorskip("watchdog")` in the test's body, another hunk: the same test is skipped as
    before, so nothing is added."""
    head = (
        "import pytest\n\n\n\n\n@pytest.mark.parametrize('kind', ['stat', 'watchdog'])\n"
        "def test_reloader(kind):\n"
        + _spaced(
            "    a = 1", "    if kind == 'watchdog':\n        pytest.importorskip('watchdog')\n    run(kind)"
        )
        + "\n\ndef test_other():\n    assert True\n"
    )
    assert (
        scan(RULE, change_of(repo, {"tests/test_serving.py": head}, {"tests/test_serving.py": _TEST_BASE}))
        == []
    )


def test_a_skip_moved_to_another_test_is_added(repo: GitRepo) -> None:
    """Near miss: the skip removed from one test and a skip added to another: another test stops
    counting."""
    head = (
        "import pytest\n\n\n\n\n@pytest.mark.parametrize('kind', ['stat', 'watchdog'])\n"
        "def test_reloader(kind):\n"
        + _spaced("    a = 1", "    run(kind)")
        + "\n\ndef test_other():\n    pytest.importorskip('watchdog')\n    assert True\n"
    )
    found = where(
        scan(RULE, change_of(repo, {"tests/test_serving.py": head}, {"tests/test_serving.py": _TEST_BASE}))
    )
    assert found == [
        (
            "tests/test_serving.py",
            head.splitlines().index("    pytest.importorskip('watchdog')") + 1,
            "pytest-skip",
        )
    ]


def test_of_two_markers_on_one_code_the_one_moved_is_told_apart_by_its_surroundings(repo: GitRepo) -> None:
    """httpx 8e36f2bc68: `_compat.py` (deleted) held one `except ImportError:  # pragma: no cover`,
    for brotli; `_decoders.py` gains two, for brotli and for zstandard. One is added: the zstandard
    one, whose surroundings the deleted file did not hold."""
    base = {
        "_compat.py": "try:\n    import brotlicffi as brotli\nexcept ImportError:  # pragma: no cover\n"
        "    try:\n        import brotli\n    except ImportError:\n        brotli = None\n",
        "_decoders.py": "import zlib\n",
    }
    head = {
        "_decoders.py": "import zlib\n\ntry:\n    import brotli\nexcept ImportError:  # pragma: no cover\n"
        "    try:\n        import brotlicffi as brotli\n    except ImportError:\n        brotli = None\n\n"
        "try:\n    import zstandard\nexcept ImportError:  # pragma: no cover\n    zstandard = None\n"
    }
    found = where(scan(RULE, change_of(repo, head, base, removed=["_compat.py"])))
    assert found == [("_decoders.py", 13, "pragma-no-cover")]


def test_a_definition_moved_into_a_renamed_class_keeps_its_marker(repo: GitRepo) -> None:
    """flask's sansio split: `Flask.name` became `App.name` in another module, its marker with it
    (matched by its name when no definition of the same qualified name took it, the line alike)."""
    base = {
        "app.py": "class Flask:\n    def name(self) -> str:  # type: ignore[override]\n        return 'a'\n"
    }
    head = {
        "app.py": "class Flask:\n    pass\n",
        "sansio/app.py": "class App:\n    def name(self) -> str:  # type: ignore[override]\n        return 'a'\n",
    }
    assert scan(RULE, change_of(repo, head, base)) == []


def test_markers_of_two_kinds_moved_to_another_file_are_both_accounted_for(repo: GitRepo) -> None:
    """Each marker is paired across the change's files from one reading of every file's markers."""
    base = {"util.py": "import os  # noqa: F401\nvalue = os.sep  # type: ignore[attr-defined]\n"}
    head = {
        "util.py": "value = 1\n",
        "moved.py": "import os  # noqa: F401\nvalue = os.sep  # type: ignore[attr-defined]\n",
    }
    assert scan(RULE, change_of(repo, head, base)) == []
    head["moved.py"] += "extra = os.sep  # type: ignore[attr-defined]\n"  # one more than moved
    assert where(scan(RULE, change_of(GitRepo.create(repo.root.parent / "again"), head, base))) == [
        ("moved.py", 3, "type-ignore")
    ]


def test_a_renamed_classes_other_definition_is_added(repo: GitRepo) -> None:
    """Near miss: the name alone matches, but the line is another (few words in common): added."""
    base = {
        "app.py": "class Flask:\n    def name(self) -> str:  # type: ignore[override]\n        return 'a'\n"
    }
    head = {
        "app.py": "class Flask:\n    pass\n",
        "sansio/app.py": "class App:\n    def name(self, value: bytes, other: int, more: float) -> Widget:  "
        "# type: ignore[override]\n        return 'a'\n",
    }
    assert where(scan(RULE, change_of(repo, head, base))) == [("sansio/app.py", 2, "type-ignore")]


def test_scopes_name_each_line_by_its_innermost_definition() -> None:
    source = "import x\n@dec\nclass A:\n    @overload\n    def get(self,\n            a): ...\n    y = 1\ndef f():\n    def g():\n        return 1\n    return 2\n"
    assert scopes_of(source) == ("", "A", "A", "A.get", "A.get", "A.get", "A", "f", "f.g", "f.g", "f", "")
    known = Scopes()
    assert known.at(source, 5) == "A.get"
    assert known.at(source, 99) is None
    assert known.at(None, 1) is None
    assert known.of(source) is known.of(source)  # parsed once
    assert scopes_of("def f(:\n") is None


def test_a_use_with_no_copy_to_move_to_stays_where_it_is() -> None:
    """The count never drops: a use whose definition holds no more copies of its line than the base's,
    with no definition that gains one, is reported where it is."""
    text = "def f():\n    x = 1  # noqa\n"
    use = _Use("noqa", 2, "noqa", 0, "x = 1  # noqa", "x = 1", "noqa", "linters")
    assert _realigned([use], _Scopes(text, text, Scopes())) == [use]
    assert _realigned([use], _Scopes("def f(:\n", text, Scopes())) == [use]


def test_files_moved_without_their_texts_are_read_from_the_diff() -> None:
    """A deleted file and a new one, their texts not fetched: each side's whole text is the diff's."""
    diff = (
        b"diff --git a/old.py b/old.py\ndeleted file mode 100644\n--- a/old.py\n+++ /dev/null\n@@ -1,3 +0,0 @@\n"
        b"-class Flask:\n-    def name(self) -> str:  # type: ignore[override]\n-        return 'a'\n"
        b"diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,3 @@\n"
        b"+class App:\n+    def name(self) -> str:  # type: ignore[override]\n+        return 'a'\n"
    )
    assert scan(RULE, change_from_diff(diff)) == []


def _moved_copies(removed: str, added: list[str]) -> bytes:
    """A diff deleting a.py, which holds `removed` 200 times, and adding b.py with `added`."""
    return (
        b"diff --git a/a.py b/a.py\ndeleted file mode 100644\n--- a/a.py\n+++ /dev/null\n@@ -1,200 +0,0 @@\n"
        + b"".join(b"-" + removed.encode() + b"\n" for _ in range(200))
        + b"diff --git a/b.py b/b.py\nnew file mode 100644\n--- /dev/null\n+++ b/b.py\n@@ -0,0 +1,%d @@\n"
        % len(added)
        + b"".join(b"+" + line.encode() + b"\n" for line in added)
    )


def test_thousands_of_markers_on_one_code_are_paired_in_order() -> None:
    """Too many removed and added markers on one code to rank every pair by closeness: each added
    one is paired, in order, with one of the next removed ones left, and the one more is added."""
    found = scan(
        RULE, change_from_diff(_moved_copies("x = f()  # noqa: E501", ["x = f()  # noqa: E501"] * 201))
    )
    assert where(found) == [("b.py", 201, "noqa")]


def test_paired_in_order_a_marker_that_silences_more_is_still_added() -> None:
    added = ["x = f()  # noqa"] * 150 + ["x = f()  # noqa: E501"] * 51
    found = scan(RULE, change_from_diff(_moved_copies("x = f()  # noqa: E501", added)))
    listed = [v.line for v in found if v.line is not None]
    # the 150 widened ones (100 listed, then "50 more"); the 51 that name E501 moved
    assert listed == list(range(1, 101)) and [v.message[:7] for v in found if v.line is None] == ["50 more"]


def test_copies_are_handed_out_once_and_never_onto_a_line_already_named() -> None:
    """Two kept copies in `f` and one added copy in the new `g`: the first is moved to `g`'s other
    copy (its first one is named already), the second has nowhere left to go and stays."""
    base = "def f():\n    x = 1  # noqa\n    x = 1  # noqa\n"
    head = base + "def g():\n    x = 1  # noqa\n    x = 1  # noqa\n"
    uses = [_Use("noqa", line, "noqa", 0, "x = 1  # noqa", "x = 1", "noqa", "linters") for line in (2, 3, 5)]
    assert [use.line for use in _realigned(uses, _Scopes(base, head, Scopes()))] == [6, 3, 5]

"""`dangerous` on the shape that misfired on a maintainer's own commit (docs/precision-review.md),
and the near misses beside it that must still fire.

pypa/pip@de2c11bb07:src/pip/_internal/commands/install.py imports, in a loop, the names of a
top-level tuple of string literals (reconstructed below, shortened): each name is fixed in the
source, as if `__import__` were given each literal.
"""

from __future__ import annotations

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.findings import Violation
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

PIP = '''import sys

_MISSING_MODULES: set[str] = set()

# Non-stdlib modules pip (or its vendored dependencies) may import lazily
# after installation has started.
_EAGER_IMPORTS: tuple[str, ...] = (
    # Used by rich when emitting output to a legacy Windows console.
    "pip._vendor.rich._windows_renderer",
)


def _prevent_import_hook(name: str, args: tuple[Any, ...]) -> None:
    module = args[0]
    if module in _MISSING_MODULES:
        raise ImportError(f"No module named {module!r}")


def _eagerly_import_modules() -> None:
    """Import modules pip uses lazily so the audit hook ignores them later."""
    for module in _EAGER_IMPORTS:
        try:
            __import__(module)
        except ImportError:
            _MISSING_MODULES.add(module)
'''


_LOOP = "    for module in _EAGER_IMPORTS:\n        try:\n            __import__(module)\n"


def _found(repo: GitRepo, head: str, base: str | None = None) -> list[tuple[str, int, str]]:
    change = change_of(repo, {"install.py": head}, None if base is None else {"install.py": base})
    found: list[Violation] = scan(DangerousRule(), change)
    assert found == scan(DangerousRule(parse_whole_files=True), change)  # the selection changes nothing
    return where(found)


def test_an_import_over_a_tuple_of_literal_names_is_not_dangerous(repo: GitRepo) -> None:
    assert _found(repo, PIP) == []


@pytest.mark.parametrize(
    ("path", "other"),
    [
        ("setup.py", "import install\ninstall._EAGER_IMPORTS = (sys.argv[1],)\n"),
        ("vendor/hook.py", "import install\nsetattr(install, '_EAGER_IMPORTS', [input()])\n"),
        ("docs/conf.txt", "_ＥAGER_IMPORTS\n"),  # NFKC: the same name to Python
    ],
)
def test_a_tuple_another_file_of_the_change_names_is_not_proven_fixed(
    repo: GitRepo, path: str, other: str
) -> None:
    """Another module can rebind a module's constant (`install._EAGER_IMPORTS = …`), which no
    reading of install.py alone sees: the import is judged as any import of a variable is."""
    change = change_of(repo, {"install.py": PIP, path: other})
    found = [v for v in scan(DangerousRule(), change) if v.path == "install.py"]
    assert where(found) == [("install.py", 23, "python-import-variable")]


def test_tuples_of_their_own_in_two_files_of_one_change_are_both_fixed(repo: GitRepo) -> None:
    """Each file's tuple is named by that file alone: the change's names are read once and asked
    for both."""
    other = PIP.replace("_EAGER_IMPORTS", "_LATE_IMPORTS")
    change = change_of(repo, {"install.py": PIP, "other.py": other})
    assert scan(DangerousRule(), change) == []


def test_two_loops_over_the_same_tuple_are_both_fixed(repo: GitRepo) -> None:
    assert (
        _found(
            repo,
            PIP + "\n\ndef again() -> None:\n" + _LOOP + "        except ImportError:\n            pass\n",
        )
        == []
    )


def test_only_the_loop_added_reads_the_tuple_from_the_text(repo: GitRepo) -> None:
    """The tuple is on a line the change keeps and the selection blanks."""
    body = _LOOP + "        except ImportError:\n            _MISSING_MODULES.add(module)\n"
    assert _found(repo, PIP, PIP.replace(body, "    pass\n")) == []


@pytest.mark.parametrize(
    "head",
    [
        PIP + "_EAGER_IMPORTS = tuple(sys.argv)\n",  # rebound
        PIP.replace("tuple[str, ...] = (", "list[str] = [").replace('renderer",\n)', 'renderer",\n]')
        + "_EAGER_IMPORTS.append(sys.argv[1])\n",  # mutated
        PIP.replace('"pip._vendor.rich._windows_renderer",', '"a", sys.argv[1],'),  # not all literals
        PIP.replace(
            "        try:\n            __import__",
            "        module = input()\n        try:\n            __import__",
        ),
        PIP.replace("    for module in", "    global module\n    for module in"),
        PIP.replace("import sys\n", "import sys\nfrom helpers import *\n"),
        PIP + "globals()['_EAGER_IMPORTS'] = (input(),)\n",
        PIP + "setattr(sys.modules[__name__], '_EAGER_' + 'IMPORTS', (input(),))\n",
        PIP.replace(
            "        try:\n            __import__",
            "        ｍｏｄｕｌｅ = input()\n        try:\n            __import__",
        ),
        PIP.replace(
            "            __import__(module)", "            (lambda module: __import__(module))(input())"
        ),
        PIP.replace("            __import__(module)", "            pass\n    __import__(module)"),
        PIP.replace(
            "_EAGER_IMPORTS: tuple[str, ...] = (", "if sys.argv:\n    _EAGER_IMPORTS = (input(),)\n_X = ("
        ),
        PIP.replace(
            "    for module in _EAGER_IMPORTS:", "    for module in _EAGER_IMPORTS + tuple(sys.argv):"
        ),
        # shapes not proven, whatever they hold: a definition in a string, beside another
        # statement, or bound with another name
        PIP.replace("import sys\n", 'import sys\n"""\n_EAGER_IMPORTS = (\n"""\n'),
        PIP.replace('renderer",\n)', 'renderer",\n); _X = 1'),
        PIP.replace("_EAGER_IMPORTS: tuple[str, ...] = (", "_EAGER_IMPORTS = _X = ("),
    ],
)
def test_an_import_of_a_name_not_proven_fixed_still_fires(repo: GitRepo, head: str) -> None:
    found = _found(repo, head)
    assert [rule for _, _, rule in found] == ["python-import-variable"], found

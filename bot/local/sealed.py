"""Once the code under review has started, receipt imports nothing.

A test run can write wherever receipt's user can: outside a mount namespace that includes receipt's
own installation and the Python it runs on (in one, they are mounted read-only). A module imported
after the run started would be read from there and run inside receipt, which could then write any
receipt it liked. Python imports lazily, and what is imported late can be steered by the run (a test
report declaring an unusual XML encoding makes expat import that codec). So a command that runs
tests and then judges them (`receipt check`) holds `imports_sealed()` around the whole check: when
the first run starts, every module receipt may still need is imported (`bot.engine` whole, every
codec, and `PRELOADED`: what receipt's code imports inside functions), and from then on any import not already
done is refused with an ImportError naming the module: a bug to report, never a module loaded from
where the run could have written it.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import pkgutil
import sys
import types
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

# Imported inside functions by receipt's code after a run (tests/test_sealed.py finds every such
# import in bot/engine, bot/local, bot/gather and the CLI, and checks each is here or in bot.engine).
PRELOADED = (
    "pickle", "signal", "tempfile", "textwrap", "traceback", "fractions",
    "pathspec.patterns.gitignore.base", "pathspec.patterns.gitignore.spec",
)  # fmt: skip


class SealedImportError(ImportError):
    """An import after the code under review started running."""


class _Refuse(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        del path, target
        raise SealedImportError(
            f"receipt imports no module once the code under review has run (it could have rewritten "
            f"it), and {fullname} was not imported before",
            name=fullname,
        )


_REFUSE = _Refuse()
_armed: list[bool] = []


def preload() -> None:
    """Import every module a check may still need after the tests: all of `bot.engine`, every
    codec (a file's coding cookie, a report's XML declaration, `ast` itself look codecs up by name:
    a lookup imports its module, and a refused one would read as an unknown codec), and PRELOADED."""
    import encodings

    import bot.engine

    for package in (bot.engine, encodings):
        for found in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            with contextlib.suppress(ImportError):  # another platform's codec (mbcs, oem)
                importlib.import_module(found.name)
    for name in PRELOADED:
        importlib.import_module(name)


def run_starts() -> None:
    """Called as the code under review is about to start: seal, when a caller armed the seal."""
    if _armed and _REFUSE not in sys.meta_path:
        preload()
        sys.meta_path.insert(0, _REFUSE)


@contextmanager
def imports_sealed() -> Iterator[None]:
    """Refuse every new import from the start of the first run until the end of the block."""
    _armed.append(True)
    try:
        yield
    finally:
        _armed.pop()
        if not _armed and _REFUSE in sys.meta_path:
            sys.meta_path.remove(_REFUSE)

"""Which file an import names, from the Python paths of one tree.

Absolute imports resolve against the roots a Python process would have on `sys.path` when it runs
this repository's code: the importer's own base directory (the first directory above it that is
not a package: a script's directory, or pytest's rootdir insertion), the directory that holds each
top-level package (`src/` in a src layout), and the repository's root. When two roots give two
different files and neither is the importer's own, the import is ambiguous and is not followed.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

INIT = "__init__.py"


def parent(path: str) -> str:
    """The directory of a path, '' for the root."""
    return path.rpartition("/")[0]


def _join(*parts: str) -> str:
    return "/".join(p for p in parts if p)


class ModuleMap:
    """The `.py` files of a tree and how imports find them."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths = frozenset(p for p in paths if p.endswith(".py"))
        self._packages = frozenset(parent(p) for p in self.paths if p.rpartition("/")[2] == INIT)
        roots = {self.base_dir(_join(d, INIT)) for d in self._packages}
        self._roots = (*sorted(roots - {""}), "")
        self.find = cache(self._find)

    def is_package(self, directory: str) -> bool:
        return directory in self._packages

    def base_dir(self, path: str) -> str:
        """The first directory above `path` that is not a package: where its dotted name starts."""
        directory = parent(path)
        while directory and self.is_package(directory):
            directory = parent(directory)
        return directory

    def dotted(self, path: str) -> str:
        """`src/pkg/mod.py` -> `pkg.mod`; a package's `__init__.py` is the package."""
        base = self.base_dir(path)
        inner = path[len(base) + 1 :] if base else path
        return inner.removesuffix(".py").removesuffix("/__init__").replace("/", ".")

    def file_at(self, directory: str, dotted: str) -> str | None:
        """The module `dotted` as a file under `directory`, a module file before a package."""
        stem = _join(directory, dotted.replace(".", "/"))
        for candidate in (f"{stem}.py", _join(stem, INIT)):
            if candidate in self.paths:
                return candidate
        return None

    def _find(self, dotted: str, importer: str) -> tuple[str, ...]:
        """The files an absolute import of `dotted` from `importer` can mean: none (not in this
        tree), one, or several (ambiguous)."""
        own = self.file_at(self.base_dir(importer), dotted)
        if own is not None:
            return (own,)
        return tuple(dict.fromkeys(f for r in self._roots if (f := self.file_at(r, dotted)) is not None))

    def relative(self, importer: str, level: int, dotted: str) -> str | None:
        """`from ..x import y` in `importer`: the module `..x` names, or None when it is not a file."""
        directory = parent(importer)
        for _ in range(level - 1):
            if not directory:
                return None
            directory = parent(directory)
        if not dotted:
            return _join(directory, INIT) if _join(directory, INIT) in self.paths else None
        return self.file_at(directory, dotted)

    def submodule(self, package_file: str, name: str) -> str | None:
        """`name` as a module inside the package whose `__init__.py` is `package_file`."""
        if package_file.rpartition("/")[2] != INIT:
            return None
        return self.file_at(parent(package_file), name)

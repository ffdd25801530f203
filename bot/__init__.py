"""receipt: a receipt for every pull request."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec
    from types import ModuleType

__version__ = "0.1.0"


class _ClosureMethods:
    """`dataclasses`' loader, and then receipt's closure methods installed (`bot/dataclass_methods.py`)
    before any of receipt's classes is defined: a command that defines none (`receipt --help`)
    never loads `dataclasses` at all."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name != "dataclasses":
            return None
        sys.meta_path.remove(_ClosureMethods)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec: ModuleSpec | None = find(name, path, target) if find is not None else None
            if spec is not None and spec.loader is not None:
                spec.loader = cast("Loader", _ClosureMethods(spec.loader))
                return spec
        return None

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        module: ModuleType | None = self.loader.create_module(spec)
        return module

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        from bot.dataclass_methods import install

        install()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)  # get_source, get_filename… as the file's own loader answers


if "dataclasses" in sys.modules:
    from bot.dataclass_methods import install

    install()
else:
    sys.meta_path.insert(0, _ClosureMethods)

"""Repository-banned imports (`content.banned_imports`): a module added code may not import, however
the import is written (`imports.py` reads them as Python and JavaScript resolve them).

A banned module covers its submodules: `requests` bans `requests.adapters` (Python) and
`lodash` bans `lodash/fp` (JavaScript), never `requests_cache` or `lodash.get`. A Node built-in is
the same module with or without `node:`.
"""

from __future__ import annotations

import ast
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from bot.engine.change import Change
from bot.engine.content.added import AddedFile
from bot.engine.content.exclude import read_files
from bot.engine.content.filekinds import Kind
from bot.engine.content.limits import capped
from bot.engine.diff import FileStatus
from bot.engine.findings import RuleId, Violation
from bot.engine.globs import matches
from bot.engine.manifest import BannedImport, Manifest
from bot.engine.regex import compile_re2

if TYPE_CHECKING:
    from bot.engine.content.imports import Imported

# A Python file is parsed when its added text, read as Python reads identifiers (NFKC, when it is
# not ASCII: `ｒｅｑｕｅｓｔｓ` is `requests`), names a banned module's top-level package, or an importer
# (which can be given a name built of pieces); or when its new text names an importer other than by
# calling it (`import_module as load`, `m = __import__`), so that an added call by another name
# imports. Importer calls are looked for only in the first two cases.
_IMPORTERS = ("__import__", "import_module", "run_module")
_IMPORTER_RENAMED = compile_re2(r"\b(?:import_module|__import__|run_module)\b[^(\w]")


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _names(file: AddedFile, words: tuple[str, ...]) -> set[str]:
    """Which of `words` the file's added text holds, read as Python reads identifiers."""
    found: set[str] = set()
    for fragment in file.fragments:
        data = fragment.data
        text = (
            data
            if data.isascii()
            else unicodedata.normalize("NFKC", fragment.text).encode("utf-8", "surrogatepass")
        )
        found.update(w for w in words if w.encode() in text)
    return found


def _python(file: AddedFile, entries: list[BannedImport]) -> Iterator[Imported]:
    from bot.engine.content.imports import python_imports, python_imports_alone  # only with bans

    tops = tuple({e.module.split(".", 1)[0] for e in entries})
    named = _names(file, (*_IMPORTERS, *tops))
    calls = not named.isdisjoint(_IMPORTERS) or (
        file.head is not None
        and file.file.status is not FileStatus.ADDED  # a new file's added text is all of it
        and _IMPORTER_RENAMED.search(file.head) is not None
    )
    if not named and not calls:
        return
    if file.head is not None:
        tree = _parse(file.head)
        added = file.added_head_numbers()
        found = (
            python_imports(tree, added, calls=calls)
            if tree
            else python_imports_alone(file.head, added, calls=calls)
        )
        for imported in found:
            yield replace(imported, line=file.diff_line(imported.line))
        return
    for fragment in file.fragments:
        numbers = fragment.numbers
        for imported in python_imports_alone(fragment.text, range(1, len(numbers) + 1), calls=calls):
            yield replace(imported, line=numbers[imported.line - 1])


def _javascript(file: AddedFile) -> Iterator[Imported]:
    from bot.engine.content.imports import javascript_imports  # only with bans
    from bot.engine.content.jsread import read_fragment

    for fragment in file.fragments:
        reading = read_fragment(fragment, file.kind, file.path, file.head, file.head_lines)
        yield from javascript_imports(fragment, reading.code)


def _bans(entry: BannedImport, imported: str, kind: Kind) -> bool:
    if kind is Kind.PYTHON:
        return imported == entry.module or imported.startswith(entry.module + ".")
    imported = imported.removeprefix("node:")
    return imported == entry.module or imported.startswith(entry.module + "/")


def _message(entry: BannedImport, imported: Imported, path: str) -> str:
    why = entry.message or f"content.banned_imports lists {entry.module!r}"
    return (
        f"Imports `{imported.module}` (line {imported.line} of {path}), which the repository bans: {why}. "
        "Remove the import; the policy is the maintainers' to change, in content.banned_imports of the "
        "base branch's manifest."
    )


def _file_violations(file: AddedFile, entries: list[BannedImport]) -> Iterator[Violation]:
    found: dict[tuple[str, int], Violation] = {}
    for imported in _python(file, entries) if file.kind is Kind.PYTHON else _javascript(file):
        for entry in entries:
            if _bans(entry, imported.module, file.kind):
                violation = Violation(
                    RuleId.BANNED_IMPORT,
                    file.path,
                    imported.line,
                    _message(entry, imported, file.path),
                    entry.module,
                )
                found.setdefault((entry.module, imported.line), violation)
    what = "banned import(s)"
    return capped(list(found.values()), rule=RuleId.BANNED_IMPORT, path=file.path, what=what, more_id="more")


@dataclass(frozen=True, slots=True)
class BannedImportsRule:
    """`content.banned_imports`: modules added Python and JavaScript/TypeScript code may not import
    (in every path `content.exclude` leaves)."""

    one_pass: ClassVar[bool] = False

    def scan(
        self,
        change: Change,
        manifest: Manifest,
        files: Sequence[AddedFile] | None = None,
        added: Sequence[AddedFile] | None = None,
    ) -> Iterator[Violation]:
        banned = manifest.content.banned_imports
        for file in read_files(change, manifest, None, files) if banned else ():
            if file.kind not in (Kind.PYTHON, Kind.JAVASCRIPT):
                continue
            entries = [e for e in banned if e.paths is None or matches(e.paths, file.path, manifest.patterns)]
            if entries:
                yield from _file_violations(file, entries)

"""Whether a Python text can hold a dangerous call at all, from the words it names: the condition
under which `dangerous` reads a file on its syntax tree.

`pyconstructs` resolves a call's function from identifiers (each part of its dotted name, written
`os.system`, imported `from os import system`, or assigned `run = os.system`) or from a string,
which only getattr, `sys.modules[...]`, builtins' dict and the importers read; escapes spell any
string (`"\\x73ystem"`), so no test of a text's strings is sound. A text whose syntax tree holds a
call resolving to a dangerous name therefore names, as words: every part of that name (`os` and
`system`, `eval`; a native library's function, `ctypes` and the function, however the library is
loaded: `cdll.libc.system`), or `ctypes` and a loader subscripted by a computed name (`cdll[name]`);
or `getattr` (or another reader of a name by a string: `__getattribute__`, `attrgetter`,
`methodcaller`, the last two with `operator`) and a module a dangerous name can be read from
(`getattr(os, …)`, `getattr(builtins, …)`, `getattr(sys, "modules")`), or `vars` and such a
module (`vars(os)[…]`); or `sys` and `modules`; or `builtins`,
`__builtins__`, `__dict__`, `__import__` or `import_module`, which turn a string into a module or
builtin, or `globals`, `locals`, `vars` or `__globals__`, which turn one into a name of the module
(`globals()["run"]`); or `find_spec` and `module_from_spec`, which make a module of the spec a
string finds. The clauses are derived from DANGEROUS_CALLS, so a call added there is
covered here. Words are read as Python reads identifiers, NFKC-normalized (`ｅｖａｌ`), anywhere in
the text: in strings and comments too, which only sends a file to the parser that did not need it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import cache

from bot.engine.content.patternset import PatternSet
from bot.engine.content.pyconstructs import (
    DANGEROUS_CALLS,
    LOADERS,
    NAME_READERS,
    NAMESPACE_WORDS,
    STRING_GETTERS,
    needed_words,
)

_DOTTED = tuple(name.split(".") for name in DANGEROUS_CALLS)
_MODULES = frozenset(parts[0] for parts in _DOTTED if len(parts) > 1) | {
    "builtins",
    "__builtins__",
    "sys",
    "importlib",
}
_STRING_READERS = ("builtins", "__builtins__", "__dict__", "__import__", "import_module", *NAMESPACE_WORDS)
CLAUSES: tuple[frozenset[str], ...] = tuple(
    sorted(
        {needed_words(name) for name in (*DANGEROUS_CALLS, *LOADERS)}
        | {frozenset({reader, module}) for reader in NAME_READERS for module in _MODULES}
        | {needed_words(getter) | {module} for getter in STRING_GETTERS for module in _MODULES}
        | {frozenset({"vars", module}) for module in _MODULES}
        | {frozenset({"sys", "modules"})}
        | {frozenset({"find_spec", "module_from_spec"})}  # a module made from the spec a string finds
        | {frozenset({word}) for word in _STRING_READERS},
        key=sorted,
    )
)
WORDS: tuple[str, ...] = tuple(sorted(set().union(*CLAUSES)))
PATTERNS: tuple[str, ...] = tuple(rf"\b{re.escape(word)}\b" for word in WORDS)


@cache
def _patterns() -> PatternSet:
    return PatternSet(PATTERNS)


# Each clause under the first of its words: a text names few words, and only their clauses can hold.
_CLAUSES_OF = {word: [c for c in CLAUSES if min(c) == word] for word in {min(c) for c in CLAUSES}}


def may_hold(present: Iterable[int]) -> bool:
    """Whether the words of WORDS at the indexes `present` satisfy a clause."""
    named = {WORDS[index] for index in present}
    return any(clause <= named for word in named for clause in _CLAUSES_OF.get(word, ()))


def words_in(text: str) -> set[int]:
    """The indexes of WORDS that `text` names (also once NFKC-normalized)."""
    data = text.encode("utf-8", "surrogatepass")
    present = words_of(data)
    if not data.isascii():
        present.update(normalized_words(text))
    return present


def normalized_words(text: str) -> set[int]:
    """The indexes of WORDS that `text` names once NFKC-normalized, read only where normalizing can
    change it: none in a normalized text, else its lines that are not ASCII (NFKC leaves a line
    break, and nothing composes with one, so each line normalizes alone; a word spans none). With
    `words_of` of the text, these are `words_in`."""
    if unicodedata.is_normalized("NFKC", text):
        return set()
    changed = "\n".join(line for line in text.split("\n") if not line.isascii())
    return set(_patterns().present(nfkc(changed)))


def words_of(data: bytes) -> set[int]:
    """The indexes of WORDS that `data` names as it is (ASCII code needs no normalizing)."""
    return set(_patterns().present(data))


def nfkc(text: str) -> bytes:
    return unicodedata.normalize("NFKC", text).encode("utf-8", "surrogatepass")

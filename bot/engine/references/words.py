"""Which texts have one of a set of names as a word: what `references` reads before it parses.

One RE2 alternation answers it in a pass per text, linear whatever the names; past a few thousand
names (a change that removes a whole generated module) its automaton would grow with them, so the
words of each text are compared as a set instead. A non-ASCII name is looked for anywhere (RE2's
word boundary is ASCII's), so a text is never passed over that has the name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from bot.engine.regex import compile_bounded

_MAX_ALTERNATION = 2_000  # names in one prefilter pattern (about 40 KB of pattern, well within its memory)
_PREFILTER_MEM = 64 << 20
_WORD = re.compile(r"\w+")


def _finder(names: set[str]) -> Callable[[str], bool]:
    if len(names) > _MAX_ALTERNATION:
        return lambda text: not names.isdisjoint(_WORD.findall(text))
    words = "|".join(rf"\b{w}\b" if w.isascii() else w for w in sorted(names))
    pattern = compile_bounded(words, _PREFILTER_MEM)
    return lambda text: pattern.search(text) is not None


def mentioning(texts: Mapping[str, str], names: set[str]) -> list[str]:
    """The paths whose text has one of `names` (not empty) as a word, sorted."""
    found = _finder(names)
    return sorted(path for path, text in texts.items() if found(text))


def mentions(text: str, names: set[str]) -> bool:
    """Whether `text` has one of `names` as a word."""
    return bool(names) and _finder(names)(text)

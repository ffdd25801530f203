"""Regular expressions compiled on first use, once.

Python's compiler takes up to milliseconds a pattern, and one run needs few of receipt's: a change
without JavaScript never runs the JavaScript lexer, a description names few kinds of fact. A pattern
made here costs nothing until a caller asks for it; a hot loop asks once, before the loop.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, partial
from typing import AnyStr


def lazy(pattern: AnyStr, flags: int = 0) -> Callable[[], re.Pattern[AnyStr]]:
    """`re.compile(pattern, flags)` when first called; the same pattern object on every call."""
    return cache(partial(re.compile, pattern, flags))

"""Python source cut into its top-level statements, so that what two versions of a file share is read once.

A change to a large file leaves most of its top-level statements (functions, classes, imports) as
they were. Each statement's tokens depend on its own text alone, so tokens.py reads every distinct
statement once and joins the results. A cut is made only where a new statement starts for certain:
a line at column 0 after a line break outside brackets, strings and backslash continuations, that
neither continues a compound statement (`else`, `elif`, `except`, `finally`) nor follows a decorator.
Strings, comments and brackets are found with the same patterns the token reader uses (pyscan.py),
so wherever it reads the whole text, it reads the same pieces here.

Where the text could be read differently by CPython's own tokenizer and by those patterns (a lone
carriage return, which CPython takes for a line break), where parsing one statement depends on an
earlier one (`from __future__ import barry_as_FLUFL` changes what `<>` and `!=` mean), or where the
patterns meet a character they do not expect, the text is left whole. A piece that does not parse or
tokenize alone sends the caller back to the whole text, which decides. On Python versions other than
3.11 every text is left whole: from 3.12 an f-string may hold its own quotes and line breaks
(PEP 701), which these patterns do not follow.
"""

from __future__ import annotations

import re
import sys
from itertools import pairwise

from bot.engine.pyscan import QUOTED

# What no rule here cares about, matched in one go: text without a quote, a bracket, a comment or a
# backslash (a string prefix, b rb f…, cannot hold one), a whole comment, a whole string, a backslash
# continuation, a line break that another line of the same statement follows, and a bracketed group
# that closes again, up to _NESTED deep (inside brackets every line break is alike). A group that
# does not close is left to the brackets counted one by one, so a character is read again at most
# once per bracket around it up to that depth: linear whatever the text.
_NESTED = 3
_PLAIN = r"[^\n#'\"()\[\]{}\\]++"
_STRING = "(?:" + "|".join(QUOTED) + ")"
# A line at column 0 that continues the statement before it.
_CONTINUES = r"(?:else|elif|except|finally)\b|[ \t\f\n#]"


def _grouped(inner: str) -> str:
    """A group that closes: of any kind, as depth is counted (`(]` closes too)."""
    return rf"[(\[{{](?:{inner})*+[)\]}}]"


_INSIDE = rf"{_PLAIN}|\n|#[^\n]*+|{_STRING}|\\\n"
for _ in range(_NESTED - 1):
    _INSIDE = rf"{_PLAIN}|\n|#[^\n]*+|{_STRING}|\\\n|{_grouped(_INSIDE)}"
_NEUTRAL = rf"(?:{_PLAIN}|#[^\n]*+|{_STRING}|\\\n|\n(?={_CONTINUES}|\Z)|{_grouped(_INSIDE)})*+"
# Each match: all that, then one thing that does matter: a line break before a line at column 0 that
# starts a statement, a bracket, a character out of place, or the end of the text.
_SCAN = re.compile(_NEUTRAL + r"(?:(\n)|([(\[{])|([)\]}])|(.)|\Z)", re.DOTALL)
_WHOLE = ("\r", "barry_as_FLUFL")
CUT = sys.version_info[:2] == (3, 11)


def statement_chunks(text: str) -> list[str]:
    """`text` cut before each top-level statement after the first; `[text]` when it cannot be cut
    for certain. The pieces joined are `text`."""
    if not CUT or any(marker in text for marker in _WHOLE):
        return [text]
    cuts: list[int] = []
    depth = 0
    decorated = False
    for match in _SCAN.finditer(text):
        newline, opening, closing, stray = match.groups()
        if stray is not None:
            return [text]
        if opening is not None:
            depth += 1
        elif closing is not None:
            depth -= 1
            if depth < 0:  # tokenize reads every later line as a continuation: no cut is certain
                return [text]
        elif newline is not None and depth == 0:
            start = match.end()
            if not decorated:
                cuts.append(start)
            decorated = text[start] == "@"
    edges = [0, *cuts, len(text)]
    return [text[a:b] for a, b in pairwise(edges) if b > a]

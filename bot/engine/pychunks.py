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

# Each match: what no rule here cares about, then one thing that does. A string prefix (b, rb, f…)
# is among the former: it cannot hold a quote, a bracket or a line break. The end of the text is the
# last such thing, so the text after the last line break is not matched again from each position.
_SCAN = re.compile(
    r"[^\n#'\"()\[\]{}\\]*+(?:(\n)|(#[^\n]*)|((?:"
    + "|".join(QUOTED)
    + r"))|([(\[{])|([)\]}])|(\\\n)|(.)|\Z)",
    re.DOTALL,
)
# A line at column 0 that continues the statement before it.
_CONTINUES = re.compile(r"(?:else|elif|except|finally)\b|[ \t\f\n#]")
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
        newline, _comment, _string, opening, closing, _continued, stray = match.groups()
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
            if start == len(text) or _CONTINUES.match(text, start):
                continue
            if not decorated:
                cuts.append(start)
            decorated = text[start] == "@"
    edges = [0, *cuts, len(text)]
    return [text[a:b] for a, b in pairwise(edges) if b > a]

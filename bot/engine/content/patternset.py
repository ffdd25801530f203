"""Which of many RE2 patterns occur in a text, in one pass (RE2's set matching): the prefilter
that lets each rule run only the patterns that can match."""

from __future__ import annotations

from collections.abc import Sequence

import re2

from bot.engine.errors import ReceiptError
from bot.engine.regex import compile_re2, re2_options


class PatternSetGaveUp(ReceiptError):
    """RE2 gave up on a text (its automaton ran out of memory), so which patterns occur in it is not
    known. RE2 answers such a failure as "none", which a prefilter would read as "nothing to find":
    raising instead makes the receipt fail closed."""

    title = "could not assess the added text"

    def __init__(self, size: int) -> None:
        super().__init__(
            f"RE2 could not finish a prefilter pass over {size:,} bytes of added text (its automaton "
            "ran out of memory), so the content rules cannot assess this change; review it by hand"
        )
        self.size = size


class PatternSet:
    def __init__(self, patterns: Sequence[str]) -> None:
        compiled = re2.Set.SearchSet(re2_options())
        for pattern in patterns:
            compile_re2(pattern)  # RegexError naming the pattern, rather than a bare failure here
            compiled.Add(pattern)
        # The end of the text matches in every text, and only once RE2 has read all of it: an answer
        # without it is RE2 having given up. (The empty pattern would match at every byte, and
        # keep the automaton in matching states: about 50% slower.)
        self._sentinel = compiled.Add(r"\z")
        compiled.Compile()
        self._set = compiled

    def present(self, data: bytes) -> list[int]:
        """Indexes of the patterns that match somewhere in `data`, in increasing order."""
        found = self._set.Match(data) or ()
        if self._sentinel not in found:
            raise PatternSetGaveUp(len(data))
        return sorted(i for i in found if i != self._sentinel)

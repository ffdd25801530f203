"""Which of many RE2 patterns occur in a text, in one pass (RE2's set matching): the prefilter
that lets each rule run only the patterns that can match."""

from __future__ import annotations

from collections.abc import Sequence

import re2

from bot.engine.regex import compile_re2, re2_options


class PatternSet:
    def __init__(self, patterns: Sequence[str]) -> None:
        compiled = re2.Set.SearchSet(re2_options())
        for pattern in patterns:
            compile_re2(pattern)  # RegexError naming the pattern, rather than a bare failure here
            compiled.Add(pattern)
        compiled.Compile()
        self._set = compiled

    def present(self, data: bytes) -> list[int]:
        """Indexes of the patterns that match somewhere in `data`, in increasing order."""
        return sorted(self._set.Match(data) or ())

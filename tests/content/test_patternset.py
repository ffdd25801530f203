"""The RE2 set prefilter: which patterns occur, and a failure of RE2 is never read as "none"."""

from __future__ import annotations

import pytest

from bot.engine.content.patternset import PatternSet, PatternSetGaveUp
from bot.engine.regex import RegexError


def test_reports_the_patterns_that_occur_in_order() -> None:
    patterns = PatternSet(["abc", "d+e", "(?i)key"])
    assert patterns.present(b"xx KEY abc") == [0, 2]
    assert patterns.present(b"") == []
    assert patterns.present(b"dddde") == [1]


def test_a_pattern_re2_rejects_is_named() -> None:
    with pytest.raises(RegexError, match="a\\(\\?=b\\)"):
        PatternSet(["ok", "a(?=b)"])


class _GivingUp:
    """What RE2::Set answers when its DFA runs out of memory: no index at all."""

    def Match(self, data: bytes) -> list[int]:
        return []


def test_when_re2_gives_up_the_scan_fails_instead_of_finding_nothing() -> None:
    patterns = PatternSet(["abc"])
    patterns._set = _GivingUp()
    with pytest.raises(PatternSetGaveUp, match="could not finish a prefilter pass over 3 bytes"):
        patterns.present(b"abc")

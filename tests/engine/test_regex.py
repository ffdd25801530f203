"""RE2 helpers: `widened`, the prefilter form of a pattern."""

from __future__ import annotations

import pytest

from bot.engine.content.secrets import default_detectors
from bot.engine.regex import compile_named, compile_re2, widened
from tests.datafiles import SECRETS


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"a{0,20}b{1,3}c{10,150}d{4}e{2,}", r"a*b+c{10,}d{4}e{2,}"),
        (r"x{3,5}?", r"x{3,}?"),
        (r"\{1,2}", r"\{1,2}"),
        (r"\\{1,2}", r"\\+"),
        (r"[{1,2}]{1,2}", r"[{1,2}]+"),
        (r"[]{0,1}]a{0,1}", r"[]{0,1}]a*"),
        (r"[^]{0,1}]a{0,1}", r"[^]{0,1}]a*"),
        (r"[[:alpha:]{0,1}]{0,9}", r"[[:alpha:]{0,1}]*"),
        (r"\p{Greek}{2,3}\x{41}", r"\p{Greek}{2,}\x{41}"),
        (r"\Qa{1,2}\E{1,2}", r"\Qa{1,2}\E{1,2}"),
    ],
)
def test_bounded_repetitions_are_made_unbounded_and_nothing_else(pattern: str, expected: str) -> None:
    assert widened(pattern) == expected
    compile_re2(widened(pattern))


def _texts() -> list[bytes]:
    """Every labelled example and fixture text vendored under tests/data/secrets, as bytes."""
    texts: list[bytes] = []
    for path in sorted(SECRETS.rglob("*")):
        if path.is_file() and path.stat().st_size < 1 << 20:
            texts.append(path.read_bytes())
    return texts


def test_a_widened_pattern_matches_wherever_the_pattern_does() -> None:
    texts = _texts()
    checked = 0
    for detector in default_detectors():
        pattern, wide = compile_re2(detector.regex_source), compile_re2(widened(detector.regex_source))
        for text in texts:
            if pattern.search(text):
                checked += 1
                assert wide.search(text), (detector.id, text[:80])
    assert checked > 200


def test_names_a_change_supplies_never_evict_receipts_own_patterns() -> None:
    """A pull request can make the dangerous rule's selection compile a pattern per alias it
    defines; those live in a cache of their own, so receipt's fixed patterns stay compiled."""
    from bot.engine.content.pyselect import selected

    own = compile_re2(r"\bfixed-pattern-of-receipt\b")
    aliases = "".join(f"import os as alias_{k}\nalias_{k}.system('x')\n" for k in range(1100))
    for k in range(0, 1100, 100):  # every selection with new aliases asks for new patterns
        selected(aliases.replace("alias_", f"a{k}_"))
    for k in range(1100):
        compile_named(rf"\bname_{k}\b")
    assert compile_re2(r"\bfixed-pattern-of-receipt\b") is own
    assert compile_named.cache_info().currsize <= 256

"""`lazy`: a pattern compiled when first asked for, then the same object every time."""

from __future__ import annotations

import re

from bot.engine.lazyre import lazy


def test_a_lazy_pattern_is_compiled_once_with_its_flags() -> None:
    words = lazy(r"\bcafé\b", re.IGNORECASE)
    assert words() is words()
    assert words().flags & re.IGNORECASE and words().search("Un CAFÉ noir") is not None
    raw = lazy(rb"\x00+")
    assert raw().fullmatch(b"\x00\x00") is not None and raw() is raw()

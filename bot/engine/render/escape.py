"""Escaping for text that comes from a pull request (paths, findings) and ends up in Markdown."""

from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def md_text(text: str) -> str:
    """Plain text safe to place in Markdown: no markup, no HTML, one line."""
    escaped = text.replace("&", "&amp;").replace("\r", "\\r").replace("\n", "\\n")
    return _MD_SPECIAL.sub(r"\\\1", escaped)


def md_code(text: str) -> str:
    """An inline code span that no backtick or newline in `text` can break out of."""
    one_line = text.replace("\r", "\\r").replace("\n", "\\n")
    longest = max((len(m) for m in re.findall(r"`+", one_line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if one_line.startswith("`") or one_line.endswith("`") else ""
    return f"{fence}{pad}{one_line}{pad}{fence}"

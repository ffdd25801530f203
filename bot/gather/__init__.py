"""Gather: the steps every gatherer shares, over a source of commits (local git or the GitHub API)."""

from bot.gather.core import (
    MAX_TEXT_BYTES,
    GivenFile,
    Request,
    Revisions,
    UsageError,
    build_change,
    decode_text,
    gather,
    tree_entries,
)
from bot.gather.source import Source

__all__ = [
    "MAX_TEXT_BYTES",
    "GivenFile",
    "Request",
    "Revisions",
    "Source",
    "UsageError",
    "build_change",
    "decode_text",
    "gather",
    "tree_entries",
]

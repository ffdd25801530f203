"""Gather: the steps every gatherer shares, over a source of commits (local git or the GitHub API)."""

from bot.gather.core import (
    MAX_TEXT_BYTES,
    GivenFile,
    Request,
    UsageError,
    build_change,
    decode_text,
    gather,
    tree_entries,
)
from bot.gather.merge import MergeGiven, merge_side
from bot.gather.source import Revisions, Source

__all__ = [
    "MAX_TEXT_BYTES",
    "GivenFile",
    "MergeGiven",
    "Request",
    "Revisions",
    "Source",
    "UsageError",
    "build_change",
    "decode_text",
    "gather",
    "merge_side",
    "tree_entries",
]

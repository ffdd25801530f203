"""nd(G, C) against the paper's own vectors, computed with its scorer on CPython 3.11.7."""

from __future__ import annotations

import sys

import pytest

from bot.engine.distance import edit_count
from bot.engine.tokens import Tokenizer, TokenMode
from tests.excess import corpus

pytestmark = pytest.mark.skipif(
    sys.version_info[:2] != (3, 11),
    reason="the vectors were computed on Python 3.11; ast.unparse and tokenize differ on other versions",
)


def test_nd_gold_vs_buggy_matches_every_vector_exactly(tasks: list[corpus.Task]) -> None:
    vectors = corpus.load_vectors()
    assert len(tasks) == len(vectors) == 400
    tokenizer = Tokenizer()
    mismatches = []
    for task in tasks:
        pair = tokenizer.pair(task.path, task.gold, task.buggy)
        assert pair.mode is TokenMode.NORMALIZED, task.task_id
        count = edit_count(pair.left, pair.right)
        want = vectors[task.task_id]
        got = (count.edits, count.length, count.nd)
        if got != (want["tokens_distance"], want["tokens_max_len"], want["nd_gold_vs_buggy"]):
            mismatches.append((task.task_id, got, want))
    assert mismatches == []


def test_nd_is_symmetric_on_the_corpus(tasks: list[corpus.Task]) -> None:
    tokenizer = Tokenizer()
    for task in tasks[:50]:
        forward = tokenizer.pair(task.path, task.gold, task.buggy)
        backward = tokenizer.pair(task.path, task.buggy, task.gold)
        assert edit_count(forward.left, forward.right) == edit_count(backward.left, backward.right)

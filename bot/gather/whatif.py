"""What-if's per-change judging, shared by `receipt whatif` (local git) and a pull request that
edits the manifest (the App and the Action, over the API): the same change's inputs read twice,
under the base commit's manifest and under a given one, evaluated with no tests, compared by the
engine (bot/engine/whatif.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from bot.engine import Inputs, ReceiptError, TestEvidence, evaluate
from bot.engine.whatif import Judged, WhatIfRow, compare
from bot.gather.core import GivenFile, Request

NO_TESTS_REASON = "a what-if runs no tests"

Read = Callable[[Request], Inputs]
"""The change's inputs gathered for a request (its manifest: the base commit's, or a given file)."""


def judged(read: Read, request: Request) -> Judged:
    """One side: a receipt, or the problem that stopped one (too large to assess, an invalid base
    manifest). Errors of the source itself (GitHub failing) are not a side's problem: they propagate."""
    try:
        inputs = read(request)
        return Judged(evaluate(replace(inputs, tests=TestEvidence(not_run_reason=NO_TESTS_REASON))))
    except ReceiptError as exc:
        return Judged(None, f"{exc.title}: {exc.problem}")


def whatif_row(commit: str, title: str, read: Read, request: Request, new: GivenFile) -> WhatIfRow:
    """The change judged by the base commit's manifest, then by `new`."""
    return compare(commit, title, judged(read, request), judged(read, replace(request, manifest_file=new)))

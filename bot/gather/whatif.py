"""What-if's per-change judging, shared by `receipt whatif` (local git) and a pull request that
edits the manifest (the App and the Action, over the API): the same change's inputs read twice,
under the base commit's manifest and under a given one, evaluated with no tests, compared by the
engine (bot/engine/whatif.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from bot.engine import (
    DEFAULT_MANIFEST_TEXT,
    Inputs,
    ReceiptError,
    TestEvidence,
    evaluate,
    manifest_paths,
)
from bot.engine.whatif import Judged, WhatIfRow, compare
from bot.gather.core import GivenFile, Request

NO_TESTS_REASON = "a what-if runs no tests"
DEFAULT_LAST = 10  # a pull request's what-if: how many changes, unless configured
MAX_LAST = 30

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


def proposed_manifest(inputs: Inputs, last: int) -> GivenFile | None:
    """What a pull request's what-if compares against the base manifest: None (no what-if, and
    nothing read for one) unless its change edits the manifest (as the dry run decides it) and
    `last` is above 0. A deleted manifest is compared as the built-in default, as its dry run is."""
    paths = manifest_paths(inputs.manifest)
    if last <= 0 or not any(p in paths for f in inputs.change.diff.files for p in f.paths):
        return None
    proposed = inputs.proposed_manifest
    text = DEFAULT_MANIFEST_TEXT.encode() if proposed is None else proposed
    return GivenFile(inputs.manifest.path, text)

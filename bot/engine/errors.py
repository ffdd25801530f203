"""The one root of every error that stops a receipt from being computed, each carrying its data.

Shells (CLI, Action, App) catch `ReceiptError` once: `title` heads the failing check run or the
CLI's message, `problem` says what went wrong and where. Subclasses add the fields they carry.
"""

from __future__ import annotations


class ReceiptError(Exception):
    """The inputs cannot be turned into a receipt; the receipt fails closed and says why.

    `observed`: the policy had been read and says `mode: observe`, under which nothing receipt
    publishes blocks a merge: a shell publishing the problem as a check run makes it neutral."""

    title = "cannot compute the receipt"
    observed = False

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class TooLargeToAssess(ReceiptError):
    """The change cannot be read whole; `reason` says which limit was hit."""

    title = "too large to assess"

    def __init__(self, reason: str) -> None:
        super().__init__(f"too large to assess: {reason}")
        self.reason = reason

"""The error every replay step raises for bad input or a damaged run: exit status 2 with its message."""

from __future__ import annotations

from bot.engine import ReceiptError


class ReplayError(ReceiptError):
    title = "replay error"

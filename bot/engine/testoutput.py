"""The end of a test run's output as the receipt shows it: the last lines, secrets redacted.

A test run prints whatever the code under review makes it print, a credential from its environment
or its files included; the receipt is published, so the tail is scanned by the `secret` rule's own
scanner and every finding is replaced by the rule's redacted form, as in a violation message.
"""

from __future__ import annotations

from bot.engine.content.added import Fragment
from bot.engine.content.redact import redact
from bot.engine.content.secrets import default_scanner

TAIL_LINES = 60
TAIL_CHARS = 6000
# Secrets are redacted before the tail is cut (a private key cut in half is no longer recognized as
# one), over a window wider than the tail that starts at a line break.
_WINDOW_CHARS = 8 * TAIL_CHARS
_SOURCE = "test output"  # the path the scanner sees: path-specific detectors do not apply


def redact_secrets(text: str) -> str:
    """`text` with every credential the secret rule finds replaced by its redacted form."""
    if not text:
        return text
    fragment = Fragment(text, range(1, text.count("\n") + 2))
    found = default_scanner().scan(_SOURCE, fragment)
    if not found:
        return text
    data = fragment.data
    pieces: list[bytes] = []
    at = 0
    for finding in found:  # sorted by start, overlaps already resolved
        pieces.append(data[at : finding.start])
        pieces.append(f"[redacted {redact(finding.secret, finding.public_prefix)}]".encode())
        at = finding.end
    pieces.append(data[at:])
    return b"".join(pieces).decode("utf-8", "surrogatepass")


def output_tail(output: bytes) -> str:
    """The last `TAIL_LINES` lines (at most `TAIL_CHARS` characters) of `output`, redacted."""
    text = output.decode("utf-8", "replace").rstrip()
    window = text[-_WINDOW_CHARS:]
    if len(window) < len(text):
        window = window.partition("\n")[2] or window
    lines = redact_secrets(window).splitlines()[-TAIL_LINES:]
    return "\n".join(lines)[-TAIL_CHARS:]

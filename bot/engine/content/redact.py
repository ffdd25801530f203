"""How a secret is shown anywhere receipt writes it: a short prefix and the length, never the body."""

from __future__ import annotations

_MAX_SHOWN = 4


def redact(secret: str, public_prefix: int = 0) -> str:
    """`'ghp_…' (40 characters)`.

    `public_prefix` is the length of a prefix that is part of the format rather than the secret
    (`ghp_`, `AKIA`, `-----BEGIN RSA PRIVATE KEY-----`): it is shown whole. Otherwise at most 4
    characters and never more than a quarter of the secret are shown.
    """
    shown_length = public_prefix if public_prefix else min(_MAX_SHOWN, len(secret) // 4)
    shown = "".join(c if c.isprintable() and c != "'" else "?" for c in secret[:shown_length])
    return f"'{shown}…' ({len(secret)} characters)"

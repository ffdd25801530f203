"""Structure a token format promises, checked without any network.

A JSON Web Token's header is base64url-encoded JSON naming its algorithm or type, so a string that
merely starts with `eyJ` and decodes to something else is not one. The check reads the header's
bytes rather than parsing them as JSON: a real token whose header was partly altered when it was
pasted is still reported. A private key wrapped in base64 (a Kubernetes Secret's data) decodes to
a PEM header naming a private key; a certificate's, which is public, names none.
"""

from __future__ import annotations

import base64
import re

_PEM_PRIVATE_HEADER = re.compile(rb"-----BEGIN [A-Z0-9 _-]{0,100}PRIVATE KEY(?: BLOCK)?-----")
_PEM_HEADER_CHARACTERS = 176  # base64 of the longest header the pattern above admits


def jwt_header_valid(token: str) -> bool:
    header = token.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
    except ValueError:  # binascii.Error, or characters outside ASCII
        return False
    return decoded.startswith(b"{") and (b'"alg"' in decoded or b'"typ"' in decoded)


def pem_base64_valid(blob: str) -> bool:
    head = blob[: min(len(blob), _PEM_HEADER_CHARACTERS) // 4 * 4]
    try:
        decoded = base64.b64decode(head, validate=True)
    except ValueError:  # binascii.Error, or characters outside ASCII
        return False
    return _PEM_PRIVATE_HEADER.match(decoded) is not None

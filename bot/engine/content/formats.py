"""Structure a token format promises, checked without any network: a JSON Web Token's header is
base64url-encoded JSON naming its algorithm or type, so a string that merely starts with `eyJ` and
decodes to something else is not one. The check reads the header's bytes rather than parsing them
as JSON: a real token whose header was partly altered when it was pasted is still reported."""

from __future__ import annotations

import base64


def jwt_header_valid(token: str) -> bool:
    header = token.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
    except ValueError:  # binascii.Error, or characters outside ASCII
        return False
    return decoded.startswith(b"{") and (b'"alg"' in decoded or b'"typ"' in decoded)

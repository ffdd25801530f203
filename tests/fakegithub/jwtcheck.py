"""An App's JWT checked as GitHub checks it, with GitHub's messages (all answered 401).

RS256 only, signed by the key registered for the app `iss` names (its id, as an integer or a string
of digits, or its client ID). `iat` may not be in the future (GitHub's clock; `leeway` seconds
allowed), `exp` must be in the future and at most 10 minutes after `iat`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import jwt

from tests.fakegithub.apps import FakeApp

MAX_LIFETIME = 600
NOT_DECODED = "A JSON web token could not be decoded"
EXP_PAST = (
    "'Expiration time' claim ('exp') must be a numeric value representing the future time at which "
    "the assertion expires"
)
EXP_TOO_FAR = "'Expiration time' claim ('exp') is too far in the future"
IAT_INVALID = (
    "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"
)
ISS_MISSING = "Missing 'issuer' claim ('iss') in assertion"
ISS_INVALID = "'Issuer' claim ('iss') must be an Integer"
EXP_MISSING = "Missing 'expiration time' claim ('exp') in assertion"
IAT_MISSING = "Missing 'issued at' claim ('iat') in assertion"


class JWTRejected(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def looks_like_jwt(credential: str) -> bool:
    return credential.count(".") == 2 and credential.startswith("eyJ")


def _issuer(claims: Mapping[str, Any], apps: Mapping[int, FakeApp]) -> FakeApp:
    if "iss" not in claims:
        raise JWTRejected(ISS_MISSING)
    iss = claims["iss"]
    if isinstance(iss, str) and not iss.isdigit():
        by_client = [a for a in apps.values() if a.client_id == iss]
        if not by_client:
            raise JWTRejected(ISS_INVALID)
        return by_client[0]
    if isinstance(iss, bool) or not isinstance(iss, int | str):
        raise JWTRejected(ISS_INVALID)
    app = apps.get(int(iss))
    if app is None:
        # GitHub cannot tell a wrong app id from a wrong key: the signature does not verify.
        raise JWTRejected(NOT_DECODED)
    return app


def verify_app_jwt(credential: str, apps: Mapping[int, FakeApp], *, now: float, leeway: float = 0) -> FakeApp:
    """The app the JWT authenticates, or JWTRejected with GitHub's message."""
    # Signature first with PyJWS; the claims are GitHub's rules, read here (PyJWT's claim checks
    # differ: it refuses an integer `iss`, which GitHub accepts).
    jws = jwt.PyJWS(algorithms=["RS256"])
    try:
        header = jws.get_unverified_header(credential)
        unverified = json.loads(
            jws.decode_complete(credential, options={"verify_signature": False})["payload"]
        )
    except (jwt.PyJWTError, ValueError):
        raise JWTRejected(NOT_DECODED) from None
    if header.get("alg") != "RS256" or not isinstance(unverified, dict):
        raise JWTRejected(NOT_DECODED)
    app = _issuer(unverified, apps)
    try:
        jws.decode_complete(credential, app.public_key_pem, algorithms=["RS256"])
    except jwt.PyJWTError:
        raise JWTRejected(NOT_DECODED) from None
    claims = unverified
    iat, exp = claims.get("iat"), claims.get("exp")
    if iat is None:
        raise JWTRejected(IAT_MISSING)
    if isinstance(iat, bool) or not isinstance(iat, int) or iat > now + leeway:
        raise JWTRejected(IAT_INVALID)
    if exp is None:
        raise JWTRejected(EXP_MISSING)
    if isinstance(exp, bool) or not isinstance(exp, int | float) or exp <= now - leeway:
        raise JWTRejected(EXP_PAST)
    if exp - iat > MAX_LIFETIME:
        raise JWTRejected(EXP_TOO_FAR)
    return app

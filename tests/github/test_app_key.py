"""The App's private key is parsed once, not for every JWT."""

from __future__ import annotations

import jwt
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey

from bot.github.auth import AppCredentials, make_app_client, signing_key
from tests.fakegithub import shared_key_pair


def test_the_app_client_signs_with_a_key_parsed_once() -> None:
    keys = shared_key_pair("signing")
    client = make_app_client(AppCredentials(7, keys.private_pem))
    key = client.auth.private_key
    assert isinstance(key, RSAPrivateKey)
    token = jwt.encode({"iss": "7"}, key, algorithm="RS256")
    assert jwt.decode(token, keys.public_pem, algorithms=["RS256"]) == {"iss": "7"}


def test_a_key_that_does_not_parse_is_left_to_fail_at_signing_as_before() -> None:
    assert signing_key("not a key") == "not a key"

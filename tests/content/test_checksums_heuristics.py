from __future__ import annotations

import base64

import pytest

from bot.engine.content.checksums import base62, crc32_base62, crc32_token_valid
from bot.engine.content.formats import jwt_header_valid, pem_base64_valid
from bot.engine.content.heuristics import (
    base64_text,
    has_digit,
    is_placeholder,
    looks_like_name,
    shannon_entropy,
)
from bot.engine.content.redact import redact
from tests.content.helpers import checksummed


@pytest.mark.parametrize(
    "token",
    [
        # Real-format tokens from the labelled sets whose CRC32 verifies.
        "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",  # detect-secrets plugin_tests/github_token_test.py
        "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",  # Nosey Parker np.github.1
        checksummed("npm", "000000000000000000000000000000"),
        checksummed("ghs", "zZ9yY8xX7wW6vV5uU4tT3sS2rR1qQ0"),
    ],
)
def test_valid_checksums(token: str) -> None:
    assert crc32_token_valid(token)


@pytest.mark.parametrize(
    "token",
    [
        "ghp_4U3LSowpDx8XvYE7A8GH56oxU5aWnY2mzIbV",  # Nosey Parker np.github.1: its checksum fails
        "ghp_wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUy",  # one character off
        "ghp_short",
        "no-underscore",
        "ghp_wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pIé€x",
    ],
)
def test_invalid_checksums(token: str) -> None:
    assert not crc32_token_valid(token)


def test_base62() -> None:
    assert base62(0, 6) == "000000"
    assert base62(61, 1) == "z"
    assert base62(62, 3) == "010"
    assert len(crc32_base62("anything")) == 6


def test_entropy() -> None:
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("aaaa") == 0.0
    assert shannon_entropy("abcd") == 2.0
    assert has_digit("ab1") and not has_digit("abc")


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("win32api.RegEnumKey", True),
        ("RIPEMD160_CTX", True),
        ("os.environ", True),
        ("settings.SECRET_KEY", True),
        ("single", False),  # one word is not a reference
        ("Xk9fQ2mZpL7aB3cD8eF1", False),
        ("aB3d_Ef9Gh", False),  # irregular case: random, not a name
        ("abc1def2_ghi", False),  # two runs of digits
        ("HTTPServer.serve", False),
    ],
)
def test_names(value: str, name: bool) -> None:
    assert looks_like_name(value) is name


@pytest.mark.parametrize(
    ("value", "placeholder"),
    [
        ("password", True),
        ("${DB_PASSWORD}", True),
        ("{{ secrets.TOKEN }}", True),
        ("<your-token>", True),
        ("%(password)s", True),
        ("$PASSWORD", True),
        ("****", True),
        ("changeme123", True),
        ("xxxxxxxx", True),
        ("Zq8vK2pL9xR4", False),
        ("D1fficult", False),
        # one character repeated (psf/requests@5b4b64c346:tests/test_utils.py: `bbbb`)
        ("bbbb", True),
        ("bbbc", False),
        # words that say what they stand for, however they are joined
        ("other-password", True),  # encode/httpx@8cd952c88f:docs/advanced/authentication.md
        ("pass~word", True),  # urllib3/urllib3@5cf0247049:test/test_util.py
        ("pass:colon", True),
        ("pass[\x7f", True),  # encode/httpx@db9072f998:tests/models/whatwg.json, decoded
        ("foo(b]c", True),
        ("foobar", True),
        ("bar", True),
        ("pass2024", False),  # a digit: a weak password, not a word for one
        ("passion-fruit", False),  # `pass` is a word, not a part of one
        ("secret-Xk9mP2vQ", False),
        # spelled with look-alike characters or split: still the word `password`
        ("p@ssword", True),  # encode/httpx@b471f01d66:tests/models/test_url.py, decoded
        ("pa ssword", True),
        ("P@ssw0rd", True),
        ("s3cr3t", True),
        ("Pa55w0rd!x", False),
        ("pässword", True),  # pallets/werkzeug@a792bc2d1e:tests/test_wrappers.py, decoded
        ("sécret", True),
        # letters and digits running in order
        ("abc123@ %", True),  # encode/httpx@d293374b66:tests/models/test_url.py, decoded
        ("123456", True),
        ("abc124", False),
        # no letter or digit at all: nothing a credential is made of
        ("`{}", True),
        ("\U0001f4a9", True),
        ("пароль", False),
    ],
)
def test_placeholders(value: str, placeholder: bool) -> None:
    assert is_placeholder(value) is placeholder


def test_redaction_shows_a_prefix_and_the_length_only() -> None:
    assert redact("ghp_" + "a" * 36, public_prefix=4) == "'ghp_…' (40 characters)"
    assert redact("Xk9fQ2mZpL7aB3cD8eF1") == "'Xk9f…' (20 characters)"
    assert redact("hunter2") == "'h…' (7 characters)"
    assert redact("abc") == "'…' (3 characters)"
    assert redact("a'\nbcdefghijkl") == "'a??…' (14 characters)"


@pytest.mark.parametrize(
    ("token", "valid"),
    [
        ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.sig", True),
        ("eyJ0eXAiOiJKV1QiLA0KImFsZyI6IkhTMjU2In0", True),  # {"typ":"JWT",\r\n "alg":"HS256"}
        ("eyJhbGciOiJIUzI1NiIsEnR5cCI6IkpXVCJ9.x", True),  # altered after "alg": still a token
        ("eyJzdWIiOiIxMjM0NTY3ODkwIn0.x", False),  # {"sub": ...}: claims, not a header
        ("eyJAAAA.eyJBBB", False),
        ("eyJ%%%.x", False),
        ("e", False),
    ],
)
def test_jwt_headers(token: str, valid: bool) -> None:
    assert jwt_header_valid(token) is valid


def _wrapped(pem: str) -> str:
    return base64.b64encode(pem.encode()).decode()


@pytest.mark.parametrize(
    ("blob", "valid"),
    [
        (_wrapped("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n"), True),
        (_wrapped("-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHD"), True),
        (_wrapped("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdGBF"), True),
        (_wrapped("-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE"), False),  # public
        (_wrapped("-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0B"), False),
        ("LS0tLS1CRUdJTi=LS0tLS1CRUdJTi", False),  # not base64
        ("LS0tLS1CRUdJTié", False),
    ],
)
def test_base64_wrapped_pem_headers(blob: str, valid: bool) -> None:
    assert pem_base64_valid(blob) is valid


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("dGhlIHNhbXBsZSBub25jZQ==", "the sample nonce"),  # RFC 6455's sample nonce
        ("dXNlcjpwYXNz", "user:pass"),
        ("dXNlcj9wYXNz", "user?pass"),
        ("dXNlcj_wYXNz", None),  # `_` is `/`: decodes to no UTF-8
        ("P_8-", None),  # urlsafe alphabet, bytes that are no text
        ("dGhl", "the"),
        ("dGhlIA", None),  # not a multiple of four
        ("dGh*", None),
        ("CgoK", None),  # line breaks: not printable
        ("////", None),  # bytes that are no UTF-8
        ("dGh=lA==", None),  # padding inside
    ],
)
def test_base64_text(value: str, text: str | None) -> None:
    assert base64_text(value) == text

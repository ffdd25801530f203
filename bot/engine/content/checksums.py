"""Checksums built into token formats: a token whose checksum verifies was issued by its service.

GitHub's classic tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`) and npm's `npm_` tokens are a
prefix, 30 random base62 characters and 6 base62 characters of the CRC32 of those 30.
"""

from __future__ import annotations

import zlib

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_RANDOM = 30
_CHECK = 6


def base62(number: int, width: int) -> str:
    digits = ""
    while number:
        number, digit = divmod(number, 62)
        digits = BASE62[digit] + digits
    return digits.rjust(width, "0")


def crc32_base62(text: str) -> str:
    return base62(zlib.crc32(text.encode("ascii")), _CHECK)


def crc32_token_valid(token: str) -> bool:
    """Whether `prefix_` + 30 random + 6 checksum characters verifies; characters after those 36
    are not read."""
    _, sep, body = token.partition("_")
    if not sep or len(body) < _RANDOM + _CHECK or not body[: _RANDOM + _CHECK].isascii():
        return False
    return crc32_base62(body[:_RANDOM]) == body[_RANDOM : _RANDOM + _CHECK]

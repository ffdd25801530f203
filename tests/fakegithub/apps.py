"""GitHub Apps in the fake: registered apps, their installations, key pairs and installation tokens.

An installation token is what GitHub issues: `ghs_`, 30 random base62 characters and the 6-character
base62 CRC32 of those (GitHub's documented token format), valid until `expires_at`, limited to the
installation's repositories and permissions (or the narrower set the request named).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Literal

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bot.engine.content.checksums import BASE62, crc32_base62

ALL: Literal["all"] = "all"
LEVELS = {"read": 1, "write": 2, "admin": 3}


@dataclass(frozen=True)
class KeyPair:
    private_pem: str
    public_pem: str


def generate_key_pair(bits: int = 2048) -> KeyPair:
    """A fresh RSA key pair in PEM, as GitHub hands an App's private key (PKCS#1, `BEGIN RSA PRIVATE KEY`)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return KeyPair(private.decode(), public.decode())


@cache
def shared_key_pair(name: str = "default") -> KeyPair:
    """One key pair per name for the whole test session (RSA generation costs tens of milliseconds)."""
    return generate_key_pair()


def grants(permissions: dict[str, str], name: str, level: str) -> bool:
    """Whether `permissions` hold `name` at `level` or above (write includes read)."""
    held = permissions.get(name)
    return held is not None and LEVELS.get(held, 0) >= LEVELS[level]


def installation_token() -> str:
    body = "".join(secrets.choice(BASE62) for _ in range(30))
    return f"ghs_{body}{crc32_base62(body)}"


@dataclass
class FakeApp:
    id: int
    slug: str
    name: str
    public_key_pem: str
    webhook_url: str | None
    webhook_secret: str | None
    permissions: dict[str, str]
    events: list[str]
    owner: str
    client_id: str
    hook_id: int
    created_at: str
    active: bool = True  # a webhook GitHub delivers to


@dataclass
class FakeInstallation:
    id: int
    app_id: int
    account: str
    account_type: str  # "Organization" or "User"
    repos: list[str] | Literal["all"]
    permissions: dict[str, str]
    events: list[str]
    created_at: str
    suspended_at: str | None = None

    @property
    def repository_selection(self) -> str:
        return "all" if self.repos == ALL else "selected"

    def covers(self, full_name: str) -> bool:
        if self.repos == ALL:
            return full_name.split("/", maxsplit=1)[0].lower() == self.account.lower()
        return full_name.lower() in {r.lower() for r in self.repos}


@dataclass
class IssuedToken:
    token: str
    installation_id: int
    expires_at: datetime
    permissions: dict[str, str]
    repos: tuple[str, ...] | None  # None: every repository the installation covers
    revoked: bool = False

    def covers(self, installation: FakeInstallation, full_name: str) -> bool:
        if not installation.covers(full_name):
            return False
        return self.repos is None or full_name.lower() in {r.lower() for r in self.repos}

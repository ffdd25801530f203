"""receipt's own secret detectors, beside the ported gitleaks rules.

- Checksums: a GitHub classic or npm token whose CRC32 verifies is a real token whatever it looks
  like; one whose checksum fails is still reported when it looks random (an invented credential is
  still a credential in code) but never when it looks like a placeholder.
- AWS secret access keys: gitleaks finds key ids (`AKIA...`), not the 40-character secret keys
  that go with them; these two detectors do, after Nosey Parker's `np.aws.2` rule (Apache-2.0).
- Credentials in URLs (`scheme://user:password@host`), which gitleaks only finds for a few providers.
- Discord bot tokens, Telegram bot tokens, Mailchimp API keys and npm's legacy (UUID) tokens in an
  `.npmrc` by their format alone, as detect-secrets' plugins (Apache-2.0) describe them; gitleaks
  wants the provider's name nearby or knows only the newer formats. Likewise test.pypi.org upload
  tokens, OpenAI project keys in their short form and JWTs without a signature part.
- JWTs (gitleaks' and these) must have a header that decodes to JSON naming `alg` or `typ`.
- Private keys wrapped in base64 (Kubernetes Secrets, environment variables), after Nosey Parker's
  `np.pem.2` rule (Apache-2.0), for any key type: the blob must decode to a private key's PEM header.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bot.engine.content.checksums import crc32_token_valid
from bot.engine.content.formats import jwt_header_valid, pem_base64_valid
from bot.engine.content.ruleset import SecretPattern

# A secret these find is dropped unless its format checks out.
VALIDATORS: Mapping[str, Callable[[str], bool]] = {
    "jwt": jwt_header_valid,
    "private-key-base64": pem_base64_valid,
}

# Detectors whose every finding is a credential by a structure checked here: a private key's PEM
# block, base64 that decodes to one, a JWT whose header decodes. These, and tokens whose checksum
# verifies (CHECKSUMS), are reported in every path: a path allowlist silences only the rest.
VERIFIED_FORMATS: frozenset[str] = frozenset({"private-key", "private-key-base64", "jwt"})

CHECKSUMS: Mapping[str, Callable[[str], bool]] = {
    "github-pat": crc32_token_valid,
    "github-oauth": crc32_token_valid,
    "github-app-token": crc32_token_valid,
    "github-refresh-token": crc32_token_valid,
    "npm-access-token": crc32_token_valid,
}

_AWS_KEY_ID = r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b"
_END = r"(?:[^A-Za-z0-9/+=]|$)"


@dataclass(frozen=True, slots=True)
class OwnDetector:
    """A detector of receipt's own; `requires` is an RE2 regex that must also occur somewhere in
    the same hunk (a secret access key is only recognisable next to its key id)."""

    pattern: SecretPattern
    requires: str | None = None


OWN_DETECTORS: tuple[OwnDetector, ...] = (
    OwnDetector(
        SecretPattern(
            id="aws-secret-access-key",
            regex=r"(?i)\baws_?(?:secret)?_?(?:access)?_?key[\"'\x60]?\s{0,30}(?::|=>|:=|=)\s{0,30}"
            r"[\"'\x60]?([a-z0-9/+=]{40})" + _END,
            keywords=("aws",),
            entropy=4.0,
        )
    ),
    OwnDetector(
        SecretPattern(
            id="aws-secret-access-key",
            regex=r"(?:^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{40})" + _END,
            keywords=("akia", "asia", "abia", "acca", "a3t"),
            entropy=4.3,
        ),
        requires=_AWS_KEY_ID,
    ),
    OwnDetector(
        SecretPattern(
            id="url-credentials",
            # A reader takes `#` and `?` before the `@` as the password's (a URL parser would not).
            regex=r"\b[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/?#@'\"\x60<>()\[\]{}]{1,100}"
            r":([^\s/'\"\x60<>\[\]{}]{3,100})@([A-Za-z0-9_-][A-Za-z0-9_.-]{0,252})",
            keywords=("://",),
            secret_group=1,
        )
    ),
    OwnDetector(
        SecretPattern(
            id="discord-bot-token",
            regex=r"\b([MNO][A-Za-z\d_-]{23,25}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,38})\b",
            entropy=4.0,
        )
    ),
    OwnDetector(
        SecretPattern(id="telegram-bot-token", regex=r"\b(\d{8,10}:AA[A-Za-z0-9_-]{33})\b", keywords=(":aa",))
    ),
    OwnDetector(
        SecretPattern(
            id="jwt",
            regex=r"\b(eyJ[A-Za-z0-9_-]{10,}={0,2}\.eyJ[A-Za-z0-9_-]{10,}={0,2})(?:[^A-Za-z0-9_.=-]|$)",
            keywords=("eyj",),
        )
    ),
    OwnDetector(
        SecretPattern(
            id="pypi-upload-token",
            regex=r"\b(pypi-AgENdGVzdC5weXBpLm9yZw[\w-]{50,1000})",
            keywords=("pypi-",),
        )
    ),
    OwnDetector(
        SecretPattern(
            id="openai-project-key",
            regex=r"\b(sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{10,}T3BlbkFJ[A-Za-z0-9_-]{10,})\b",
            keywords=("t3blbkfj",),
        )
    ),
    OwnDetector(
        SecretPattern(
            id="npm-legacy-token",
            regex=r":_authToken=[ \t]*([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b",
            keywords=("_authtoken",),
        )
    ),
    OwnDetector(
        SecretPattern(
            id="private-key-base64",  # `LS0tLS1CRUdJTi` is `-----BEGIN` in base64
            regex=r"\b(LS0tLS1CRUdJTi[A-Za-z0-9+/]{100,}={0,2})" + _END,
            keywords=("ls0tls1crudjti",),
        )
    ),
    OwnDetector(
        SecretPattern(
            id="mailchimp-api-key", regex=r"\b([0-9a-f]{32}-us\d{1,2})\b", keywords=("-us",), entropy=3.0
        )
    ),
)

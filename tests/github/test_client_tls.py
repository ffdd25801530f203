"""Every GitHub client of a process verifies TLS with one context, built once."""

from __future__ import annotations

import ssl

from bot.github.auth import AppCredentials, make_app_client
from bot.github.client import make_client, tls_context
from tests.fakegithub import shared_key_pair


def test_clients_share_one_verifying_tls_context() -> None:
    shared = tls_context()
    installation = make_client("a-token", base_url="https://ghe.example/api/v3")
    app = make_app_client(AppCredentials(1, shared_key_pair("tls").private_pem))
    assert installation.config.ssl_verify is shared and app.config.ssl_verify is shared
    assert shared.verify_mode is ssl.CERT_REQUIRED and shared.check_hostname
    assert tls_context() is shared

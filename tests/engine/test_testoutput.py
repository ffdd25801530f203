"""The end of a test run's output as the receipt shows it."""

from __future__ import annotations

from bot.engine.testoutput import TAIL_CHARS, TAIL_LINES, output_tail, redact_secrets

TOKEN = "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"  # detect-secrets' github_token_test.py
KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join("MIIEowIBAAKCAQEA" + "x" * 48 for _ in range(80))
    + "\n-----END RSA PRIVATE KEY-----"
)


def test_the_last_lines_and_characters() -> None:
    output = "".join(f"line {i}\n" for i in range(500)).encode() + b"\xff end"
    text = output_tail(output)
    assert text.splitlines()[0] == f"line {500 - TAIL_LINES + 1}" and text.endswith("\ufffd end")
    assert len(output_tail(b"x" * 100_000)) == TAIL_CHARS
    assert output_tail(b"") == ""


def test_secrets_are_redacted_with_the_secret_rules_form() -> None:
    assert redact_secrets(f"token={TOKEN} done") == "token=[redacted 'ghp_…' (40 characters)] done"
    assert redact_secrets("nothing here") == "nothing here"
    assert redact_secrets("") == ""


def test_a_secret_is_redacted_before_the_tail_is_cut() -> None:
    """A private key longer than the tail is recognized whole, not missed half-cut."""
    output = ("noise\n" * 10_000 + KEY + "\nafter\n").encode()
    text = output_tail(output)
    assert "MIIEowIBAAKCAQEA" not in text and "[redacted '-----BEGIN RSA PRIVATE KEY-----…'" in text
    assert text.endswith("after")


def test_the_window_starts_at_a_line_break() -> None:
    output = ("y" * 20 + "\n") * 5000
    assert output_tail(output.encode()).splitlines()[0] == "y" * 20

"""Credentials that their own surroundings mark as examples: a URL's or a netrc entry's password
judged as the other detectors judge placeholders, once decoded as the reader of the URL decodes it,
and with the host it is for.

A password of plain lower-case letters (`quoted`, `secret`) for a host reserved for documentation
and tests (RFC 2606 and 6761: `example.com`, `*.example`, `*.test`, `*.invalid`, `localhost`) is an
example. A password that looks random is reported whatever the host: an example host never makes
`Xk9#mP2vQ` a placeholder, and a weak password for a real host is a leaked password.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from urllib.parse import unquote

from bot.engine.content.heuristics import is_placeholder

_DOCUMENTATION_NAMES = frozenset({"example", "example.com", "example.net", "example.org", "localhost"})
_DOCUMENTATION_SUFFIXES = (
    ".example",
    ".test",
    ".invalid",
    ".localhost",
    *(f".{n}" for n in _DOCUMENTATION_NAMES),
)
_WORD = re.compile(r"[a-z]+")
_URL_HOST = re.compile(r"@([^@]+)\Z")  # the url-credentials match ends with its host
_PORT_THEN_MORE = re.compile(r"\d{1,5}[?#]")
_NETRC_MACHINE = re.compile(r"\Amachine\s+(\S+)")


def documentation_host(host: str) -> bool:
    """A name reserved for documentation and tests, or the local machine."""
    name = host.lower().rstrip(".")
    return name in _DOCUMENTATION_NAMES or name.endswith(_DOCUMENTATION_SUFFIXES)


def _example(password: str, host: str | None) -> bool:
    if is_placeholder(password):
        return True
    return host is not None and _WORD.fullmatch(password) is not None and documentation_host(host)


def _decoded(secret: str) -> str:
    """The password a URL's reader takes from it; as written when it does not decode to text
    (bytes that are no UTF-8 are judged as the escapes that hold them, never as nothing)."""
    try:
        return unquote(secret, errors="strict")
    except UnicodeDecodeError:
        return secret


def url_example(secret: str, match: str) -> bool:
    """A URL's password, percent-decoded, is an example; digits before a `?` or `#` are a port
    and a query or fragment holding an `@` (`localhost:3000?next=a@b`), not a password."""
    if _PORT_THEN_MORE.match(secret):
        return True
    host = _URL_HOST.search(match)
    return _example(_decoded(secret), host.group(1) if host else None)


def netrc_example(secret: str, match: str) -> bool:
    """A netrc entry's password is an example (`default` names no host)."""
    machine = _NETRC_MACHINE.match(match)
    return _example(secret, machine.group(1) if machine else None)


# By detector id: a finding these call an example is not reported.
EXAMPLES: Mapping[str, Callable[[str, str], bool]] = {
    "url-credentials": url_example,
    "netrc-password": netrc_example,
}

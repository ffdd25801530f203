"""The literal a secret starts in (literals.py) and the surroundings that make one an example
(examples.py), part by part."""

from __future__ import annotations

import pytest

from bot.engine.content.examples import documentation_host, netrc_example, url_example
from bot.engine.content.literals import Literals, literal_text


def _bounding(line: bytes, secret: bytes) -> tuple[int, int] | None:
    start = line.index(secret)
    return Literals(line).bounding(start, start + len(secret))


@pytest.mark.parametrize(
    ("line", "secret", "bounds"),
    [
        (b'w("a password bbbb\\n")', b'bbbb\\n")', (3, 20)),  # closes inside the span
        (b'w("a password bbbb")', b"bbbb", None),  # stays inside
        (b"password bbbb'x", b"bbbb'x", None),  # the quote opens in the span: no literal holds it
        (b'w("a \\" password bb\'b"c)', b"bb'b\"c", (3, 21)),  # an escaped quote, another quote
        (b'w("password a\\"b")', b'a\\"b")', (3, 16)),  # an escaped quote inside the span
        (b'w("password ab"', b"ab", None),
        (b'w("password ab\nc")', b'ab\nc"', None),  # the line ends first
        (b'k = "-----BEGIN K-----" +\n"b3Bl"', b'-----BEGIN K-----" +\n"b3Bl', None),  # spans lines
        (b'w("password ab\\\\")', b'ab\\\\")', (3, 16)),  # an escaped backslash, then the quote
        (b'w("it\'s password bb\\n")', b'bb\\n")', (3, 21)),  # another quote before the span
        (b"w(\"password ab'c", b"ab'c", None),  # another quote in the span, and no closing one
    ],
)
def test_the_literal_holding_a_span(line: bytes, secret: bytes, bounds: tuple[int, int] | None) -> None:
    assert _bounding(line, secret) == bounds


def test_offsets_asked_in_order_read_each_line_once_and_a_new_line_starts_afresh() -> None:
    data = b'x = "p aa" + "p bb"\n"p cc" z"\nq "d\\\' e"f'
    literals = Literals(data)
    assert literals.bounding(data.index(b"aa"), data.index(b"aa") + 4) == (5, 9)
    assert literals.bounding(data.index(b"bb"), data.index(b"bb") + 3) == (14, 18)
    assert literals.bounding(data.index(b"cc"), data.index(b"cc") + 3) == (21, 25)
    assert literals.bounding(data.index(b" z"), data.index(b" z") + 3) is None  # after the literal
    assert literals.bounding(data.index(b"e"), data.index(b"e") + 3) == (33, 38)
    assert literals.bounding(data.index(b"bb"), data.index(b"bb") + 3) == (14, 18)  # asked again, earlier


def test_whitespace_escapes_are_whitespace_offsets_kept() -> None:
    assert literal_text(b'"a\\nb\\tc\\r\\\\n\\"d"', 1, 16) == b'a  b  c  \\\\n\\"d'


@pytest.mark.parametrize(
    ("host", "documentation"),
    [
        ("example.com", True),
        ("db.prod.example.com", True),
        ("EXAMPLE.org.", True),
        ("api.test", True),
        ("localhost", True),
        ("x.invalid", True),
        ("examples.com", False),
        ("example.com.evil.io", False),
        ("db.acme-corp.io", False),
    ],
)
def test_documentation_hosts(host: str, documentation: bool) -> None:
    assert documentation_host(host) is documentation


def test_a_url_password_is_judged_decoded_with_its_host() -> None:
    assert url_example("quoted", "http://user%22:quoted@example.com")
    assert not url_example("quoted", "http://user:quoted@db.acme-corp.io")
    assert url_example("pa%20ssword", "https://u:pa%20ssword@db.acme-corp.io")
    assert not url_example("Xk9%23mP2vQ", "https://u:Xk9%23mP2vQ@example.com")
    assert not url_example("%8f%a3%c1%07", "https://u:%8f%a3%c1%07@db.acme-corp.io")  # no UTF-8: as written
    assert not url_example("quoted", "no host")
    assert url_example("3000?next=user", "http://localhost:3000?next=user@acme-corp.io")
    assert not url_example("Xk9#mP2vQ", "postgres://admin:Xk9#mP2vQ@db.acme-corp.io")


def test_a_netrc_password_is_judged_with_its_machine() -> None:
    assert netrc_example("secretly", "machine example.com login u password secretly")
    assert not netrc_example("secretly", "machine files.acme-corp.io login u password secretly")
    assert not netrc_example("secretly", "default login u password secretly")
    assert netrc_example("bbbb", "default login u password bbbb")

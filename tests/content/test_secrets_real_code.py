"""`secret` on the shapes that misfired on maintainers' own commits (docs/precision-review.md), and
the near misses beside them that must still fire.

Each misfire is quoted from the public repository's file it was found in (repo@commit:path); the
findings were reviewed by hand with tools/precision.py.
"""

from __future__ import annotations

import pytest

from bot.engine.content.secrets import SecretsRule
from bot.engine.findings import RuleId, Violation
from tests.content.helpers import change_of, fake_base64, scan
from tests.gitrepo import GitRepo

RULE = SecretsRule()


def _secrets_in(repo: GitRepo, path: str, text: str) -> list[Violation]:
    found = scan(RULE, change_of(repo, {path: text}))
    assert all(v.rule is RuleId.SECRET for v in found)
    return found


@pytest.mark.parametrize(
    ("path", "text"),
    [
        # psf/requests@5b4b64c346:tests/test_utils.py — the match ran past the literal: `bbbb\n")`
        (
            "tests/test_utils.py",
            '        with open(netrc_path, "w") as f:\n'
            '            f.write("machine example.com login aaaa password bbbb\\n")\n',
        ),
        # psf/requests@47914226c2:tests/test_utils.py — `pass\ndefault\n")`
        ("tests/test_utils.py", '    f.write("machine example.com login user password pass\\ndefault\\n")\n'),
        # encode/httpx@8cd952c88f:docs/advanced/authentication.md — a documented example
        (
            "docs/advanced/authentication.md",
            "Example `.netrc` file:\n\n```\nmachine example.org\nlogin example-username\n"
            "password example-password\n\nmachine python-httpx.org\nlogin other-username\n"
            "password other-password\n```\n",
        ),
        # encode/httpx@d293374b66:tests/models/test_url.py — a percent-encoded test vector
        (
            "tests/models/test_url.py",
            '    assert str(new) == "https://tom%40example.org:abc123%40%20%@example.org"\n',
        ),
        # encode/httpx@b471f01d66:tests/models/test_url.py
        ("tests/models/test_url.py", '            "https://username%40gmail.com:pa%20ssword@example.com",\n'),
        ("tests/models/test_url.py", '            "https://user%20name:p%40ssword@example.com",\n'),
        # encode/httpx@db9072f998:tests/models/whatwg.json — WHATWG's URL parser test vectors
        ("tests/models/whatwg.json", '    "href": "http://&a:foo(b%5Dc@d:2/",\n'),
        ("tests/models/whatwg.json", '    "input": "http://%25DOMAIN:foobar@foodomain.com/",\n'),
        ("tests/models/whatwg.json", '    "href": "http://foo:%F0%9F%92%A9@example.com/bar",\n'),
        ("tests/models/whatwg.json", '    "href": "http://%60%7B%7D:%60%7B%7D@h/%60%7B%7D?`{}",\n'),
        ("tests/models/whatwg.json", '    "input": "redis://foo:bar@somehost:6379/0?baz=bam&qux=baz",\n'),
        ("tests/models/whatwg.json", '    "href": "https://user:pass%5B%7F@foo/bar",\n'),
        # urllib3/urllib3@5cf0247049:test/test_util.py — URL parser test vectors
        ("test/test_util.py", '        ("http://foo:bar@example.com/", ("foo", "bar")),\n'),
        (
            "test/test_util.py",
            '        ("http://user-name:pass_word@example.com/", ("user-name", "pass_word")),\n',
        ),
        (
            "test/test_util.py",
            '        ("http://user.name:pass~word@example.com/", ("user.name", "pass~word")),\n',
        ),
        (
            "test/test_util.py",
            '        ("http://user!id:pass$word@example.com/", ("user!id", "pass$word")),\n',
        ),
        (
            "test/test_util.py",
            '        ("http://user+id:pass,word@example.com/", ("user+id", "pass,word")),\n',
        ),
        (
            "test/test_util.py",
            '        ("http://user;id:pass=word@example.com/", ("user;id", "pass=word")),\n',
        ),
        (
            "test/test_util.py",
            '        ("http://user%3Aname:pass:word@example.com/", ("user:name", "pass:word")),\n',
        ),
        (
            "test/test_util.py",
            '        ("http://user%2Dname:pass%2Eword@example.com/", ("user-name", "pass.word")),\n',
        ),
        (
            "test/test_util.py",
            '        ("http://user%40email:pass%2Fword@example.com/", ("user@email", "pass/word")),\n',
        ),
        (
            "test/test_util.py",
            '        ("http://user%20space:pass%3Acolon@example.com/", ("user space", "pass:colon")),\n',
        ),
        ("test/test_util.py", '        ("http://user%22:quoted@example.com/", (\'user"\', "quoted")),\n'),
        # pallets/werkzeug@a792bc2d1e:tests/test_wrappers.py — `pässword`, percent-encoded
        (
            "tests/test_wrappers.py",
            '    assert headers["Location"] == "http://%C3%BCser:p%C3%A4ssword@xn--n3h.net/p%C3%A5th"\n',
        ),
        # aio-libs/aiohttp@c207cadb25:tests/test_web_functional.py — RFC 6455's sample nonce, whose
        # base64 reads "the sample nonce"
        (
            "tests/test_web_functional.py",
            '            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n"\n',
        ),
        # a port, then a query or a fragment holding an `@`: no password at all
        ("app/links.py", 'NEXT = "http://localhost:3000?next=user@acme-corp.io"\n'),
        ("app/links.py", 'TOP = "https://api.acme-corp.io:8443#top@acme-corp.io"\n'),
    ],
)
def test_placeholders_test_vectors_and_documentation_stay_quiet(repo: GitRepo, path: str, text: str) -> None:
    assert _secrets_in(repo, path, text) == []


@pytest.mark.parametrize(
    ("path", "text", "detector", "length"),
    [
        # the password holds a `#`: a URL parser would end the authority there, a reader does not
        (
            "app/settings.py",
            'DATABASE_URL = "postgres://admin:Xk9#mP2vQ@db.prod.example.com/app"\n',
            "url-credentials",
            9,
        ),
        (
            "app/settings.py",
            'CACHE = "redis://app:Zq8vK2pL9xR4@cache.internal:6379/0"\n',
            "url-credentials",
            12,
        ),
        # a weak password on a real host is still a leaked password
        ("deploy/env.sh", "export DB=postgres://admin:letmein@db.acme-corp.io/app\n", "url-credentials", 7),
        ("deploy/env.sh", "export DB=postgres://deploy:pass2024@db.acme-corp.io/app\n", "url-credentials", 8),
        # a real-looking password at a documentation host is still real-looking
        ("docs/setup.md", "Use `https://ci:Qm7vX2pL9zK4@example.com/hook`.\n", "url-credentials", 12),
        # percent-encoded, but what it encodes is a credential
        (
            "app/settings.py",
            'URL = "postgres://svc:Xk9%23mP2vQ%40z@db.acme-corp.io/app"\n',
            "url-credentials",
            15,
        ),
        # a netrc in a string literal: the password ends where the literal does
        (
            "tests/test_auth.py",
            '    f.write("machine api.acme-corp.io login octocat password Xk9mP2vQz7Lw\\n")\n',
            "netrc-password",
            12,
        ),
        # a real netrc file, one token a line
        (".netrc", "machine api.acme-corp.io\nlogin octocat\npassword Xk9mP2vQz7Lw\n", "netrc-password", 12),
        # base64 of a credential, not of a placeholder ("user:Xk9mP2vQ7Lw")
        ("app/settings.py", 'api_key = "dXNlcjpYazltUDJ2UTdMdw=="\n', "generic-api-key", 24),
        # accented, but not a stand-in
        ("app/settings.py", 'URL = "https://u:Xk%C3%A49mP2vQ@db.acme-corp.io"\n', "url-credentials", 14),
        # the documentation host is an example, but this password is not
        (".netrc", "machine example.com login alice password Rt5#kP9vLq2W\n", "netrc-password", 12),
    ],
)
def test_real_looking_credentials_still_fire(
    repo: GitRepo, path: str, text: str, detector: str, length: int
) -> None:
    found = _secrets_in(repo, path, text)
    assert [v.id for v in found] == [detector]
    assert f"({length} characters)" in found[0].message


def test_a_secret_is_bounded_by_the_literal_it_starts_in(repo: GitRepo) -> None:
    """The literal closes before the line does: what follows it is code, not the password."""
    text = 'conf = "machine h.acme-corp.io login u password Xk9mP2vQz7Lw" + suffix\n'
    found = _secrets_in(repo, "tools/netrc.py", text)
    assert [v.id for v in found] == ["netrc-password"]
    assert "(12 characters)" in found[0].message


def test_a_private_key_written_as_concatenated_literals_is_still_found(repo: GitRepo) -> None:
    """The shape of Nosey Parker's np.pem.1 example: one literal a line, joined by `+`; the key's
    format spans lines and literals, so no literal bounds it."""
    body = fake_base64("pem-in-literals", 64 * 8)
    lines = [
        '"-----BEGIN RSA PRIVATE KEY-----" +',
        *(f'"{body[i : i + 64]}" +' for i in range(0, len(body), 64)),
    ]
    text = "KEY = (\n" + "\n".join([*lines, '"-----END RSA PRIVATE KEY-----"']) + "\n)\n"
    assert [v.id for v in _secrets_in(repo, "src/keys.py", text)] == ["private-key"]

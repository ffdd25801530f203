from __future__ import annotations

import base64

import pytest

from bot.engine.content.added import Fragment
from bot.engine.content.limits import MAX_PER_FILE
from bot.engine.content.ruleset import Allowlist, SecretPattern, Target
from bot.engine.content.secrets import (
    Detector,
    SecretFinding,
    SecretScanner,
    SecretsRule,
    _Allow,
    _public_prefix,
    _resolve_overlaps,
    describe,
)
from bot.engine.findings import RuleId, Violation
from tests.content.helpers import change_of, checksummed, fake_aws_key_id, fake_base64, manifest, scan, where
from tests.gitrepo import GitRepo

RULE = SecretsRule()


def _secrets_in(repo: GitRepo, files: dict[str, str], **kwargs: object) -> list[Violation]:
    found = scan(RULE, change_of(repo, files, **kwargs))  # type: ignore[arg-type]
    assert all(v.rule is RuleId.SECRET for v in found)
    return found


def _assert_hidden(found: list[Violation], secret: str) -> None:
    for violation in found:
        assert secret not in violation.message
        assert secret[len(secret) // 2 :] not in violation.message


def test_a_github_token_whose_checksum_verifies_is_confirmed(repo: GitRepo) -> None:
    token = checksummed("ghp", "q7Zt2LmW9xK4pR8vN3bC6yF1hJ5sD0")
    found = _secrets_in(repo, {"deploy/settings.ini": f"[github]\ntoken = {token}\n"})
    assert where(found) == [("deploy/settings.ini", 2, "github-pat")]
    assert "checksum verifies" in found[0].message
    assert "'ghp_…' (40 characters)" in found[0].message
    _assert_hidden(found, token)


def test_a_random_token_whose_checksum_fails_is_still_a_credential(repo: GitRepo) -> None:
    token = checksummed("gho", "q7Zt2LmW9xK4pR8vN3bC6yF1hJ5sD0")
    broken = token[:-1] + ("A" if token[-1] != "A" else "B")
    found = _secrets_in(repo, {"app.js": f'const auth = "{broken}";\n'})
    assert where(found) == [("app.js", 1, "github-oauth")]
    assert "checksum does not verify" in found[0].message
    _assert_hidden(found, broken)


def test_a_placeholder_token_whose_checksum_fails_is_not_reported(repo: GitRepo) -> None:
    placeholder = "ghp_" + "ExampleToken9abcdefghijklmnopqrstuvw"[:36]
    assert _secrets_in(repo, {"docs.md": f"Set GH_TOKEN, for instance {placeholder}.\n"}) == []


def test_npm_tokens_are_checked_by_checksum(repo: GitRepo) -> None:
    token = checksummed("npm", "Wq3Lz8Kp2Vx7Nc4Rb9Mt6Jh1Gf5Ds0")
    found = _secrets_in(repo, {".npmrc": f"//registry.npmjs.org/:_authToken={token}\n"})
    assert where(found) == [(".npmrc", 1, "npm-access-token")]
    assert "checksum verifies" in found[0].message


@pytest.mark.parametrize(
    ("text", "rule_id"),
    [
        # Nosey Parker's labelled examples (tests/data/secrets/noseyparker/rules).
        (
            "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",
            "github-fine-grained-pat",
        ),
        ("--build-arg 'GO_REPO_TOKEN=glpat-tFrjFXD7soVU2fqxuDMh' \\", "gitlab-pat"),
        ("SLACK_API_TOKEN=xoxb-893582989554-899326518131-JRHeVv1o9Cf99fwDpuortR2D", "slack-bot-token"),
        ('Stripe.api_key = "sk_live_dhhfUUyfrAace5dBAZ10JrAD"', "stripe-access-token"),
        ("  var DEVELOPER_KEY = 'AIzaSyB4sU8lU15bR_87qNb7eUVQN72_vv8mpbU';", "gcp-api-key"),
        (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJsb2dnZWRJbkFzIjoiYWRtaW4iLCJpYXQiOjE0MjI3Nzk2Mzh9"
            ".gzSraSYS8EXBxLN_oWnFSRgCzcmEmMjLiuyu5CSpyHI",
            "jwt",
        ),
        ('api_secret = "Xk9fQ2mZpL7aB3cD8eF1"', "generic-api-key"),
        # detect-secrets' labelled plugin tests (tests/data/secrets/detect-secrets/plugin_tests).
        ("bot = MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs", "discord-bot-token"),
        ("bot: 110201543:AAHdqTcvCH1vGWJxfSe1ofSAs0K5PALDsaw", "telegram-bot-token"),
        ("mc: 343ea45721923ed956e2b38c31db76aa-us30", "mailchimp-api-key"),
        ("//registry.npmjs.org/:_authToken=346a14f2-a672-4668-a892-956a462ab56e", "npm-legacy-token"),
        (
            "token: eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJuYW1lIjoiSm9lIiwKInN0YXR1cyI6ImVtcGxveWVlIgp9",
            "jwt",
        ),
        ("key = sk-proj-Xi8tdMjHV6pmbBbwilTeT3BlbkFJ3UDnpdEwNNm6wVBpYM0o", "openai-project-key"),
        (
            "password = pypi-AgENdGVzdC5weXBpLm9yZwIkN2YxOWZhOWEtY2FjYS00MGZhLTj2MGEtODFjMnE2MjdmMzY0AAIq"
            "WzMsImJlM2FiOWI5LTRmYUTnNEg4Z",
            "pypi-upload-token",
        ),
        ("uri: mongodb+srv://app:Zq8vK2pL9xR4@cluster0.example.net/db", "url-credentials"),
    ],
)
def test_provider_formats_fire(repo: GitRepo, text: str, rule_id: str) -> None:
    found = _secrets_in(repo, {"conf/app.cfg": f"# settings\n{text}\n"})
    assert where(found) == [("conf/app.cfg", 2, rule_id)]


@pytest.mark.parametrize(
    "text",
    [
        'password = "hunter2"',  # low entropy
        "RegEnumKey = win32api.RegEnumKey",  # a name, not a value
        'db_password = "${DB_PASSWORD}"',  # a template
        "api_key = os.environ['API_KEY']",
        "url = https://user:password@example.com/",  # a placeholder in a URL
        "AKIAIOSFODNN7EXAMPLE",  # AWS's documentation key id
        "xoxb-not-a-token",
        "sk_live_short",
        "The header -----BEGIN RSA PRIVATE KEY----- starts a key file.",
        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "MTk4NjIyNDgzNDcxOTI1MjQ4.aaaaaa.aaaaaaaaaaaaaaaaaaaaaaaaaaa",  # Discord-shaped, no entropy
        "110201543:BBHdqTcvCH1vGWJxfSe1ofSAs0K5PALDsaw",
        "checksum 343ea45721923ed956e2b38c31db76aa-usa",
        "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
        # detect-secrets' labelled negatives: the header of a JWT is JSON naming alg or typ.
        "eyJhbasdGciOiJIUaddasdasfsasdasdzI1NiIasdsInR5cCI6IkpXVCasdJasd9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6"
        "IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "eyJAAAAAAAAAAAAAA.eyJBBBBBBBBBBBBBBBB",
    ],
)
def test_near_misses_stay_quiet(repo: GitRepo, text: str) -> None:
    assert _secrets_in(repo, {"conf/app.cfg": f"{text}\n"}) == []


def test_a_private_key_is_matched_across_lines(repo: GitRepo) -> None:
    body = fake_base64("pem", 64 * 12)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    pem = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *lines, "-----END RSA PRIVATE KEY-----"])
    found = _secrets_in(repo, {"keys/id_rsa": f"{pem}\n"})
    assert where(found) == [("keys/id_rsa", 1, "private-key")]
    assert "'-----BEGIN RSA PRIVATE KEY-----…'" in found[0].message
    _assert_hidden(found, body)
    for line in lines:
        assert line not in found[0].message


def _wrapped_pem(kind: str, body_length: int) -> str:
    pem = f"-----BEGIN {kind}-----\n{fake_base64(kind, body_length)}\n-----END {kind}-----\n"
    return base64.b64encode(pem.encode()).decode()


def test_a_private_key_wrapped_in_base64_is_found(repo: GitRepo) -> None:
    blob = _wrapped_pem("RSA PRIVATE KEY", 900)
    found = _secrets_in(repo, {"deploy/app.env": f"LOG_LEVEL=info\nTLS_KEY_B64={blob}\n"})
    assert where(found) == [("deploy/app.env", 2, "private-key-base64")]
    assert "'LS0tLS1CRUdJTi…'" in found[0].message
    _assert_hidden(found, blob[14:])


@pytest.mark.parametrize(
    "blob",
    [
        _wrapped_pem("CERTIFICATE", 900),  # public
        _wrapped_pem("PUBLIC KEY", 900),
        _wrapped_pem("PRIVATE KEY", 10)[:100],  # a header and hardly any key
    ],
)
def test_base64_that_is_no_private_key_stays_quiet(repo: GitRepo, blob: str) -> None:
    assert _secrets_in(repo, {"deploy/secret.yaml": f"data:\n  tls.crt: {blob}\n"}) == []


def test_aws_key_ids_come_with_their_secret_keys(repo: GitRepo) -> None:
    key_id, secret = fake_aws_key_id("aws"), fake_base64("aws-secret", 40)
    text = f"[default]\naws_access_key_id = {key_id}\naws_secret_access_key = {secret}\n"
    found = _secrets_in(repo, {"home/.aws/credentials": text})
    assert where(found) == [
        ("home/.aws/credentials", 2, "aws-access-token"),
        ("home/.aws/credentials", 3, "aws-secret-access-key"),
    ]
    _assert_hidden(found, secret)


def test_a_secret_key_without_a_name_is_found_beside_its_key_id(repo: GitRepo) -> None:
    key_id, secret = fake_aws_key_id("pair"), fake_base64("pair-secret", 40)
    found = _secrets_in(repo, {"run.sh": f"configure {key_id} {secret}\n"})
    assert [v.id for v in found] == ["aws-access-token", "aws-secret-access-key"]


def test_forty_base64_characters_alone_are_not_an_aws_secret(repo: GitRepo) -> None:
    assert _secrets_in(repo, {"data.cfg": f"digest {fake_base64('lonely', 40)}\n"}) == []


def test_one_secret_found_by_several_rules_is_reported_once(repo: GitRepo) -> None:
    token = checksummed("ghp", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5")
    found = _secrets_in(repo, {"app.py": f'GITHUB_TOKEN = "{token}"\n'})
    assert [v.id for v in found] == ["github-pat"]


def test_only_added_lines_are_read(repo: GitRepo) -> None:
    old = checksummed("ghp", "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5")
    new = checksummed("ghp", "k3J8h2G7f1D6s5A4p9O0i8U7y6T5r4")
    base = {"a.cfg": f"token = {old}\nkeep = 1\nremoved = {new}\n"}
    head = {"a.cfg": f"token = {old}\nkeep = 2\n"}
    assert _secrets_in(repo, head, base=base) == []


def test_the_manifest_can_turn_secrets_off(repo: GitRepo) -> None:
    token = checksummed("ghp", "q7Zt2LmW9xK4pR8vN3bC6yF1hJ5sD0")
    change = change_of(repo, {"a.cfg": f"token = {token}\n"})
    assert scan(RULE, change, manifest("content:\n  secrets: false\n")) == []


def test_gitleaks_global_path_allowlist_applies_to_unverified_findings(repo: GitRepo) -> None:
    token = checksummed("ghp", "q7Zt2LmW9xK4pR8vN3bC6yF1hJ5sD0")
    line = f'x = "{token}"\napi_key = "Xk9fQ2mZpL7aB3cD8eF1gH4j"\n'
    assert where(_secrets_in(repo, {"node_modules/pkg/index.js": line})) == [
        ("node_modules/pkg/index.js", 1, "github-pat")
    ]


def test_a_rule_with_a_path_reads_only_its_files(repo: GitRepo) -> None:
    line = 'password = "Xk9fQ2mZpL7aB3cD8eF1"\n'
    found = _secrets_in(repo, {"main.tf": line, "main.cfg": line})
    assert sorted(where(found)) == [
        ("main.cfg", 1, "generic-api-key"),
        ("main.tf", 1, "hashicorp-tf-password"),
    ]


def test_a_file_full_of_secrets_lists_the_first_hundred(repo: GitRepo) -> None:
    tokens = [
        checksummed("ghp", f"{i:04d}" + "q7Zt2LmW9xK4pR8vN3bC6yF1hJ5s"[:26]) for i in range(MAX_PER_FILE + 5)
    ]
    found = _secrets_in(repo, {"dump.txt": "".join(f"t{i} {t}\n" for i, t in enumerate(tokens))})
    assert len(found) == MAX_PER_FILE + 1
    assert found[0].line is None and found[0].id == "more"
    assert found[0].message.startswith("5 more possible secret(s)")


# Units: the scanner's semantics on synthetic detectors.


def _scanner(*patterns: SecretPattern, requires: str | None = None) -> SecretScanner:
    detectors = [Detector.of(p, requires=requires) for p in patterns]
    return SecretScanner(detectors, Allowlist(paths=(r"^vendor/",), regexes=(r"^skip",), stopwords=("nope",)))


def _found(scanner: SecretScanner, text: str, path: str = "a.txt") -> list[tuple[str, str, int]]:
    fragment = Fragment(text, range(1, text.count("\n") + 2))
    return [(f.detector, f.secret, f.line) for f in scanner.scan(path, fragment)]


def test_a_detector_without_keywords_always_runs_and_keywords_gate_the_rest() -> None:
    scanner = _scanner(
        SecretPattern("any", r"tok-(\w+)"), SecretPattern("kw", r"val-(\w+)", keywords=("magic",))
    )
    assert _found(scanner, "tok-abc val-def") == [("any", "abc", 1)]
    assert _found(scanner, "MAGIC\ntok-abc val-def") == [("any", "abc", 2), ("kw", "def", 2)]
    assert not scanner.path_allowlisted("src/a.txt")
    assert scanner.path_allowlisted("vendor/a.txt")
    assert not SecretScanner([], Allowlist()).path_allowlisted("vendor/a.txt")
    assert _found(scanner, "tok-abc", "vendor/a.txt") == []


def test_an_allowlisted_path_keeps_what_verifies() -> None:
    tokens = SecretPattern("tok", r"tok-(\w+)")
    detectors = [
        Detector.of(tokens, checksum=lambda s: s.startswith("ok")),
        Detector.of(SecretPattern("private-key", r"(KEY-\w+)")),
        Detector.of(SecretPattern("plain", r"(PLAIN-\w+)")),
    ]
    assert [d.verifies for d in detectors] == [True, True, False]
    scanner = SecretScanner(detectors, Allowlist(paths=(r"^vendor/",)))
    text = "tok-okay tok-bad KEY-abc PLAIN-xyz"
    assert [f[1] for f in _found(scanner, text, "vendor/a.txt")] == ["okay", "KEY-abc"]
    assert [f[1] for f in _found(scanner, text)] == ["okay", "bad", "KEY-abc", "PLAIN-xyz"]


def test_secret_groups_and_whole_matches() -> None:
    """As gitleaks: the first non-empty group, else the whole match; an empty chosen group is nothing."""
    scanner = _scanner(
        SecretPattern("second", r"(a+)-(b+)", secret_group=2),
        SecretPattern("whole", r"zz\d+"),
        SecretPattern("optional", r"q(x*)q"),
        SecretPattern("chosen", r"w(y*)w", secret_group=1),
    )
    assert _found(scanner, "aa-bbb zz12 qq qxq ww wyw") == [
        ("second", "bbb", 1),
        ("whole", "zz12", 1),
        ("optional", "qq", 1),
        ("optional", "x", 1),
        ("chosen", "y", 1),
    ]


def test_path_requires_entropy_and_digits() -> None:
    scanner = _scanner(
        SecretPattern("php-only", r"k=(\w+)", path=r"\.php$"),
        SecretPattern("generic-x", r"g=(\w+)", entropy=2.0),
    )
    assert _found(scanner, "k=abc g=aaaa g=abcdef g=abc123", "x.txt") == [("generic-x", "abc123", 1)]
    assert _found(scanner, "k=abc", "x.php") == [("php-only", "abc", 1)]
    needs = _scanner(SecretPattern("paired", r"s=(\w+)"), requires=r"ID\d")
    assert _found(needs, "s=abc") == []
    assert _found(needs, "ID1\ns=abc") == [("paired", "abc", 2)]


def test_global_allowlist_and_names() -> None:
    scanner = _scanner(SecretPattern("generic-y", r"v=([\w.]+)"))
    assert _found(scanner, "v=skipme v=nopeX v=Fine.Name v=ok9") == [("generic-y", "ok9", 1)]


def test_rule_allowlists() -> None:
    pattern = SecretPattern(
        "r",
        r"k=(\w+)",
        allowlists=(
            Allowlist(regexes=(r"^test",)),
            Allowlist(regexes=(r"#\s*fixture",), target=Target.LINE),
            Allowlist(regexes=(r"^k=zz",), target=Target.MATCH),
            Allowlist(paths=(r"^fixtures/",), regexes=(r"x",), require_all=True),
            Allowlist(stopwords=("dummy",)),
        ),
    )
    scanner = _scanner(pattern)
    text = "k=testing\nk=abc # fixture\nk=zzz\nk=xy\nk=isdummy\nk=good"
    assert _found(scanner, text) == [("r", "xy", 4), ("r", "good", 6)]
    assert _found(scanner, text, "fixtures/a.txt") == [("r", "good", 6)]


def test_allow_without_checks_drops_nothing() -> None:
    assert not _Allow.of(Allowlist()).drops("p", "s", "m", lambda: "l")


def _finding(detector: str, start: int, end: int, *, checksum: bool | None = None) -> SecretFinding:
    generic = detector.startswith("generic")
    return SecretFinding(detector, 1, start, end, "s" * (end - start), checksum, False, generic, 0)


def test_overlapping_findings_keep_the_most_trustworthy() -> None:
    found = [
        _finding("generic-api-key", 0, 30),
        _finding("specific", 5, 25),
        _finding("verified", 10, 20, checksum=True),
        _finding("later", 40, 50),
        _finding("generic-api-key", 45, 60),
    ]
    assert [(f.detector, f.start) for f in _resolve_overlaps(found)] == [("verified", 10), ("later", 40)]
    assert _resolve_overlaps([]) == []


def test_public_prefixes() -> None:
    detector = Detector.of(SecretPattern("d", "x", keywords=("ghp_", "gh")))
    assert _public_prefix(detector, "ghp_abc") == 4
    assert _public_prefix(detector, "xyz") == 0
    assert _public_prefix(detector, "-----BEGIN EC PRIVATE KEY-----\nabc") == 30
    assert _public_prefix(detector, "-----BEGIN without an end") == 10


def test_messages_say_what_and_how_to_override() -> None:
    plain = SecretFinding("generic-api-key", 1, 0, 20, "Xk9fQ2mZpL7aB3cD8eF1", None, False, True, 0)
    own = SecretFinding("url-credentials", 1, 0, 12, "Zq8vK2pL9xR4", None, True, False, 0)
    assert describe(plain).startswith("Possible credential (gitleaks rule generic-api-key): 'Xk9f…' (20")
    assert describe(own).startswith("Possible credential (detector url-credentials): 'Zq8…' (12")
    for message in (describe(plain), describe(own)):
        assert "content.secrets: false" in message
        assert "admin approval" in message

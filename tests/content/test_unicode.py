from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine.content.unicode import InvisibleUnicodeRule
from bot.engine.findings import RuleId, Violation
from tests.content.helpers import change_of, manifest, scan, where
from tests.datafiles import SECRETS
from tests.gitrepo import GitRepo

RULE = InvisibleUnicodeRule()


def _invisible(
    repo: GitRepo, head: dict[str, str | bytes], base: dict[str, str | bytes] | None = None
) -> list[Violation]:
    found = scan(RULE, change_of(repo, head, base))
    assert all(v.rule is RuleId.INVISIBLE_UNICODE for v in found)
    return found


def test_trojan_source_from_bandits_example(repo: GitRepo) -> None:
    source = (SECRETS / "bandit" / "examples" / "trojansource.py").read_bytes()
    found = _invisible(repo, {"check.py": source})
    assert where(found) == [("check.py", 4, "bidi-control")]
    assert found[0].message.startswith(
        "4 characters: U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE, "
        "U+2069 POP DIRECTIONAL ISOLATE at column 25:"
    )
    assert "Trojan Source" in found[0].message


@pytest.mark.parametrize(
    ("text", "kind", "start"),
    [
        ("if user\u200b == admin:", "zero-width", "U+200B ZERO WIDTH SPACE at column 8:"),
        ("token = 'a\u2060b'", "zero-width", "U+2060 WORD JOINER at column 11:"),
        ("name = 'ad\u200dmin'", "zero-width", "U+200D ZERO WIDTH JOINER at column 11:"),
        ("x = 1\ufeff", "zero-width", "U+FEFF ZERO WIDTH NO-BREAK SPACE at column 6:"),
        ("# ok\U000e0041\U000e0042", "unicode-tag", "2 characters: U+E0041 TAG LATIN CAPITAL LETTER A,"),
        ("s = '\u202a\u202b\u202c\u202d'", "bidi-control", "4 characters: U+202A LEFT-TO-RIGHT EMBEDDING,"),
    ],
)
def test_invisible_characters_fire(repo: GitRepo, text: str, kind: str, start: str) -> None:
    found = _invisible(repo, {"a.py": f"first = 1\n{text}\n"})
    assert where(found) == [("a.py", 2, kind)]
    assert found[0].message.startswith(start)


def test_more_than_three_distinct_characters_are_summed_up(repo: GitRepo) -> None:
    found = _invisible(repo, {"a.txt": "\u202a\u202b\u202c\u202d\u202e\n"})
    assert "U+202C POP DIRECTIONAL FORMATTING and 2 more at column 1:" in found[0].message


def test_one_line_with_several_kinds_gives_one_finding_per_kind(repo: GitRepo) -> None:
    found = _invisible(repo, {"a.txt": "a\u202eb\u200bc\n"})
    assert where(found) == [("a.txt", 1, "bidi-control"), ("a.txt", 1, "zero-width")]


@pytest.mark.parametrize(
    "text",
    [
        "plain ascii = 1",
        "greeting = 'héllo wörld'",
        "family = '\U0001f468\u200d\U0001f469\u200d\U0001f467'",  # an emoji sequence
        "persian = '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645'",  # ZWNJ inside Persian
        "arabic = '\u0627\u0644\u0639\u0631\u0628\u064a\u0629'",
    ],
)
def test_writing_is_not_hidden_text(repo: GitRepo, text: str) -> None:
    assert _invisible(repo, {"a.py": f"{text}\n"}) == []


def test_a_byte_order_mark_at_the_start_of_a_file_is_allowed(repo: GitRepo) -> None:
    assert _invisible(repo, {"a.cs": "\ufeffusing System;\n"}) == []


def test_only_added_lines_count_and_the_rule_is_always_on(repo: GitRepo) -> None:
    base = {"a.txt": "x\u202e\nkeep\n"}
    head = {"a.txt": "x\u202e\nkept\u200b\n"}
    change = change_of(repo, head, base)
    off = manifest("content:\n  secrets: false\n  dangerous: false\n  suppressions: false\n")
    assert where(scan(RULE, change, off)) == [("a.txt", 2, "zero-width")]


def test_documents_are_read_too(repo: GitRepo, tmp_path: Path) -> None:
    assert where(_invisible(repo, {"README.md": "See \u202eevil\n"})) == [("README.md", 1, "bidi-control")]


def test_test_vectors_in_json_escaped_stay_quiet_and_written_raw_fire(repo: GitRepo) -> None:
    """The shapes of encode/httpx@db9072f998:tests/models/whatwg.json (WHATWG's URL test vectors):
    an escape is text a reviewer can read; the character itself is invisible in a JSON string as
    anywhere, so it is reported (a test-vector file is excluded by path, not by content)."""
    escaped = '  {"input": "http://example.com/\\u202e/foo/\\u202d/bar"},\n  {"input": "a\\u200bb"},\n'
    raw = '  {"input": "http://example.com/\u202e/foo/\u202d/bar"},\n  {"input": "http://example.com/\ufeff/foo"},\n'
    found = _invisible(
        repo,
        {"tests/models/escaped.json": "[\n" + escaped + "]\n", "tests/models/raw.json": "[\n" + raw + "]\n"},
    )
    assert where(found) == [
        ("tests/models/raw.json", 2, "bidi-control"),
        ("tests/models/raw.json", 3, "zero-width"),
    ]

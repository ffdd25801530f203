from __future__ import annotations

import pytest

from bot.engine.gitpath import QuotedPathError, decode_bytes, read_quoted, split_git_header, unquote


@pytest.mark.parametrize(
    ("quoted", "plain"),
    [
        ('"a/\\303\\274 x.py"', "a/ü x.py"),
        ('"t\\tab"', "t\tab"),
        ('"new\\nline"', "new\nline"),
        ('"q\\"uote"', 'q"uote'),
        ('"back\\\\slash"', "back\\slash"),
        ('"\\a\\b\\v\\f\\r"', "\a\b\v\f\r"),
        ("plain name.py", "plain name.py"),
        ('"\\377"', "\\xff"),
    ],
)
def test_unquote(quoted: str, plain: str) -> None:
    assert unquote(quoted) == plain


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('"open', "missing closing quote"),
        ('"a\\q"', "unknown escape \\q"),
        ('"\\777"', "octal escape \\777 out of range"),
        ('"a" tail', "text after closing quote"),
    ],
)
def test_unquote_rejects(text: str, problem: str) -> None:
    with pytest.raises(QuotedPathError) as err:
        unquote(text)
    assert err.value.problem == problem
    assert repr(text) in str(err.value)


def test_read_quoted_needs_opening_quote() -> None:
    with pytest.raises(QuotedPathError, match="missing opening quote"):
        read_quoted("abc")


def test_read_quoted_returns_end() -> None:
    assert read_quoted('x "ab" rest', 2) == ("ab", 6)


def test_decode_bytes_keeps_undecodable_bytes_visible() -> None:
    assert decode_bytes(b"ok\xff") == "ok\\xff"


@pytest.mark.parametrize(
    ("rest", "expected"),
    [
        ("a/x.py b/x.py", ("x.py", "x.py")),
        ("a/dir/a b.py b/dir/a b.py", ("dir/a b.py", "dir/a b.py")),
        ("a/x b/y b/x b/y", ("x b/y", "x b/y")),
        ('"a/t\\tab" "b/t\\tab"', ("t\tab", "t\tab")),
        ('"a/t\\tab" b/plain', ("t\tab", "plain")),
        ('a/plain "b/t\\tab"', ("plain", "t\tab")),
        ("a/x.py b/y.py", None),
        ("a/ab b/ac", None),
        ('"a/x"b/y', None),
        ('a/x"', None),
        ("x", None),
    ],
)
def test_split_git_header(rest: str, expected: tuple[str, str] | None) -> None:
    assert split_git_header(rest) == expected

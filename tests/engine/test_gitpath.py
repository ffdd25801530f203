from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.engine.gitpath import (
    QuotedPathError,
    decode_bytes,
    display_path,
    path_label,
    read_quoted,
    split_git_header,
    unquote,
)


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
        ('"\\377"', "\udcff"),  # a byte that is not UTF-8 stays that byte (surrogateescape)
        ('"caf\\351"', "caf\udce9"),
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


def test_decode_bytes_keeps_undecodable_bytes_as_they_are() -> None:
    assert decode_bytes(b"ok\xff") == "ok\udcff"
    assert decode_bytes(b"ok\\xff") == "ok\\xff"  # a name that reads like an escape is another name
    assert decode_bytes(b"ok\xff").encode("utf-8", "surrogateescape") == b"ok\xff"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (b"src/app.py", "src/app.py"),
        ("src/ü x.py".encode(), "src/ü x.py"),
        (b"a\\b.py", "a\\b.py"),  # a backslash inside a name needs no quoting
        (b'a"b.py', 'a"b.py'),
        (b'"lead.py', '"\\"lead.py"'),  # a leading quote does: unquoted names never start with one
        (b"bad\xff.py", '"bad\\377.py"'),
        (b"t\tab\nnl\x7fdel", '"t\\tab\\nnl\\177del"'),
        (b"\a\b\v\f\r", '"\\a\\b\\v\\f\\r"'),
        (b"esc\x1b[0m", '"esc\\033[0m"'),
        ("rlo\u202e.txt".encode(), '"rlo\\342\\200\\256.txt"'),
        ("zw\u200b.py".encode(), '"zw\\342\\200\\213.py"'),
        ("ü".encode() + b"\xff", '"ü\\377"'),
        (b"\xed\xa0\x80", '"\\355\\240\\200"'),  # an encoded surrogate is not UTF-8 either
    ],
)
def test_display_path(raw: bytes, shown: str) -> None:
    name = decode_bytes(raw)
    assert display_path(name) == shown
    assert unquote(shown) == name
    assert unquote(shown).encode("utf-8", "surrogateescape") == raw


def test_display_path_of_text_no_file_name_can_hold() -> None:
    assert display_path("lone\ud800") == '"lone\\355\\240\\200"'
    assert path_label("src/a.py") == "'src/a.py'"
    assert path_label("bad\udcff") == '"bad\\377"'


@given(st.binary(max_size=40))
def test_display_path_is_lossless_and_printable(raw: bytes) -> None:
    shown = display_path(decode_bytes(raw))
    assert shown.isprintable()
    assert unquote(shown).encode("utf-8", "surrogateescape") == raw


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

from __future__ import annotations

import pytest

from bot.engine.lexing import lexicon_for
from bot.engine.tokens import (
    Tokenizer,
    TokenMode,
    is_python,
    line_lexed,
    parse_python,
    python_normalized,
    python_raw,
    python_tokens,
    words,
    words_raw,
)


def test_python_normalization_is_the_papers() -> None:
    # comments, quotes, spacing, wrapping and redundant parentheses all go; NEWLINE stays, the last is ""
    a = "x = ('a')  # note\nif x:\n    y = [1,\n         2]\n"
    b = 'x = "a"\nif x:\n    y = [1, 2]'
    assert python_normalized(a) == python_normalized(b)
    assert python_normalized(b) == (
        "x",
        "=",
        "'a'",
        "\n",
        "if",
        "x",
        ":",
        "\n",
        "y",
        "=",
        "[",
        "1",
        ",",
        "2",
        "]",
        "",
    )


def test_python_that_does_not_parse() -> None:
    assert python_normalized("def f(:\n") is None
    assert python_normalized("x = 1\x00\n") is None  # null byte: ValueError on 3.11
    assert python_tokens("def f(x y):\n    pass\n") == (
        "def",
        "f",
        "(",
        "x",
        "y",
        ")",
        ":",
        "\n",
        "pass",
        "\n",
    )
    assert python_tokens("x = (\n") is None  # EOF in a multi-line statement
    assert python_tokens("if x:\n        a\n    b\n") is None  # dedent to no known level


def test_unparse_too_deep_falls_back_to_the_tokenizer() -> None:
    source = "x = " + "+".join(["1"] * 600) + "\n"
    assert parse_python(source) is not None
    assert python_normalized(source) is None
    pair = Tokenizer().pair("deep.py", source, source.replace("1+1", "2", 1))
    assert pair.mode is TokenMode.TOKENIZED


def test_parsing_pull_request_code_is_quiet(recwarn: pytest.WarningsRecorder) -> None:
    assert parse_python('x = "\\d"\nif x is 1:\n    pass\n') is not None
    assert len(recwarn) == 0


def test_python_raw_keeps_everything_with_its_leading_whitespace() -> None:
    source = "def f():\n    x = 1  # c\n\n    return x\n"
    assert python_raw(source) == (
        "def", " f", "(", ")", ":", "\n", "    x", " =", " 1", "  # c", "\n", "\n", "    return", " x", "\n",
    )  # fmt: skip
    assert "".join(python_raw(source) or ()) == source
    assert python_raw("y = 1") == ("y", " =", " 1")  # the NEWLINE tokenize invents is not text
    assert python_raw('s = "a\\\n  b"\n') == ("s", " =", ' "a\\\n  b"', "\n")
    assert python_raw("x = (\n") is None


def test_other_languages_are_read_by_their_line_lexer() -> None:
    source = '#include <x.h>\n/* block */ int  main() { return s(" "); } // line\n'
    assert line_lexed(source, lexicon_for("a.c")) == (
        "#", "include", "<", "x", ".", "h", ">", "int", "main", "(", ")", "{",
        "return", "s", "(", '" "', ")", ";", "}",
    )  # fmt: skip
    assert line_lexed("a = 'x'  # note\nb\n", lexicon_for("run.sh")) == ("a", "=", "'x'", "b")


def test_hostile_text_is_read_in_linear_time() -> None:
    """Pygments' Makefile lexer took 69 s on one 40 KB line of `x `; its C# lexer seconds on 4 KB of
    one-letter lines. The line lexer reads both at once (a hang here is the failure)."""
    t = Tokenizer()
    assert t.pair("Makefile", "x " * 20_000, "x " * 20_001).mode is TokenMode.LEXED
    assert len(t.pair("a.cs", "a\n" * 20_000, "a\n" * 20_001).right) == 20_001
    assert t.pair("conf/site.conf", "<" * 40_000, "<" * 40_001).right.count("<") == 40_001


def test_prose_is_read_as_words() -> None:
    assert words("a  b\n c") == ("a", "b", "c")
    assert words_raw("a  b\n c \n") == ("a", "  b", "\n c")


def test_is_python() -> None:
    assert is_python("a/b.py")
    assert is_python("stubs/x.PYI")
    assert not is_python("setup.cfg")


def test_pairs_are_read_the_same_way_on_both_sides() -> None:
    t = Tokenizer()
    assert t.pair("a.py", "x = 1\n", "x = 2\n").mode is TokenMode.NORMALIZED
    # one side does not parse: both are read by the tokenizer alone
    broken = t.pair("a.py", "x = 1  # one\n", "x = = 2\n")
    assert broken.mode is TokenMode.TOKENIZED
    assert broken.left == ("x", "=", "1", "\n")
    assert broken.right == ("x", "=", "=", "2", "\n")
    # one side cannot even be tokenized: the line lexer for both
    lexed_pair = t.pair("a.py", "x = 1\n", 'x = """\n')
    assert lexed_pair.mode is TokenMode.LEXED
    assert lexed_pair.left == ("x", "=", "1")
    assert t.pair("a.c", "int x;", "int y;").mode is TokenMode.LEXED
    assert t.pair("NOTICE", "a b", "a c") == t.pair("NOTICE", "a b", "a c")
    assert t.pair("NOTICE", "a b", "a c").mode is TokenMode.WORDS


def test_raw_pairs() -> None:
    t = Tokenizer()
    assert t.raw_pair("a.py", "x = 1\n", "x=1\n") == (("x", " =", " 1", "\n"), ("x", "=", "1", "\n"))
    left, right = t.raw_pair("a.py", "x = 1\n", "x = (\n")
    assert left == ("x", " =", " 1")  # words as written for both; trailing whitespace is dropped
    assert right[-1] == " ("
    assert t.raw_pair("a.c", "int x;", "int  x;") == (("int", " x;"), ("int", "  x;"))
    assert t.raw_pair("NOTICE", "a b", "a  b") == (("a", " b"), ("a", "  b"))


def test_tokenizer_reads_each_text_once() -> None:
    t = Tokenizer()
    base = "def f():\n    return 1\n"
    first = t.pair("a.py", base, "def f():\n    return 2\n")
    second = t.pair("a.py", base, "def f():\n    return 3\n")
    assert first.left is second.left

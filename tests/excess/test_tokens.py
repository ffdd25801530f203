from __future__ import annotations

import pytest

from bot.engine.lexing import lexicon_for
from bot.engine.tokens import (
    Tokenizer,
    TokenMode,
    Written,
    is_python,
    line_lexed,
    line_lexed_raw,
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


def _pieces(written: Written | None) -> tuple[str, ...]:
    """Each token with the whitespace before it, as the text had them."""
    assert written is not None
    return tuple(gap + token for gap, token in zip(written.gaps, written.tokens, strict=True))


def test_python_raw_keeps_everything_and_the_whitespace_before_each_token() -> None:
    source = "def f():\n    x = 1  # c\n\n    return x\n"
    written = python_raw(source)
    assert written is not None
    assert written.tokens == (
        "def", "f", "(", ")", ":", "\n", "x", "=", "1", "# c", "\n", "return", "x", "\n", "",
    )  # fmt: skip
    assert written.gaps[6] == "    " and written.gaps[11] == "\n    "  # a blank line is whitespace
    assert "".join(_pieces(written)) == source
    assert _pieces(python_raw("y = 1")) == ("y", " =", " 1", "")  # the NEWLINE tokenize invents is not text
    assert _pieces(python_raw("y = 1  ")) == ("y", " =", " 1", "  ")  # trailing blanks are the last gap
    assert _pieces(python_raw('s = "a\\\n  b"\n')) == ("s", " =", ' "a\\\n  b"', "\n", "")
    assert _pieces(python_raw("x = [1,\n  2]  # c\n")) == (
        "x",
        " =",
        " [",
        "1",
        ",",
        "\n  2",
        "]",
        "  # c",
        "\n",
        "",
    )
    assert python_raw("x = (\n") is None


def test_other_languages_are_read_by_their_line_lexer() -> None:
    source = '#include <x.h>\n/* block */ int  main() { return s(" "); } // line\n'
    assert line_lexed(source, lexicon_for("a.c")) == (
        "#", "include", "<", "x", ".", "h", ">", "int", "main", "(", ")", "{",
        "return", "s", "(", '" "', ")", ";", "}",
    )  # fmt: skip
    raw = line_lexed_raw(source, lexicon_for("a.c"))  # as written: comments whole, strings as quoted
    assert "/* block */" in raw.tokens
    assert "// line" in raw.tokens
    assert raw.gaps[raw.tokens.index("main")] == "  "
    assert "".join(_pieces(raw)) == source
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
    assert words_raw("a  b\n c \n") == Written(("a", "b", "c", ""), ("", "  ", "\n ", " \n"))


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


def test_written_pairs() -> None:
    t = Tokenizer()
    left, right = t.written_pair("a.py", "x = 1\n", "x=1\n")
    assert (_pieces(left), _pieces(right)) == (("x", " =", " 1", "\n", ""), ("x", "=", "1", "\n", ""))
    left, right = t.written_pair("a.py", "x = 1\n", "x = (\n")
    assert _pieces(left) == ("x", " =", " 1", "\n")  # the line lexer for both
    assert _pieces(right) == ("x", " =", " (", "\n")
    left, right = t.written_pair("a.c", "int x;", "int  x;")
    assert (_pieces(left), _pieces(right)) == (("int", " x", ";", ""), ("int", "  x", ";", ""))
    assert t.written_pair("NOTICE", "a b", "a  b") == (
        Written(("a", "b", ""), ("", " ", "")),
        Written(("a", "b", ""), ("", "  ", "")),
    )
    assert t.written_pair("a.py", "x = 1\n", "y\n")[0] is t.written_pair("b.py", "x = 1\n", "z\n")[0]


def test_tokenizer_reads_each_text_once() -> None:
    t = Tokenizer()
    base = "def f():\n    return 1\n"
    first = t.pair("a.py", base, "def f():\n    return 2\n")
    second = t.pair("a.py", base, "def f():\n    return 3\n")
    assert first.left is second.left

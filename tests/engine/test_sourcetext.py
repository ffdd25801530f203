from __future__ import annotations

from bot.engine.sourcetext import declared_encoding, language_lines, read_lines, read_text, shown


def test_declared_encoding_reads_the_first_two_lines_as_python_does() -> None:
    assert declared_encoding("#!/bin/python\r# coding: utf-7\n") is not None  # CR ends line 1
    assert declared_encoding("x = 1\n# coding: utf-7\n") is None
    found = declared_encoding("\n# -*- coding: Latin-1 -*-\n")
    assert found is not None and (found.line, found.codec, found.utf8) == (2, "iso8859-1", False)


def test_language_lines_map_every_line_back_to_its_diff_line() -> None:
    text, numbers = language_lines(["a\rb\rc", "d\r", "e\u2028f"], [3, 4, 5], "python")
    assert text.split("\n") == ["a\r", "b\r", "c", "d\r", "e\u2028f"]
    assert list(numbers) == [3, 3, 3, 4, 5]
    text, numbers = language_lines(["a\u2028b", "c\u2029\rd"], range(1, 3), "javascript")
    assert text.split("\n") == ["a\u2028", "b", "c\u2029", "\r", "d"]
    assert list(numbers) == [1, 1, 2, 2, 2]
    same = range(1, 3)
    assert language_lines(["a\rb", "c"], same, "shell") == ("a\rb\nc", same)


def test_bytes_kept_as_surrogate_escapes_reach_the_declared_codec() -> None:
    data = '# coding: shift_jis\ns = "表"\n'.encode("shift_jis")
    text = data.decode("utf-8", "surrogateescape")
    declared = declared_encoding(text)
    assert read_text(text, "python", declared)[0] == '# coding: shift_jis\ns = "表"\n'
    assert read_text(text, "python")[0] == '# coding: shift_jis\ns = "\ufffd\\"\n'


def test_a_lone_surrogate_given_as_text_stands_for_no_byte_of_the_file() -> None:
    """Text given as text (not decoded from bytes) may hold a surrogate no byte stands for: the
    codec reads its own code, which no text encoding decodes."""
    declared = declared_encoding("# coding: utf-7\n")
    assert read_lines(["x = '\ud800' +AGE-"], [2], "python", declared)[0] == "x = '\ufffd\ufffd\ufffd' a"


def test_shown_text_is_the_text_itself_unless_a_byte_is_not_utf8() -> None:
    assert shown("plain ascii") == "plain ascii"
    assert shown("naïve 表") == "naïve 表"
    assert shown(b"a\x95b\xff".decode("utf-8", "surrogateescape")) == "a\ufffdb\ufffd"

from __future__ import annotations

from bot.engine.sourcetext import declared_encoding, language_lines


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

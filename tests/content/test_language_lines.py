"""Content rules read a file's text as its language does: the declared source encoding of a Python
file (PEP 263), and each language's own line terminators (a lone CR in Python; CR, U+2028 and U+2029
in JavaScript), with every finding placed on the diff's line that holds it."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.engine import sourcetext
from bot.engine.change import change_from_diff
from bot.engine.content.banned import BannedPatternsRule
from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.secrets import SecretsRule
from bot.engine.content.suppressions import SuppressionsRule
from bot.engine.findings import Violation
from bot.engine.locality import evaluate_locality
from bot.local.check import resolve_revisions
from bot.local.git import Git
from tests.content.helpers import change_of, checksummed, commit_change, manifest, scan, where
from tests.gitrepo import GitRepo

DANGEROUS = DangerousRule()


def _dangerous(
    repo: GitRepo, head: dict[str, str | bytes], base: dict[str, str | bytes] | None = None, **kw: bool
) -> list[Violation]:
    change = change_of(repo, head, base, **kw)
    found = scan(DANGEROUS, change)
    assert found == scan(DangerousRule(parse_whole_files=True), change)
    return found


@pytest.mark.parametrize(
    "line",
    [
        "x = 1\reval(y)",
        "# a comment\reval(y)",
        "x = 'eval(y)'\reval(y)",
        "import os\ros.system(cmd)",
    ],
)
@pytest.mark.parametrize("texts", [True, False])
def test_a_lone_carriage_return_ends_a_python_line(repo: GitRepo, line: str, texts: bool) -> None:
    found = _dangerous(repo, {"new.py": f"a = 0\n{line}\nb = 2\n"}, texts=texts)
    assert [(p, n) for p, n, _ in where(found)] == [("new.py", 2)]


def test_a_carriage_return_in_a_modified_file_is_placed_on_its_diff_line(repo: GitRepo) -> None:
    base = {"app.py": "import os\n\n\ndef run(cmd):\n    return 0\n"}
    head = {"app.py": "import os\n\n\ndef run(cmd):\n    # fine\r    os.system(cmd)\n    return 0\n"}
    assert where(_dangerous(repo, head, base)) == [("app.py", 5, "python-os-system")]


def test_crlf_files_are_read_as_before(repo: GitRepo) -> None:
    found = _dangerous(repo, {"w.py": "import os\r\n# os.system(x)\r\nos.system(cmd)\r\n"})
    assert where(found) == [("w.py", 3, "python-os-system")]


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\r"])
@pytest.mark.parametrize("texts", [True, False])
def test_javascript_line_terminators_end_a_comment(repo: GitRepo, separator: str, texts: bool) -> None:
    source = f"const a = 1;\n// a comment{separator}eval(input);\n"
    found = _dangerous(repo, {"web/app.js": source}, texts=texts)
    assert where(found) == [("web/app.js", 2, "js-eval")]


@given(
    st.text(st.sampled_from(["a", "\r", "\n", "\u2028", "\u2029", "\x85"]), max_size=8),
    st.sampled_from(["python", "javascript", "markup", "shell", "document"]),
)
def test_a_text_has_breaks_where_its_language_pattern_finds_one(text: str, language: str) -> None:
    """`has_breaks` looks for each pattern's first characters before running it: the same answer."""
    pattern = sourcetext._BREAKS.get(language)
    assert sourcetext.has_breaks(text, language) == (pattern is not None and pattern.search(text) is not None)


def test_u2028_is_no_line_break_in_python_nor_cr_in_shell(repo: GitRepo) -> None:
    # Python strings may hold U+2028; a shell reads CR as part of a word (in a comment here).
    files: dict[str, str | bytes] = {
        "a.py": "x = '\u2028 eval(y)'\n",
        "s.sh": '# note\r eval "$x"\n',
    }
    assert _dangerous(repo, files) == []


def test_a_marker_after_a_line_break_is_no_longer_inside_the_comment(repo: GitRepo) -> None:
    change = change_of(
        repo, {"test_a.py": "import pytest\n# reason\r@pytest.mark.skip\ndef test_x(): pass\n"}
    )
    assert where(scan(SuppressionsRule(), change)) == [("test_a.py", 2, "pytest-skip")]


def test_a_banned_pattern_anchored_at_line_start_sees_the_languages_lines(repo: GitRepo) -> None:
    policy = manifest("content:\n  banned:\n    - id: no-requests\n      pattern: '^import requests'\n")
    change = change_of(repo, {"a.py": "x = 1\rimport requests\n", "b.sh": "x=1\rimport requests\n"})
    assert where(scan(BannedPatternsRule(), change, policy)) == [("a.py", 1, "no-requests")]


@pytest.mark.parametrize(("path", "separator"), [("conf.py", "\r"), ("conf.js", "\u2028")])
def test_a_secret_is_not_allowlisted_by_text_on_the_next_language_line(
    repo: GitRepo, path: str, separator: str
) -> None:
    # gitleaks allowlists generic-api-key on a line holding `--mount=type=secret,`: that text sits
    # on the next line of the language, not on the line of the key.
    line = f'api_secret = "Xk9fQ2mZpL7aB3cD8eF1"{separator}"--mount=type=secret,"'
    found = scan(SecretsRule(), change_of(repo, {path: f"{line}\n"}))
    assert where(found) == [(path, 1, "generic-api-key")]


def test_the_logical_line_count_sees_code_after_a_carriage_return(repo: GitRepo) -> None:
    commit_change(
        repo, {"a.py": "# one\r eval(y)\n", "b.js": "// two\u2028eval(y)\n", "c.py": "# only a comment\r\n"}
    )
    git = Git.open(repo.root)
    revisions = resolve_revisions(git, "main", "pr")
    diff = change_from_diff(git.diff(revisions.merge_base, revisions.head)).diff
    measures = {m.file.path: m.logical_lines for m in evaluate_locality(diff, manifest()).measures}
    assert measures == {"a.py": 1, "b.js": 1, "c.py": 0}


# PEP 263: the declared encoding is how Python reads the file.


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("# -*- coding: utf-7 -*-\n+AGUAdgBhAGw-(x)\n", 2),
        ("#!/usr/bin/env python\n# vim: set fileencoding=utf_7 :\nimport os\nos.+AHM-ystem(cmd)\n", 4),
        ("# coding=unicode_escape\n\\x65val(x)\n", 2),
        ("# coding: utf-7\nx = 1+AAo-eval(x)\n", 2),
    ],
)
def test_a_declared_encoding_decodes_the_file_before_it_is_read(
    repo: GitRepo, source: str, line: int
) -> None:
    found = _dangerous(repo, {"hidden.py": source})
    ids = {(n, i) for _, n, i in where(found)}
    declared = 2 if source.startswith("#!") else 1
    assert (declared, "python-source-encoding") in ids
    assert any(n == line and i in {"python-eval", "python-os-system"} for n, i in ids), ids


def test_a_declared_encoding_also_decodes_secrets(repo: GitRepo) -> None:
    token = checksummed("ghp", "A" * 4 + "b" * 26)
    encoded = token.encode("utf-7").decode("ascii")
    hidden = "+AGc-" + encoded[1:] if encoded == token else encoded
    source = f"# coding: utf-7\nTOKEN = '{hidden}'\n"
    found = scan(SecretsRule(), change_of(repo, {"t.py": source}))
    assert [(n, i.startswith("github")) for _, n, i in where(found)] == [(2, True)]


@pytest.mark.parametrize(
    "declaration", ["# -*- coding: latin-1 -*-", "# coding: cp1252", "# coding: no-such-codec"]
)
def test_any_encoding_other_than_utf8_is_a_finding_of_its_own(repo: GitRepo, declaration: str) -> None:
    found = _dangerous(repo, {"legacy.py": f"{declaration}\nx = 1\n"})
    assert where(found) == [("legacy.py", 1, "python-source-encoding")]
    assert "Save the file as UTF-8" in found[0].message
    assert "content.dangerous: false" in found[0].message


@pytest.mark.parametrize(
    "source",
    [
        "# -*- coding: utf-8 -*-\nx = 1\n",
        "# coding: UTF8\nx = 1\n",
        "# coding=utf-8-sig\n",
        "# vim: set fileencoding=utf-8-unix :\n",
        "# coding: ascii\n",
        "# coding: us-ascii\n",
        "x = 1\n# coding: utf-7\n",  # after code: no declaration
        "\n\n# coding: utf-7\n",  # third line: no declaration
        "s = '# coding: utf-7'\n",
    ],
)
def test_utf8_declarations_and_lines_that_declare_nothing_stay_quiet(repo: GitRepo, source: str) -> None:
    assert _dangerous(repo, {"ok.py": source}) == []


def test_an_encoding_declared_before_the_change_is_not_reported_again(repo: GitRepo) -> None:
    base = {"old.py": "# coding: latin-1\nx = 1\n"}
    head = {"old.py": "# coding: latin-1\nx = 2\n"}
    assert _dangerous(repo, head, base) == []


@pytest.mark.parametrize("separator", ["\x0c", "\x0b", "\x1c", "\x85"])
def test_a_form_feed_and_other_splitlines_breaks_end_no_python_comment(repo: GitRepo, separator: str) -> None:
    """CPython's tokenizer ends a line at LF, CR and CRLF only: a form feed (whitespace that resets
    indentation at a line's start), a vertical tab, U+001C and NEL are part of the comment, though
    `str.splitlines` breaks at them. The interpreter runs nothing after them."""
    source = f"x = 1  # note{separator}eval(y)\n"
    assert len(ast.parse(source).body) == 1  # the assignment alone: eval(y) is the comment's
    assert _dangerous(repo, {"a.py": source}) == []


# A legacy encoding's bytes reach the declared codec as they are: Shift_JIS writes 表, ソ, 能 and 十
# with 0x5C (a backslash in ASCII) as their second byte, so a reading that lost the first byte would
# see a backslash escape the quote that ends the string.
_SJIS_BASE = {"legacy.py": "# -*- coding: shift_jis -*-\nx = 1\n"}


def _sjis(*lines: str) -> dict[str, str | bytes]:
    return {"legacy.py": ("# -*- coding: shift_jis -*-\nx = 1\n" + "".join(lines)).encode("shift_jis")}


@pytest.mark.parametrize(
    "line",
    [
        's = "表"; eval(y)  # "\n',
        "s = 'ソ'; eval(y)  # '\n",
        's = """能"""; eval(y)  # """\n',
        's = f"{a}十"; eval(y)  # "\n',
        'call("予", eval(y))  # "\n',
    ],
)
@pytest.mark.parametrize("texts", [True, False])
def test_a_second_byte_that_is_a_backslash_ends_no_string(repo: GitRepo, line: str, texts: bool) -> None:
    found = _dangerous(repo, _sjis(line), _SJIS_BASE, texts=texts)
    assert where(found) == [("legacy.py", 3, "python-eval")]


@pytest.mark.parametrize(
    "line",
    [
        's = "表" + "eval(y)"  # "\n',
        "s = 'ソ' + 'eval(y)'  # '\n",
        's = ["能", "eval(y)", ""]\n',
    ],
)
@pytest.mark.parametrize("texts", [True, False])
def test_a_second_byte_that_is_a_backslash_opens_no_code(repo: GitRepo, line: str, texts: bool) -> None:
    assert _dangerous(repo, _sjis(line), _SJIS_BASE, texts=texts) == []


@pytest.mark.parametrize("texts", [True, False])
def test_a_new_shift_jis_file_is_reported_and_read_with_its_codec(repo: GitRepo, texts: bool) -> None:
    source = '# -*- coding: shift_jis -*-\ns = "表"; eval(y)  # "\nt = "ソ" + "eval(z)"  # "\n'
    found = _dangerous(repo, {"new.py": source.encode("shift_jis")}, texts=texts)
    assert where(found) == [("new.py", 1, "python-source-encoding"), ("new.py", 2, "python-eval")]


@pytest.mark.parametrize("texts", [True, False])
def test_bytes_that_are_not_utf8_read_as_before_without_a_declaration(repo: GitRepo, texts: bool) -> None:
    """Without a declaration Python reads UTF-8 (a byte that is not is a syntax error): the scan
    reads each such byte as U+FFFD, as the text is shown."""
    source = b'import os\ns = "\x95\xfe"; os.system(y)\nt = "\xe3\x81"; eval(z)\n'
    found = _dangerous(repo, {"plain.py": source}, texts=texts)
    assert where(found) == [("plain.py", 2, "python-os-system"), ("plain.py", 3, "python-eval")]

"""JavaScript's suppression markers read by its lexer (`jsread.py`): a comment marker counts only
in a real comment, a marker that is code only in code, however comments, strings, template
literals and regular expressions fall over lines; in markup, in its JavaScript only. Positions are
the diff's lines."""

from __future__ import annotations

import pytest

from bot.engine.change import FileTexts, change_from_diff
from bot.engine.content.suppressions import SuppressionsRule
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = SuppressionsRule()

_COMMENTS = [
    ("// eslint-disable-next-line no-eval", "eslint-disable"),
    ("/* eslint-disable */", "eslint-disable"),
    ('/* eslint no-eval: "off" */', "eslint-disable"),
    ("// @ts-ignore", "ts-ignore"),
    ("// @ts-expect-error", "ts-ignore"),
    ("// @ts-nocheck", "ts-ignore"),
    ("/* istanbul ignore next */", "pragma-no-cover"),
    ("/* c8 ignore next */", "pragma-no-cover"),
    ("// biome-ignore lint: x", "lint-ignore"),
]


def _found(repo: GitRepo, path: str, source: str, **kw: bool) -> list[tuple[str, int | None, str]]:
    return where(scan(RULE, change_of(repo, {path: source}, **kw)))


@pytest.mark.parametrize("texts", [True, False])
@pytest.mark.parametrize(("comment", "marker_id"), _COMMENTS)
def test_a_marker_in_a_real_comment_fires(repo: GitRepo, comment: str, marker_id: str, texts: bool) -> None:
    source = f'const s = "it\'s /";\nx = a / b; {comment}\n'
    assert _found(repo, "a.ts", source, texts=texts) == [("a.ts", 2, marker_id)]


@pytest.mark.parametrize(("comment", "_marker_id"), _COMMENTS)
@pytest.mark.parametrize(
    "template",
    [
        'const s = "{}";\n',
        "const s = '{}';\n",
        "const t = `\n{}\n`;\n",  # a template literal's line of its own
        "const t = `${{a}}\n  {}`;\n",
        "const r = /{}/;\n",
    ],
)
def test_a_marker_in_a_string_template_or_regular_expression_is_quiet(
    repo: GitRepo, comment: str, _marker_id: str, template: str
) -> None:
    written = comment.replace("/", "\\/") if template.startswith("const r") else comment
    assert _found(repo, "a.js", "x = 1;\n" + template.replace("{}", written, 1)) == []


@pytest.mark.parametrize(
    ("source", "line", "marker_id"),
    [
        ("x = s.split(/'/); it.skip('a', () => {});\n", 1, "js-skip"),
        ('x = /"/.test(s); test.only("a", () => {});\n', 1, "js-only"),
        ("const t = `\n* a`; it.only('x', f);\n", 2, "js-only"),  # a template line starting with `*`
        ("/* a\n * b */ xit('x', f);\n", 2, "js-skip"),
        ("const t = `a\n'`; describe.skip('x', f);\n", 2, "js-skip"),
    ],
)
def test_a_marker_that_is_code_is_found_after_what_hides_it_from_a_line_reader(
    repo: GitRepo, source: str, line: int, marker_id: str
) -> None:
    assert _found(repo, "a.test.js", source) == [("a.test.js", line, marker_id)]


@pytest.mark.parametrize(
    "source",
    [
        "const t = `\n  it.skip('x', f);\n`;\n",
        "/*\n  it.only('x', f);\n*/\n",
        "const r = /it.skip\\(/;\n",
        "const s = 'a\\\n  test.only(x)';\n",
    ],
)
def test_a_marker_that_is_code_is_quiet_in_text(repo: GitRepo, source: str) -> None:
    assert _found(repo, "a.test.js", source) == []


@pytest.mark.parametrize("path", ["web/a.html", "web/A.vue", "web/A.svelte", "web/a.astro"])
def test_in_markup_only_its_javascript_is_read(repo: GitRepo, path: str) -> None:
    source = (
        "<p>// eslint-disable and it.skip('x') are words here</p>\n"
        "<pre>/* istanbul ignore next */</pre>\n"
        "<script>\n"
        "const s = '// @ts-ignore';\n"
        "// @ts-ignore\n"
        "x();\n"
        "</script>\n"
    )
    assert _found(repo, path, source) == [(path, 5, "ts-ignore")]


def test_lines_split_by_javascript_separators_map_back_to_the_diff(repo: GitRepo) -> None:
    source = "const a = 1;\u2028// @ts-ignore\nconst s = '\u2028// @ts-ignore';\nb();\r// @ts-nocheck\n"
    assert _found(repo, "a.ts", source) == [("a.ts", 1, "ts-ignore"), ("a.ts", 3, "ts-ignore")]


def test_the_removed_side_is_read_by_the_lexer_too(repo: GitRepo) -> None:
    base = {"a.js": 'const s = "// eslint-disable-line";\nx();\n'}
    head = {"a.js": "const s = 1;\nx(); // eslint-disable-line\n"}
    assert where(scan(RULE, change_of(repo, head, base))) == [("a.js", 2, "eslint-disable")]


def test_a_secret_scanners_marker_counts_anywhere_on_its_line(repo: GitRepo) -> None:
    source = 'const key = "AKIA...";  const note = "gitleaks:allow";\n'
    assert _found(repo, "a.js", source) == [("a.js", 1, "gitleaks-allow")]


def test_without_the_new_text_a_hunk_is_read_alone(repo: GitRepo) -> None:
    base = {"a.js": "x = 1;\n"}
    head = {"a.js": "x = 1;\nconst s = '// @ts-ignore'; // @ts-nocheck\n"}
    assert where(scan(RULE, change_of(repo, head, base, texts=False))) == [("a.js", 2, "ts-ignore")]


@pytest.mark.parametrize(
    "head",
    [
        "/*\nconst s = '// @ts-ignore'; // @ts-nocheck\n",  # its line is not the hunk's
        "/*",  # it is shorter than the hunk says
        "/*\rx",  # ... also in the lines JavaScript reads
    ],
)
def test_a_hunk_a_new_text_does_not_hold_as_it_is_is_read_alone(head: str) -> None:
    diff = (
        b"diff --git a/a.js b/a.js\n--- a/a.js\n+++ b/a.js\n@@ -1 +1,2 @@\n"
        b" /*\n+const s = '// @ts-ignore'; // @ts-nocheck\n"
    )
    texts = {("a.js", "a.js"): FileTexts(base=None, head=head.replace("@ts-nocheck", "changed"))}
    assert where(scan(RULE, change_from_diff(diff, texts))) == [("a.js", 2, "ts-ignore")]

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import pytest

from bot.engine.content.unicode import InvisibleUnicodeRule
from bot.engine.content.unicode import _invisible as invisible_pattern
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


@pytest.mark.parametrize(
    ("text", "kind", "start"),
    [
        ("if access\u200e == 'admin':", "bidi-control", "U+200E LEFT-TO-RIGHT MARK at column 10:"),
        ("x = 'a\u200f'", "bidi-control", "U+200F RIGHT-TO-LEFT MARK at column 7:"),
        ("x = 1\u061c", "bidi-control", "U+061C ARABIC LETTER MARK at column 6:"),
        ("\u3164 = 'hidden'", "filler", "U+3164 HANGUL FILLER at column 1:"),
        ("user\u115f = 1", "filler", "U+115F HANGUL CHOSEONG FILLER at column 5:"),
        ("user\u1160 = 1", "filler", "U+1160 HANGUL JUNGSEONG FILLER at column 5:"),
        ("if x\uffa0 == 1:", "filler", "U+FFA0 HALFWIDTH HANGUL FILLER at column 5:"),
        ("name = 'ad\u00admin'", "zero-width", "U+00AD SOFT HYPHEN at column 11:"),
        ("y = a\u2061b", "zero-width", "U+2061 FUNCTION APPLICATION at column 6:"),
        ("y = a\u2062b\u2063c\u2064", "zero-width", "3 characters: U+2062 INVISIBLE TIMES, "),
        ("admin\u034f = 1", "zero-width", "U+034F COMBINING GRAPHEME JOINER at column 6:"),
        ("admin\ufe0f = 1", "zero-width", "U+FE0F VARIATION SELECTOR-16 at column 6:"),
        ("admin\U000e0100 = 1", "zero-width", "U+E0100 VARIATION SELECTOR-17 at column 6:"),
        ("x = '\u17b4'", "zero-width", "U+17B4 KHMER VOWEL INHERENT AQ at column 6:"),
        ("x = 1\u206a", "zero-width", "U+206A INHIBIT SYMMETRIC SWAPPING at column 6:"),
        ("x = '\ufff0'", "zero-width", "U+FFF0 unassigned at column 6:"),
    ],
)
def test_every_character_that_renders_as_nothing_fires(
    repo: GitRepo, text: str, kind: str, start: str
) -> None:
    found = _invisible(repo, {"a.py": f"first = 1\n{text}\n"})
    assert where(found) == [("a.py", 2, kind)]
    assert found[0].message.startswith(start)


@pytest.mark.parametrize(
    "text",
    [
        "hebrew = '\u05e9\u05dc\u05d5\u05dd\u200f\u05e2\u05d5\u05dc\u05dd'",  # a mark inside Hebrew
        "heart = '\u2764\ufe0f'",  # an emoji presentation selector
        "keycap = '1\ufe0f\u20e3'",  # a keycap emoji
        "ideograph = '\u845b\U000e0100'",  # an ideographic variation sequence
        "scotland = '\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f'",
        "old_hangul = '\u115f\u1161'",  # a syllable with a filler initial: a visible vowel
        "old_hangul = '\u1100\u1160'",  # a syllable with a filler vowel: a visible consonant
        "braille = '\u2800\u2801'",  # blank braille renders as a blank cell, and is no identifier
        "space = 'a\u3000b'",  # an ideographic space is visibly a space
        "mongolian = '\u182d\u180b'",  # a free variation selector after a Mongolian letter
    ],
)
def test_writing_that_uses_invisible_characters_is_left_alone(repo: GitRepo, text: str) -> None:
    assert _invisible(repo, {"a.py": f"{text}\n"}) == []


@pytest.mark.parametrize(
    "text",
    [
        "flag = '\U0001f3f4\U000e0069\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065\U000e0020"
        "\U000e0061\U000e006c\U000e006c\U000e007f'",  # a tag payload dressed as a flag
        "flag = '\U0001f3f4\U000e0067\U000e0062'",  # a flag sequence that never ends
        "x = '\u115f\u1160'",  # two fillers: nothing at all
    ],
)
def test_invisible_text_dressed_as_writing_still_fires(repo: GitRepo, text: str) -> None:
    assert len(_invisible(repo, {"a.py": f"{text}\n"})) == 1


@pytest.mark.parametrize(
    ("path", "text", "column", "scripts", "letter"),
    [
        ("a.py", "if p\u0430ypal_user:", 4, "Latin and Cyrillic", "U+0430 CYRILLIC SMALL LETTER A"),
        ("a.py", "user_\u0430 = evil", 1, "Latin and Cyrillic", "U+0430 CYRILLIC SMALL LETTER A"),
        ("a.py", "def is_\u0391dmin(): pass", 5, "Latin and Greek", "U+0391 GREEK CAPITAL LETTER ALPHA"),
        ("a.py", "t\u03bfken = 1", 1, "Latin and Greek", "U+03BF GREEK SMALL LETTER OMICRON"),
        ("a.py", "x = \u0441\u043e\u03c1\u0443", 5, "Cyrillic and Greek", "U+03C1 GREEK SMALL LETTER RHO"),
        ("a.py", "hel\u0585 = 1", 1, "Latin and Armenian", "U+0585 ARMENIAN SMALL LETTER OH"),
        ("a.js", "const \u13a0ata = 1;", 7, "Latin and Cherokee", "U+13A0 CHEROKEE LETTER A"),
        (
            "a.ts",
            "if (isAdm\u0456n) {}",
            5,
            "Latin and Cyrillic",
            "U+0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I",
        ),
        ("a.py", "ｐ\u0430y = 1", 1, "Latin and Cyrillic", "U+0430 CYRILLIC SMALL LETTER A"),
    ],
)
def test_identifiers_that_mix_scripts_fire(
    repo: GitRepo, path: str, text: str, column: int, scripts: str, letter: str
) -> None:
    found = _invisible(repo, {path: f"first = 1\n{text}\n"})
    assert where(found) == [(path, 2, "mixed-script")]
    message = found[0].message
    assert f"at column {column}:" in message
    assert f"mixes {scripts} letters" in message
    assert letter in message


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("a.py", "\u043f\u0440\u0438\u0432\u0435\u0442 = 'hello'"),  # a Russian identifier
        ("a.py", "\u03bb = lambda x: x"),  # a Greek identifier
        ("a.py", "\u0394t = t1 - t0"),  # Greek that looks like no Latin letter, beside Latin
        ("a.py", "\u03c3_x, d\u03b8 = 1, 2"),
        ("a.py", "msg = 'Привет, world'  # комментарий по-русски"),
        ("a.py", 'greeting = "\u0441\u0435\u0440\u0432\u0435\u0440 ok"'),
        ("a.py", "caf\u00e9 = na\u00efve = 1"),  # Latin letters outside ASCII are Latin
        ("a.py", "\u7528\u6237name = 1"),  # Han beside Latin is nobody's look-alike
        ("a.js", "// \u043f\u0440\u043e\u0432\u0435\u0440\u043a\u0430 user input"),
        ("a.js", "const s = `\u0442\u0435\u043a\u0441\u0442 ${a}`;"),
        ("a.txt", "p\u0430ypal"),  # not code
        ("README.md", "p\u0430ypal"),
    ],
)
def test_single_script_identifiers_and_text_in_strings_are_left_alone(
    repo: GitRepo, path: str, text: str
) -> None:
    assert _invisible(repo, {path: f"{text}\n"}) == []


@pytest.mark.parametrize(
    ("path", "text", "rule_id", "reads_as"),
    [
        ("a.py", "def f(\u0430): return \u0430", "lookalike-script", "'a'"),  # a Cyrillic `а`
        ("a.py", "\u0435\u0445\u0435\u0441 = None", "lookalike-script", "'exec'"),
        ("a.py", "\u0421\u041e\u041d\u0422\u0415\u0425\u0422 = 1", "lookalike-script", "'COHTEXT'"),
        ("a.py", "\u03c1\u03bf = 1", "lookalike-script", "'po'"),  # two Greek letters: no formula
        ("a.js", "const \u0430 = 1;", "lookalike-script", "'a'"),
        ("a.py", "\uff45\uff56\uff41\uff4c = print", "nfkc-identifier", "'eval'"),  # fullwidth
        ("a.py", "\ufb01le = 1", "nfkc-identifier", "'file'"),  # a ligature
        ("a.py", "\U0001d41e\U0001d42f\U0001d41a\U0001d425 = 1", "nfkc-identifier", "'eval'"),  # math bold
        ("a.py", "class \u2160: pass", "nfkc-identifier", "'I'"),  # a Roman numeral
        ("a.py", "__import\uff3f\uff3f = 1", "nfkc-identifier", "'__import__'"),  # fullwidth low lines
    ],
)
def test_identifiers_that_pass_for_another_name_fire(
    repo: GitRepo, path: str, text: str, rule_id: str, reads_as: str
) -> None:
    found = _invisible(repo, {path: f"first = 1\n{text}\n"})
    assert set(where(found)) == {(path, 2, rule_id)}
    assert reads_as in found[0].message


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("a.py", "\u03c1 = m / V"),  # a lone Greek letter is mathematics
        ("a.py", "\u03bd = c / \u03bb"),
        ("a.py", "\u00b5 = 1e-6"),  # the micro sign normalizes to Greek mu, not to ASCII
        ("a.py", "\u043f\u0440\u0438\u0432\u0435\u0442 = 1"),  # Russian letters that pass for none
        ("a.py", "x = '\u0430'  # \u0435\u0445\u0435\u0441"),  # strings and comments are text
        ("a.js", "const \uff45val = 1;"),  # JavaScript does not normalize names
        ("a.txt", "\u0435\u0445\u0435\u0441"),
    ],
)
def test_names_that_pass_for_nothing_else_are_left_alone(repo: GitRepo, path: str, text: str) -> None:
    assert _invisible(repo, {path: f"{text}\n"}) == []


def test_a_docstring_spanning_lines_is_text(repo: GitRepo) -> None:
    source = 'def f():\n    """Docstring.\n\n    Пример: pаypal\n    """\n'
    assert _invisible(repo, {"a.py": source}) == []


@pytest.mark.parametrize(
    "text",
    [
        "x = '\u00e9\ufe0f'",  # a variation selector after a Latin letter selects nothing
        "x = 'a\ufe0f\u20e3'",  # only a digit, # or * makes a keycap
        "x = '\u200fadmin'",  # a mark at the start of a string, beside no right-to-left letter
        "\u180bx = 1",
        "x = '\u034fa'",
        "x = 'a\u034f'",
        "flag = '\U0001f3f4\U000e0041\U000e0042\U000e007f'",  # capital tags spell no flag
    ],
)
def test_invisible_characters_beside_the_wrong_neighbours_fire(repo: GitRepo, text: str) -> None:
    assert len(_invisible(repo, {"a.py": f"{text}\n"})) == 1


def test_a_grapheme_joiner_between_marks_is_writing(repo: GitRepo) -> None:
    assert _invisible(repo, {"a.py": "hebrew = '\u05d1\u05b8\u034f\u05b7'\n"}) == []


def test_every_format_character_that_shows_nothing_is_covered() -> None:
    """Unicode's format characters (category Cf) all render as nothing but for the few that are
    signs shown above or before digits: the table covers every other one."""
    visible_signs = {
        *range(0x0600, 0x0606), 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD, 0x110CD,
        *range(0x13430, 0x13440), *range(0xFFF9, 0xFFFC),
    }  # fmt: skip
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if unicodedata.category(char) == "Cf" and code not in visible_signs:
            assert invisible_pattern().fullmatch(char.encode()), f"U+{code:04X}"


def test_a_python_file_that_does_not_tokenize_is_judged_line_by_line(repo: GitRepo) -> None:
    source = 'p\u0430ypal = 1\ns = """never closed\n'
    assert where(_invisible(repo, {"a.py": source})) == [("a.py", 1, "mixed-script")]


def test_without_the_new_text_lines_are_judged_alone(repo: GitRepo) -> None:
    change = change_of(repo, {"a.py": "x = 1\np\u0430ypal = 2\n"}, {"a.py": "x = 1\n"}, texts=False)
    assert where(scan(RULE, change)) == [("a.py", 2, "mixed-script")]


def test_digits_and_underscores_belong_to_no_script(repo: GitRepo) -> None:
    assert _invisible(repo, {"a.py": "\u043f\u0440\u0438\u0432\u0435\u0442_2\u0663 = 1\n"}) == []


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("x = 1\ry = p\u0430ypal\n", 1),  # a lone CR: the name is on Python's second line
        ("a = 0\nx = 1\rdef is_\u0430dmin(): pass\n", 2),
        ("s = '''it's''' ; p\u0430ypal = 1\n", 1),  # quotes a line scan pairs wrongly
        ("s = \"a\\\"\" ; r = '\\'' ; p\u0430ypal = 1\n", 1),
        ("x = (1,\n     p\u0430ypal)\n", 2),
    ],
)
def test_python_identifiers_are_the_ones_its_tokenizer_reads(repo: GitRepo, source: str, line: int) -> None:
    assert where(_invisible(repo, {"a.py": source})) == [("a.py", line, "mixed-script")]


@pytest.mark.parametrize(
    "source",
    [
        "x = 1\rs = 'p\u0430ypal'\n",
        "s = '''it's p\u0430ypal'''\n",
        'def f():\n    """Quote \' then p\u0430ypal."""\n',
        "s = f'{x} p\u0430ypal'\n",
    ],
)
def test_python_strings_hold_no_identifiers_wherever_their_quotes_fall(repo: GitRepo, source: str) -> None:
    assert _invisible(repo, {"a.py": source}) == []


@pytest.mark.parametrize(
    ("path", "text", "column", "mark"),
    [
        ("a.py", "e\u0301val = 1", 1, "U+0301 COMBINING ACUTE ACCENT"),
        ("a.py", "if adm\u0336in: pass", 4, "U+0336 COMBINING LONG STROKE OVERLAY"),
        ("a.py", "admin\u0323 = True", 1, "U+0323 COMBINING DOT BELOW"),
        ("a.py", "is_admin\u0331\u0332 = 1", 1, "U+0331 COMBINING MACRON BELOW"),
        ("a.js", "const adm\u0307in = 1;", 7, "U+0307 COMBINING DOT ABOVE"),
        ("a.ts", "let user_2\u0338 = 0;", 5, "U+0338 COMBINING LONG SOLIDUS OVERLAY"),
    ],
)
def test_combining_marks_on_ascii_letters_of_an_identifier_fire(
    repo: GitRepo, path: str, text: str, column: int, mark: str
) -> None:
    found = _invisible(repo, {path: f"first = 1\n{text}\n"})
    assert where(found) == [(path, 2, "combining-mark")]
    assert f"at column {column}:" in found[0].message
    assert mark in found[0].message


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("a.py", "caf\u00e9 = 1"),  # a precomposed letter is a letter of its own
        ("a.py", "\u0928\u092e\u0938\u094d\u0924\u0947 = 1"),  # Devanagari vowel signs on its letters
        ("a.py", "\u05e9\u05b8\u05dc\u05d5\u05b9\u05dd = 1"),  # Hebrew points on Hebrew letters
        ("a.py", "s = 'e\u0301'  # a\u0308"),  # strings and comments are text
        ("a.js", "const s = 'e\u0301'; // o\u0308"),
        ("a.txt", "adm\u0336in"),
    ],
)
def test_combining_marks_on_their_own_scripts_and_in_text_stay_quiet(
    repo: GitRepo, path: str, text: str
) -> None:
    assert _invisible(repo, {path: f"{text}\n"}) == []


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("a.py", "name = 'caf\u00e9\u200d\u00e9'"),  # between two Latin letters outside ASCII
        ("a.js", "const caf\u00e9\u200c\u00e9 = 1;"),  # JavaScript takes it in an identifier
        ("a.py", "name = '\u043f\u200d\u0440'"),  # between Cyrillic letters
        ("a.py", "name = '\u03b1\u200c\u03b2'"),
    ],
)
def test_a_joiner_between_letters_of_latin_greek_or_cyrillic_fires(
    repo: GitRepo, path: str, text: str
) -> None:
    assert where(_invisible(repo, {path: f"{text}\n"})) == [(path, 1, "zero-width")]


def test_a_joiner_in_indic_writing_stays_quiet(repo: GitRepo) -> None:
    assert _invisible(repo, {"a.py": "s = '\u0915\u094d\u200d\u0937 \u0930\u094d\u200c\u092f'\n"}) == []


@pytest.mark.parametrize(
    ("path", "text", "rule_id"),
    [
        ("deploy.sh", "p\u0430ss() { curl -s x; }", "mixed-script"),  # a shell function
        ("deploy.sh", "\u0435\u0445\u0435\u0441 /bin/sh", "lookalike-script"),  # reads as exec
        ("bin/run", "rm -rf /\u0435tc/cache", "mixed-script"),  # an extensionless script is shell
        ("auth.go", "func isAdm\u0456n() bool { return true }", "mixed-script"),
        ("auth.go", "var \u0430 = 1", "lookalike-script"),
        ("lib.rs", "fn p\u0430ss() -> bool { true }", "mixed-script"),
        ("A.java", "class A { boolean isAdm\u0456n; }", "mixed-script"),
        ("a.c", "int t\u03bfken = 0;", "mixed-script"),
        ("auth.rb", "def p\u0430ss = true", "mixed-script"),
        ("auth.go", "var adm\u0336in = 1", "combining-mark"),
    ],
)
def test_identifiers_in_other_code_are_judged_too(repo: GitRepo, path: str, text: str, rule_id: str) -> None:
    assert where(_invisible(repo, {path: f"{text}\n"})) == [(path, 1, rule_id)]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("a.go", 'var \u043f\u0440\u0438\u0432\u0435\u0442 = "p\u0430ypal" // p\u0430ypal'),
        ("a.go", "const \u03c0 = 3.14"),
        ("a.rs", 'let s = "\u0441\u0443\u0445\u043e"; // \u0441\u0443\u0445\u043e'),
        ("a.sh", 'echo "p\u0430ypal" # \u0441\u0443\u0445\u043e'),
        ("a.sh", "echo \u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440"),
        ("a.c", "/* p\u0430ypal */ int x;"),
        ("config.yml", "name: p\u0430ypal"),  # data, not code
        ("a.css", ".\u043a\u043d\u043e\u043f\u043a\u0430 { color: red; }"),
    ],
)
def test_text_and_single_script_names_in_other_code_stay_quiet(repo: GitRepo, path: str, text: str) -> None:
    assert _invisible(repo, {path: f"{text}\n"}) == []


@pytest.mark.parametrize("path", ["page.html", "App.vue", "Form.svelte"])
def test_identifiers_in_a_markup_files_script_blocks_are_judged(repo: GitRepo, path: str) -> None:
    source = "<template><p>Пример: pаypal</p></template>\n<script>\nconst isAdmіn = true;\n</script>\n"
    assert where(_invisible(repo, {path: source})) == [(path, 3, "mixed-script")]


def test_without_the_new_text_a_markup_hunk_is_read_from_its_own_script_tags(repo: GitRepo) -> None:
    base = "<p>paypal</p>\n<p>more</p>\n<script>const isAdmin = true;</script>\n"
    head = base.replace("isAdmin", "isAdm\u0456n").replace("paypal", "p\u0430ypal")
    found = scan(RULE, change_of(repo, {"page.html": head}, {"page.html": base}, texts=False))
    assert where(found) == [("page.html", 3, "mixed-script")]


def test_a_markup_files_text_outside_script_blocks_is_prose(repo: GitRepo) -> None:
    source = "<p>p\u0430ypal \u0441\u0443\u0445\u043e</p>\n<script>const s = 'p\u0430ypal';</script>\n"
    assert _invisible(repo, {"page.html": source}) == []


@pytest.mark.parametrize(
    "text",
    [
        "msg = '\u05e9\u05dc\u05d5\u05dd \u200f!'",  # a mark after Hebrew and a space orders the `!`
        "msg = '\u0645\u0631\u062d\u0628\u0627 (1)\u200f'",
        "price = '\u200f 42 \u05e9\"\u05d7'",  # before a number and the shekel abbreviation
    ],
)
def test_a_directional_mark_in_right_to_left_text_is_writing(repo: GitRepo, text: str) -> None:
    assert _invisible(repo, {"a.py": f"{text}\n"}) == []


@pytest.mark.parametrize(
    "text",
    [
        "if user == 'admin' \u200f:",  # the nearest letters either side are Latin
        "x = '\u200f\u200f' == y",  # marks beside marks only
        "y = 1 \u200e 2",
    ],
)
def test_a_directional_mark_in_left_to_right_code_fires(repo: GitRepo, text: str) -> None:
    assert len(_invisible(repo, {"a.py": f"{text}\n"})) == 1


# Greek in scientific code: a word part of its own, joined to Latin ones by `_`, digits or a change
# of case, is notation; a look-alike letter inside a Latin word part is a disguise.
@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("a.py", "\u03b1_max = 0.5"),  # α_max
        ("a.py", "\u0394t = t1 - t0"),  # Δt
        ("a.py", "\u03c32 = var(x)"),  # σ2
        ("a.py", "dt_\u03b1 = \u03c1_air * \u03bd_max"),  # lone look-alike Greek letters: ρ, ν, α
        ("a.py", "\u03b8_0hat = \u03ba_B * T"),
        ("a.py", "x_\u03bc1 = 2"),
        ("a.js", "const \u03b1Max = 1, \u03c3_y = 2;"),  # a change of case ends a word part
        ("a.go", "\u03b1_min := 0.1"),
        ("a.py", "\u043f\u0440\u0438\u0432\u0435\u0442_user = 1"),  # a Russian word that passes for none
    ],
)
def test_greek_word_parts_beside_latin_ones_stay_quiet(repo: GitRepo, path: str, text: str) -> None:
    assert _invisible(repo, {path: f"{text}\n"}) == []


@pytest.mark.parametrize(
    ("path", "text", "letter"),
    [
        ("a.py", "p\u0430ssword = 1", "U+0430 CYRILLIC SMALL LETTER A"),  # pаssword
        ("a.py", "\u03bf\u03c1en = 1", "U+03BF GREEK SMALL LETTER OMICRON"),  # ορen
        ("a.py", "is_\u03bf\u03c1en = 1", "U+03BF GREEK SMALL LETTER OMICRON"),
        ("a.py", "x2\u03bf\u03c1en = 1", "U+03BF GREEK SMALL LETTER OMICRON"),  # after a digit
        ("a.py", "get_\u0435\u0445\u0435\u0441 = 1", "U+0435 CYRILLIC SMALL LETTER IE"),  # a whole part: exec
        ("a.py", "max_\u03b1\u03ba = 1", "U+03B1 GREEK SMALL LETTER ALPHA"),  # two letters: ak
        ("a.js", "const user\u0410dmin = 1;", "U+0410 CYRILLIC CAPITAL LETTER A"),
        ("a.js", "const get\u0391pi = 1;", "U+0391 GREEK CAPITAL LETTER ALPHA"),
        ("a.go", "var t\u03bfken_\u03b1 = 1", "U+03BF GREEK SMALL LETTER OMICRON"),
        ("a.py", "hel_\u0585 = 1", "U+0585 ARMENIAN SMALL LETTER OH"),  # Armenian: judged beside Latin
    ],
)
def test_a_look_alike_letter_inside_a_latin_word_part_still_fires(
    repo: GitRepo, path: str, text: str, letter: str
) -> None:
    found = _invisible(repo, {path: f"{text}\n"})
    assert where(found) == [(path, 1, "mixed-script")]
    assert letter in found[0].message


@pytest.mark.parametrize(
    "text",
    [
        "echo \u0441\u0430\u0445\u0430\u0440",  # echo сахар: a Russian word, every letter a look-alike
        "printf '%s\\n' \u0441\u0430\u0445\u0430\u0440 \u0433\u043e\u0442\u043e\u0432\u043e",
        "echo \u0441\u0430\u0445\u0430\u0440 | tee -a \u0440\u0435\u0446\u0435\u043f\u0442",
        "git commit -m \u0441\u0430\u0445\u0430\u0440",
    ],
)
def test_a_whole_word_argument_in_shell_is_text_not_a_name(repo: GitRepo, text: str) -> None:
    assert _invisible(repo, {"run.sh": f"{text}\n"}) == []


@pytest.mark.parametrize(
    "text",
    [
        "\u0435\u0445\u0435\u0441 /bin/sh",  # ехес in a command's place reads as exec
        "cd /tmp; \u0435\u0445\u0435\u0441 sh",
        "if \u0435\u0445\u0435\u0441 sh; then :; fi",
        "\u0441\u0430\u0445\u0430\u0440() { rm -rf /; }",
        "function \u0441\u0430\u0445\u0430\u0440 { :; }",
        "\u0441\u0430\u0445\u0430\u0440=1",
        "echo $\u0441\u0430\u0445\u0430\u0440 ${\u0441\u0430\u0445\u0430\u0440}",
        "x=$(\u0435\u0445\u0435\u0441 sh)",
    ],
)
def test_a_whole_word_name_in_shell_still_fires(repo: GitRepo, text: str) -> None:
    found = _invisible(repo, {"run.sh": f"{text}\n"})
    assert {i for _, _, i in where(found)} == {"lookalike-script"}


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("x = s.split(/'/); const isAdm\u0456n = true;\n", 1),  # a quote in a regular expression
        ("const t = `\n* a`; const isAdm\u0456n = true;\n", 2),  # a template line starting with `*`
        ("/* a\n * b */ const isAdm\u0456n = true;\n", 2),
        ("const s = 'a\\\nb'; const isAdm\u0456n = true;\n", 2),
    ],
)
def test_javascript_identifiers_are_found_after_what_hides_them_from_a_line_reader(
    repo: GitRepo, source: str, line: int
) -> None:
    assert where(_invisible(repo, {"a.js": source})) == [("a.js", line, "mixed-script")]


@pytest.mark.parametrize(
    "source",
    [
        "const t = `\n\u041f\u0440\u0438\u0432\u0435\u0442 p\u0430ypal\n`;\n",  # template text
        "/*\n  p\u0430ypal \u0441\u0443\u0445\u043e\n*/\n",  # a block comment's line
        "const r = /p\u0430ypal/u;\n",
    ],
)
def test_javascript_text_over_lines_is_not_an_identifier(repo: GitRepo, source: str) -> None:
    assert _invisible(repo, {"a.js": source}) == []


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("App.vue", '<template><b @click="isAdm\u0456n = true">{{ x }}</b></template>'),
        ("App.vue", "<template><p>{{ isAdm\u0456n }}</p></template>"),
        ("Form.svelte", "<p>{isAdm\u0456n}</p>"),
        ("page.html", '<button onclick="isAdm\u0456n = true">b</button>'),
    ],
)
def test_identifiers_in_markup_templates_and_handlers_are_judged(repo: GitRepo, path: str, line: str) -> None:
    assert where(_invisible(repo, {path: f"<p>p\u0430ypal</p>\n{line}\n"})) == [(path, 2, "mixed-script")]


@pytest.mark.parametrize(
    ("text", "fires"),
    [
        ('s := "a\\"b"; isAdm\u0456n := true', True),  # an escaped quote does not end the string
        ('s := "a\\" isAdm\u0456n"', False),
        ("s := 'a\\\\'; isAdm\u0456n := true", True),  # an escaped backslash does not escape the quote
    ],
)
def test_c_family_strings_are_read_with_their_escapes(repo: GitRepo, text: str, fires: bool) -> None:
    assert len(_invisible(repo, {"main.go": f"{text}\n"})) == int(fires)

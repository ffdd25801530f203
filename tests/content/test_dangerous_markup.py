"""JavaScript in markup (`markupjs.py`): event handler attributes and `javascript:` URLs read as the
browser runs them (character references decoded first, a URL's percent-escapes too), Vue's and
Svelte's template expressions, an Astro file's frontmatter and scripts; what is text, a comment or
another attribute stays quiet."""

from __future__ import annotations

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.markupjs import markup_script
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = DangerousRule()


def _found(repo: GitRepo, path: str, source: str, **kw: bool) -> list[tuple[str, int | None, str]]:
    return where(scan(RULE, change_of(repo, {path: source}, **kw)))


@pytest.mark.parametrize(
    "line",
    [
        "<img src=x onerror=\"eval(atob('ZG9jdW1lbnQ='))\">",
        '<a href="javascript:eval(x)">a</a>',
        "<img src=x onerror=eval(x)>",  # unquoted
        '<img src=x onerror="&#101;val(x)">',
        '<img src=x onerror="&#x65;val(x)">',
        '<img src=x onerror="ev&#97;l(x)">',
        '<img src=x onerror="ev&#0097l(x)">',  # no semicolon: still decoded
        '<img src=x onerror="window[&quot;ev&quot; + &quot;al&quot;](x)">',
        '<a href="&#106;avascript:eval(x)">a</a>',
        '<a href="java&#x09;script:ev&#97;l(x)">a</a>',
        '<a href="  JavaScript:%65val(x)">a</a>',  # percent-decoded before it runs
        '<form><button formaction="javascript:eval(x)">b</button></form>',
        '<svg><a xlink:href="javascript:eval(x)"><text>t</text></a></svg>',
        "<div\n  class=a onmouseover='eval(x)'>",
    ],
)
def test_handlers_and_javascript_urls_run_their_decoded_value(repo: GitRepo, line: str) -> None:
    line_of_eval = line.count("\n", 0, line.index("on") if "onmouse" in line else 0) + 1
    assert _found(repo, "web/a.html", f"{line}\n") == [("web/a.html", line_of_eval, "js-eval")]


def test_a_decoded_value_keeps_its_lines() -> None:
    data = b'<p>x</p>\n<b onclick="a();&#10;\n  ev&#97;l(x) &amp;&amp; b()">\n<i>'
    script = markup_script(data, "a.html")
    assert len(script.text) == len(data) and script.text.count(b"\n") == data.count(b"\n") + 1
    assert script.text.split(b"\n")[3].startswith(b"  eval(x) && b()")
    assert script.text[: data.index(b"onclick")] == data[: data.index(b"onclick")]


def test_a_decoded_value_on_a_later_line_is_reported_there(repo: GitRepo) -> None:
    source = '<button\n  onclick="a();\n    ev&#97;l(x)">b</button>\n'
    assert _found(repo, "web/a.html", source) == [("web/a.html", 3, "js-eval")]


@pytest.mark.parametrize(
    "source",
    [
        '<a href="/javascript/">docs</a>\n',
        '<a href="https://x.io/?q=javascript:eval(x)">a</a>\n',
        '<p>Set onerror="eval(x)" on the image to see why this is bad.</p>\n',
        "<p>onerror is an event; eval(x) runs code</p>\n",
        "<p>Fish &amp; chips &#38; eval</p>\n",
        '<img alt="ev&#97;l(x)" title="&#101;val(x)">\n',
        '<input value="javascript:eval(x)">\n',
        # Browsers do not decode references in a script block: this is no call of eval.
        "<script>x = 1 &amp;&amp; ev&#97;l(y); var s = '&#101;val(z)';</script>\n",
    ],
)
def test_html_near_misses_stay_quiet(repo: GitRepo, source: str) -> None:
    assert _found(repo, "web/a.html", source) == []


@pytest.mark.parametrize(
    "line",
    [
        "<p>{{ eval(expr) }}</p>",
        '<button v-on:click="eval(code)">b</button>',
        '<button @click="eval(code)">b</button>',
        '<div :title="eval(code)"></div>',
        '<div v-bind:title="eval(code)"></div>',
        '<div v-html="eval(code)"></div>',
        '<div v-if="ev&#97;l(code)"></div>',
        '<div :style="new Function(code)()"></div>',
        "<p>{{ require('child_process').exec(`ls ${dir}`) }}</p>",
    ],
)
def test_vue_template_expressions_are_javascript(repo: GitRepo, line: str) -> None:
    found = _found(repo, "web/A.vue", f"<template>\n{line}\n</template>\n")
    assert len(found) == 1 and found[0][:2] == ("web/A.vue", 2)


@pytest.mark.parametrize(
    "line",
    [
        "<p>{{ user.evaluation }} and {{ evaluate(x) }}</p>",
        '<div class="eval(x)" title="{{ eval(x) }}"></div>',  # plain attributes are text in Vue
        "<p>{ eval(x) }</p>",  # Vue's text is text outside {{ }}
        "<!-- {{ eval(x) }} -->",
        "<style>.a { b: eval(x) }</style>",
    ],
)
def test_vue_near_misses_stay_quiet(repo: GitRepo, line: str) -> None:
    assert _found(repo, "web/A.vue", f"<template>\n{line}\n</template>\n") == []


@pytest.mark.parametrize(
    "line",
    [
        "<p>{eval(code)}</p>",
        "<div>{@html eval(code)}</div>",
        "<button on:click={() => eval(code)}>b</button>",
        "<button on:click={() => a > b ? eval(code) : 0}>b</button>",
        '<p class="a {eval(code)}">x</p>',
        "{#if eval(code)}<p>x</p>{/if}",
        '<p>{ "}" + eval(code) }</p>',
        "<p>{ f(/* } */ eval(code)) }</p>",
    ],
)
def test_svelte_template_expressions_are_javascript(repo: GitRepo, line: str) -> None:
    assert _found(repo, "web/A.svelte", f"<div>\n{line}\n</div>\n") == [("web/A.svelte", 2, "js-eval")]


@pytest.mark.parametrize(
    "line",
    [
        "<p>{user.evaluation} {'eval(x)'}</p>",
        "<style>p { color: red; } .eval { x: eval(y) }</style>",
        "<!-- {eval(x)} -->",
        "<p>&#123; eval &#125;</p>",
    ],
)
def test_svelte_near_misses_stay_quiet(repo: GitRepo, line: str) -> None:
    assert _found(repo, "web/A.svelte", f"<div>\n{line}\n</div>\n") == []


def test_astro_frontmatter_scripts_and_expressions_are_javascript(repo: GitRepo) -> None:
    source = (
        "---\n"
        "const rows: string[] = eval(input);\n"
        "---\n"
        "<p>eval(text) is prose</p>\n"
        "<ul>{rows.map((r) => <li>{eval(r)}</li>)}</ul>\n"
        "<script>\n"
        "  eval(later);\n"
        "</script>\n"
    )
    found = _found(repo, "src/pages/index.astro", source)
    assert [line for _, line, _ in found] == [2, 5, 7]


def test_without_the_new_text_a_hunk_reads_its_own_attributes_and_templates(repo: GitRepo) -> None:
    base = {"a.vue": "<template>\n<p>x</p>\n</template>\n", "a.html": "<p>x</p>\n<p>y</p>\n"}
    head = {
        "a.vue": '<template>\n<p>x</p>\n<b @click="eval(x)">{{ a }}</b>\n</template>\n',
        "a.html": '<p>x</p>\n<p>y</p>\n<img onerror="ev&#97;l(x)">\n',
    }
    found = scan(RULE, change_of(repo, head, base, texts=False))
    assert where(found) == [("a.html", 3, "js-eval"), ("a.vue", 3, "js-eval")]


@pytest.mark.parametrize("path", ["lib/a.es6", "lib/a.es", "lib/a.jsm"])
def test_other_javascript_extensions_are_read(repo: GitRepo, path: str) -> None:
    assert _found(repo, path, "const a = 1;\neval(x);\n") == [(path, 2, "js-eval")]


@pytest.mark.parametrize(
    ("path", "data", "scripts"),
    [
        ("a.svelte", b'<p>{ "a\\"}" + b }</p>', [b' "a\\"}" + b ']),
        ("a.svelte", b"<p>{ 'open\n + b }</p>", [b" 'open\n + b "]),  # a string ends at its line
        ("a.svelte", b"<p>{ `a}`", [b" `a}`"]),  # a brace never closed: to the end
        ("a.svelte", b"<p>{ 'a}", [b" 'a}"]),  # nor a string
        ("a.astro", b"<p>{a}</p>{b}", [b"a", b"b"]),  # no frontmatter
        ("a.astro", b"---\nconst a = 1;\n", [b"const a = 1;\n"]),  # one never closed
        ("a.html", b'<a "x" =y onclick="f()">', [b"f()"]),  # stray quotes and `=` are skipped
        ("a.html", b'<input disabled onclick="f()" checked>', [b"f()"]),
        ("a.html", b'<a onclick="f()"', [b"f()"]),  # a tag never closed
        ("a.html", b"x</script><script>g()", [b"x", b"g()"]),
    ],
)
def test_markup_script_spans(path: str, data: bytes, scripts: list[bytes]) -> None:
    starts_file = not data.startswith(b"x")
    script = markup_script(data, path, starts_file=starts_file)
    assert [script.text[start:end] for start, end in script.blocks] == scripts

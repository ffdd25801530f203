"""JavaScript read as its lexer reads it (`jslex.py`): constructs spread over lines or hidden behind
a token a line-by-line guess misreads are found, and what the lexer hides (comments, strings,
template text, regular expressions) stays quiet; child_process through the file's own bindings."""

from __future__ import annotations

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.jslex import lex
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = DangerousRule()


def _found(repo: GitRepo, path: str, source: str, **kw: bool) -> list[tuple[str, int | None, str]]:
    return where(scan(RULE, change_of(repo, {path: source}, **kw)))


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("const t = `one\ntwo ${a}`; eval(x);\n", 2),
        ("const t = `one\n`; eval(x);\n", 2),
        ("const t = `a ${ {k: '}'}.k } b`; eval(x);\n", 1),
        ("const t = `a ${ `in ${`ner`}` } b`; eval(x);\n", 1),
        ('let r = /"/; eval(x);\n', 1),
        ("let r = /'/; eval(x);\n", 1),
        ("x = /`/; eval(y);\n", 1),
        ("x = s.split(/'/); eval(y);\n", 1),
        ("x = /[/'\"]/; eval(y);\n", 1),
        ("x = /\\/\\//; eval(y);\n", 1),
        ("x = a++ / eval(y) / 2;\n", 1),
        ("x = {} / eval(y) / 1;\n", 1),
        ("/* one */ eval(x);\n", 1),
        ("a = 1; /* start\n * more\n end */ eval(x);\n", 3),
        ("const s = 'x\\\ny'; eval(z);\n", 2),
        ("const s = 'a\u2028'; eval(x);\n", 1),
        ("eval\n(x);\n", 1),
        ("(0,\n  eval\n)(x);\n", 2),
        ("globalThis[\n'eval'\n](x);\n", 1),
        ("eval/**/(x);\n", 1),
        ("\\u0065val(x);\n", 1),
        ("ev\\u{61}l(x);\n", 1),
        ('window["\\x65val"](x);\n', 1),
        ("self['ev\\141l'](x);\n", 1),
    ],
)
def test_constructs_the_lexer_reads_across_lines_and_tokens(repo: GitRepo, source: str, line: int) -> None:
    assert _found(repo, "web/a.js", source) == [("web/a.js", line, "js-eval")]


@pytest.mark.parametrize(
    "source",
    [
        "const t = `\neval(x)\n`;\n",
        "const t = `${a}\neval(x) ${b} eval(y)`;\n",
        "/*\neval(x)\n*/\n",
        "/**\n * eval(x)\n */\nfunction f() {}\n",
        "x = /eval(x)/;\n",
        "if (ok) /eval(x)/.test(s);\n",
        "return /'/.test(s) || /eval(x)/.test(s);\n",
        "const s = 'a\\\neval(x)';\n",
        'const s = "eval(";\n',
        "x = a / b; // eval(x)\n",
        "evaluate(x);\nmedieval(x);\n",
        "const s = 'a\u2028 eval(x)';\n",
        "obj.eval(x);\nobj\n.eval(x);\n",
    ],
)
def test_what_the_lexer_hides_stays_quiet(repo: GitRepo, source: str) -> None:
    assert _found(repo, "web/a.js", source) == []


def test_without_the_new_text_a_hunk_is_read_from_its_first_line(repo: GitRepo) -> None:
    base = {"a.js": "/**\n * Docs.\n */\nlet a = 1;\n"}
    head = {"a.js": "/**\n * Docs.\n * eval(x) is never called\n */\nlet a = 1;\nconst t = `\n`; eval(y);\n"}
    found = scan(RULE, change_of(repo, head, base, texts=False))
    assert where(found) == [("a.js", 7, "js-eval")]


def test_a_construct_is_reported_on_the_added_line_it_spans(repo: GitRepo) -> None:
    base = {"a.js": "let a = 1;\nglobalThis[\n'x'\n](y);\n"}
    head = {"a.js": "let a = 1;\nglobalThis[\n'eval'\n](y);\n"}
    assert where(scan(RULE, change_of(repo, head, base))) == [("a.js", 3, "js-eval")]


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        ("eval.call(null, x);\n", "js-eval"),
        ("eval.apply(null, [x]);\n", "js-eval"),
        ("eval?.(x);\n", "js-eval"),
        ("window?.eval(x);\n", "js-eval"),
        ("window?.['eval'](x);\n", "js-eval"),
        ("const {eval: run} = globalThis;\n", "js-eval"),
        ('setTimeout("tick(" + n + ")", 10);\n', "js-eval"),
        ("window.setInterval('poll()', 100);\n", "js-eval"),
        ("await import('data:text/javascript,' + code);\n", "js-eval"),
        ("(() => {}).constructor(code)();\n", "js-new-function"),
        ("[].constructor.constructor(code)();\n", "js-new-function"),
        ("Function.prototype.constructor(code)();\n", "js-new-function"),
        ("const vm = require('node:vm');\nvm.runInNewContext(code);\n", "js-vm"),
    ],
)
def test_more_ways_to_run_a_string(repo: GitRepo, source: str, construct: str) -> None:
    last = source.count("\n")
    assert _found(repo, "web/a.js", source) == [("web/a.js", last, construct)]


@pytest.mark.parametrize(
    "source",
    [
        "setTimeout(tick, 10);\n",
        "setTimeout(() => tick(), 10);\n",
        "const timer = {eval: 1};\n",
        "class A {\n  constructor(x) {\n    this.x = x;\n  }\n}\nconst b = new this.constructor(1);\n",
        "import('./module.js');\n",
        "runInNewContext(code);\n",
        "this.eval(batch);\n",
    ],
)
def test_near_misses_of_running_a_string(repo: GitRepo, source: str) -> None:
    assert _found(repo, "web/a.js", source) == []


_CP = "const cp = require('child_process');\n"


@pytest.mark.parametrize(
    "source",
    [
        "import {exec as run} from 'node:child_process';\nrun(`ls ${x}`);\n",
        "const {execSync: sh} = require(\"child_process\");\nsh('ls ' + x);\n",
        "const proc = require('child_process');\nproc.exec(cmd);\n",
        "import * as proc from 'child_process';\nproc.execSync(cmd);\n",
        "import proc, {spawn} from 'node:child_process';\nproc.exec(\n  `ls ${x}`\n);\n",
        "const cp = await import('child_process');\ncp?.exec(cmd);\n",
        "let a;\nrequire(`child_process`).exec(cmd);\n",
        f"{_CP}cp.spawn('sh', ['-c', x]);\n",
        f"{_CP}cp.execFile('/bin/bash', ['-c', `ls ${{x}}`]);\n",
        f"{_CP}cp.spawn(cmd, {{shell: true}});\n",
        "const {spawn} = require('child_process');\nspawn(cmd, [], {\n  shell: '/bin/sh',\n});\n",
    ],
)
def test_child_process_through_the_files_bindings(repo: GitRepo, source: str) -> None:
    assert [(line, rule) for _, line, rule in _found(repo, "web/a.js", source)] == [
        (2, "js-child-process-exec")
    ]


@pytest.mark.parametrize(
    "source",
    [
        f"{_CP}cp.exec('ls -l');\n",
        f"{_CP}cp.spawn('ls', ['-l', dir]);\n",
        f"{_CP}cp.spawn('sh', ['-c', 'ls -l']);\n",
        f"{_CP}cp.spawn(cmd, args, {{shell: false}});\n",
        f"{_CP}cp.spawn('npm', ['install'], {{shell: true}});\n",
        "const proc = require('./proc');\nproc.exec(cmd);\n",
        "import {exec as run} from 'node:child_process';\n// run(cmd)\n",
        "const run = (x) => x;\nrun(cmd);\n",
    ],
)
def test_child_process_near_misses(repo: GitRepo, source: str) -> None:
    assert _found(repo, "web/a.js", source) == []


def test_an_alias_bound_on_a_line_the_change_keeps(repo: GitRepo) -> None:
    base = {"a.js": "import {exec as run} from 'child_process';\n\n"}
    head = {"a.js": "import {exec as run} from 'child_process';\n\nrun(cmd);\n"}
    assert where(scan(RULE, change_of(repo, head, base))) == [("a.js", 3, "js-child-process-exec")]


@pytest.mark.parametrize("path", ["web/a.html", "web/A.vue", "web/A.svelte"])
def test_script_blocks_are_lexed_and_end_where_html_ends_them(repo: GitRepo, path: str) -> None:
    source = (
        "<!-- <script> -->\n"
        "<p>eval(a)</p>\n"
        '<script setup lang="ts">\n'
        "const t = `\n"
        "`; eval(b);\n"
        "</script>\n"
        "<script>const s = '</script>'; eval(c)\n"
        "<script\n"
        '  type="module">\n'
        "eval(d)\n"
        "</script>\n"
    )
    assert _found(repo, path, source) == [(path, 5, "js-eval"), (path, 10, "js-eval")]


def test_the_view_keeps_every_offset() -> None:
    data = b"a = `x\n${ {b: '}'} }` /* c\n */ + /re/g; ev\\u0061l(1) // d\n"
    lexed = lex(data)
    assert len(lexed.view) == len(data) and lexed.view.count(b"\n") == data.count(b"\n")
    assert b"eval     (1)" in lexed.view and b"/* c" not in lexed.view
    assert lexed.hidden(data.index(b"x")) and not lexed.hidden(data.index(b"+"))


@pytest.mark.parametrize(
    "source",
    [
        '<button onclick="eval(x)">b</button>\n',
        "<a href='javascript:eval(x)'>b</a>\n",
        "<body ONLOAD=\"window['ev' + 'al'](x)\">\n",
    ],
)
def test_event_handlers_and_javascript_urls_are_javascript(repo: GitRepo, source: str) -> None:
    assert _found(repo, "web/a.html", source) == [("web/a.html", 1, "js-eval")]


@pytest.mark.parametrize(
    "source",
    [
        '<button title="eval(x)" data-on="eval(y)">b</button>\n',
        '<!-- <button onclick="eval(x)"> -->\n',
        '<a href="https://x.io/eval(x)">b</a>\n',
    ],
)
def test_attributes_that_are_not_javascript(repo: GitRepo, source: str) -> None:
    assert _found(repo, "web/a.html", source) == []


def test_a_match_on_a_kept_line_is_not_reported(repo: GitRepo) -> None:
    base = {"a.js": "eval(x);\n"}
    head = {"a.js": "eval(x);\nlet evaluated = 1;\n"}
    assert where(scan(RULE, change_of(repo, head, base))) == []


def test_without_the_new_text_a_hunk_may_close_a_doc_comment_or_open_a_script(repo: GitRepo) -> None:
    base = {"a.js": "/**\n * Docs.\n */\nlet a = 1;\n", "a.html": "<p>x</p>\n"}
    head = {
        "a.js": "/**\n * Docs.\n * eval(x) */ eval(y);\n */\nlet a = 1;\n",
        "a.html": "<p>x</p>\n<script>\nlet b = 2;\neval(z);\n</script>\n",
    }
    found = scan(RULE, change_of(repo, head, base, texts=False))
    assert where(found) == [("a.html", 4, "js-eval"), ("a.js", 3, "js-eval")]


def test_a_binding_list_may_end_with_a_comma(repo: GitRepo) -> None:
    source = "const {\n  exec,\n} = require('child_process');\nexec(cmd);\n"
    assert _found(repo, "a.js", source) == [("a.js", 4, "js-child-process-exec")]


@pytest.mark.parametrize(
    ("data", "code", "hidden"),
    [
        (b"/'/.test(s); eval(x)", b"eval", b""),  # a regular expression as the first token
        (b"{ a: `x` }\n/'/.test(s); eval(x)", b"eval", b"x`"),  # a block at the start, then one
        (b"f({a: (1}); g('}')", b"g", b"}"),  # a brace closing a parenthesis left open
        (b"t = `a\\`b ${c}", b"c", b"b"),  # an escape in a template, and one never closed
        (b"x = /[/'\n/ eval(x)", b"eval", b""),  # no regular expression ends on its line
        (b"(/[ (/[ eval(x)", b"eval", b""),  # ... nor does a second one on that line
        (b"x = /a\\", b"x", b""),  # the text ends inside one
        (b"x = /a", b"x", b""),
        (b"a\\z; \\u{65}val(1)", b"eval", b""),  # a backslash that escapes no identifier
    ],
)
def test_the_lexer_recovers_as_the_grammar_allows(data: bytes, code: bytes, hidden: bytes) -> None:
    lexed = lex(data)
    assert code in lexed.view and not lexed.hidden(bytes(lexed.view).index(code))
    assert not hidden or lexed.hidden(data.rindex(hidden))

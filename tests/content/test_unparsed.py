"""No Python file escapes parsing: a file that does not parse under the running interpreter (newer
syntax, or broken on purpose), or whose new text is not available, still has its multi-line calls
found, statement by statement, following brackets and continuations."""

from __future__ import annotations

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.pystatements import calls_in, logical_lines
from bot.engine.findings import Violation
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = DangerousRule()
NEWER = "type Vector = list[float]\n"  # PEP 695: Python 3.12
NESTED = 'greeting = f"{names["first"]}"\n'  # same-quote nesting: Python 3.12
BROKEN = "def broken(:\n    pass\n"


def _dangerous(
    repo: GitRepo, head: dict[str, str], base: dict[str, str] | None = None, **kw: bool
) -> list[Violation]:
    change = change_of(repo, head, base, **kw)
    found = scan(RULE, change)
    # Parsed whole, such a file falls back to its statements alone; its selection may parse.
    assert where(found) == where(scan(DangerousRule(parse_whole_files=True), change))
    return found


@pytest.mark.parametrize("spoiler", [NEWER, NESTED, BROKEN])
@pytest.mark.parametrize(
    ("body", "line", "construct"),
    [
        ("result = eval(\n    data)\n", 1, "python-eval"),
        ("import os\nos.system(\\\n    cmd)\n", 2, "python-os-system"),
        ("value = compute(\n    eval\n    (x))\n", 2, "python-eval"),
        ("if eval(x):\n    pass\n", 1, "python-eval"),
        ("import os as o\no.system(\n    cmd,\n)\n", 2, "python-os-system"),
        ("import subprocess\nsubprocess.run(\n    cmd,\n    shell=True,\n)\n", 2, "python-subprocess-shell"),
        ("x = 1; exec(\n    code)\n", 1, "python-exec"),
    ],
)
def test_calls_in_a_file_that_does_not_parse_are_found_across_lines(
    repo: GitRepo, spoiler: str, body: str, line: int, construct: str
) -> None:
    found = _dangerous(repo, {"new.py": spoiler + body})
    assert where(found) == [("new.py", spoiler.count("\n") + line, construct)]
    whole = scan(
        DangerousRule(parse_whole_files=True),
        change_of(GitRepo.create(repo.root.parent / "w"), {"new.py": spoiler + body}),
    )
    assert whole[0].message.endswith(
        "(Judged from this statement alone: the file's new text was not available or does not parse.)"
    )


@pytest.mark.parametrize(
    "body",
    [
        '"""\neval(x)\n"""\n',
        "# eval(\n#   x)\n",
        "model.eval(\n)\n",
        "text = 'eval(y)'\n",
        "def eval(x):\n    return x\n",
    ],
)
def test_near_misses_in_a_file_that_does_not_parse_stay_quiet(repo: GitRepo, body: str) -> None:
    assert _dangerous(repo, {"new.py": BROKEN + body}) == []


def test_a_call_split_over_added_lines_is_found_without_the_new_text(repo: GitRepo) -> None:
    base = {"app.py": "import os\n\n\ndef f(cmd):\n    return 0\n"}
    head = {
        "app.py": "import os\n\n\ndef f(cmd):\n    os.system(\n        cmd)\n    return eval(\n        cmd)\n"
    }
    found = _dangerous(repo, head, base, texts=False)
    assert where(found) == [("app.py", 5, "python-os-system"), ("app.py", 7, "python-eval")]


def test_a_call_whose_opening_line_is_context_is_found_from_the_new_text(repo: GitRepo) -> None:
    base = {"app.py": BROKEN + "import subprocess\nsubprocess.run(\n    cmd,\n    check=True,\n)\n"}
    head = {"app.py": BROKEN + "import subprocess\nsubprocess.run(\n    cmd,\n    shell=True,\n)\n"}
    assert where(_dangerous(repo, head, base)) == [("app.py", 6, "python-subprocess-shell")]


def test_an_unclosed_bracket_does_not_hide_what_follows_a_newline_inside_it(repo: GitRepo) -> None:
    found = _dangerous(repo, {"new.py": "broken = (\neval(x)\n"})
    assert where(found) == [("new.py", 2, "python-eval")]


def test_a_call_whose_bracket_never_closes_is_not_read(repo: GitRepo) -> None:
    assert _dangerous(repo, {"new.py": BROKEN + "eval(x, (1, 2)\n"}) == []


def test_a_call_spanning_lines_that_are_context_is_reported_on_its_added_line(repo: GitRepo) -> None:
    base = {"app.py": BROKEN + "import os\nos.system(\n    cmd,\n)\nx = 1\n"}
    head = {"app.py": BROKEN + "import os\nos.system(\n    cmd,\n)\nx = 2\n"}
    assert _dangerous(repo, head, base) == []


def test_a_call_in_a_changed_statement_but_not_on_an_added_line_is_not_reported(repo: GitRepo) -> None:
    base = {"app.py": BROKEN + "value = compute(\n    eval(x),\n    y=1,\n)\n"}
    head = {"app.py": BROKEN + "value = compute(\n    eval(x),\n    y=builtins,\n)\n"}
    assert _dangerous(repo, head, base) == []


# Valid Python 3.12 (PEP 701): a field's string may hold a bracket or the enclosing quote, which a
# 3.11 reading of the string takes for code (an unclosed bracket joining everything after it).
FIELD_SPOILERS = [
    'print(f"{"("}")\n',
    'label = f"{"["}"\n',
    "label = f'{'('}'\n",
    'label = f"{value:{"("}}"\n',
    'label = f"""{"""("""}"""\n',
    'label = rf"{"{"}\\{x}"\n',
    'label = f"{f"{"("}"}"\n',
]


@pytest.mark.parametrize("spoiler", FIELD_SPOILERS)
@pytest.mark.parametrize(
    ("body", "construct"),
    [
        ("(eval)(x)\n", "python-eval"),
        ("result = (eval)(\n    data)\n", "python-eval"),
        ("import os\n(os.system)(cmd)\n", "python-os-system"),
    ],
)
def test_a_template_string_is_read_as_python_3_12_reads_it(
    repo: GitRepo, spoiler: str, body: str, construct: str
) -> None:
    found = _dangerous(repo, {"new.py": spoiler + body})
    assert [i for _, _, i in where(found)] == [construct]


@pytest.mark.parametrize(
    "source",
    [
        'x = f"{"eval(y)"}"\n',
        "x = f'{\"(\"}' + 'eval(y)'\n",
        'x = f"{{eval(y)}}"\n',
        'x = f"{value:eval(y)}"\n',
        'x = f"""{"eval(y)"}\n"""\n',
    ],
)
def test_strings_inside_template_fields_stay_strings(repo: GitRepo, source: str) -> None:
    assert _dangerous(repo, {"new.py": NESTED + source}) == []


@pytest.mark.parametrize(
    ("body", "construct"),
    [
        ("(eval)(x)\n", "python-eval"),
        ("ｅｖａｌ(x)\n", "python-eval"),
        ("𝐞𝐱𝐞𝐜(code)\n", "python-exec"),
        ("__builtins__['eval'](x)\n", "python-eval"),
        ("getattr(__builtins__, 'exec')(code)\n", "python-exec"),
        ("__import__('os').system(cmd)\n", "python-os-system"),
        ("import os\n(os.system)(cmd)\n", "python-os-system"),
        ("import os\nos.\\\n    system(cmd)\n", "python-os-system"),
        ("import os\nｏｓ.ｓｙｓｔｅｍ(cmd)\n", "python-os-system"),
        ("import importlib\nimportlib.import_module('os').popen(cmd)\n", "python-os-system"),
        ("label = f'{eval(x)}'\n", "python-eval"),
        ('label = f"{eval("x")}"\n', "python-eval"),
        ("[eval][0](x)\n", "python-eval"),
    ],
)
def test_calls_in_a_statement_that_does_not_parse_are_resolved_as_python_does(
    repo: GitRepo, body: str, construct: str
) -> None:
    found = _dangerous(repo, {"new.py": BROKEN + body})
    assert [i for _, _, i in where(found)] == [construct]


@pytest.mark.parametrize(
    "body",
    [
        '"text".eval(x)\n',
        "x.ｅｖａｌ(y)\n",
        "values = [  # eval\n    (x)]\n",
        "class eval(Base):\n    pass\n",
        'label = f"{"eval(x)"}"\n',
        "value = evaluate(x) + model.eval()\n",
        "if (x):\n    pass\n",
        "value = 1 .real(eval) ,,\n",
        "value = eval(x,, y)\n",
        "import\nvalue = model.eval()\n",
    ],
)
def test_near_misses_in_a_statement_that_does_not_parse_stay_quiet(repo: GitRepo, body: str) -> None:
    assert _dangerous(repo, {"new.py": BROKEN + body}) == []


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        ('a = f"{"("}"\nb = 1\n', ['a = f"{"("}"', "b = 1", ""]),
        ('a = f"it\'s {x)} {{"\nb = 1\n', ['a = f"it\'s {x)} {{"', "b = 1", ""]),
        ('a = f"{x:>{w}} }"\nb = (\n1)\n', ['a = f"{x:>{w}} }"', "b = (\n1)", ""]),
        ('a = f"{x:abc\nb = 1\n', ['a = f"{x:abc', "b = 1", ""]),
        ('a = f"{x:{y:abc"\nb = 1\n', ['a = f"{x:{y:abc"', "b = 1", ""]),
        ('a = f"{x}\nb = 1\n', ['a = f"{x}', "b = 1", ""]),
        ('a = f"{[\n1,  # ]}\n2]}"\nb = 1\n', ['a = f"{[\n1,  # ]}\n2]}"', "b = 1", ""]),
        ('a = f"\\N{DASH} {x}"\nb = 1\n', ['a = f"\\N{DASH} {x}"', "b = 1", ""]),
        ('a = if"{"\nb = 1\n', ['a = if"{"', "b = 1", ""]),
        ('a = f"""\n{x}"""\nb = 1\n', ['a = f"""\n{x}"""', "b = 1", ""]),
        ('a = f"""{x', ['a = f"""{x']),
        ('a = f"""abc', ['a = f"""abc']),
        ("a = 'x\nb = 1", ["a = 'x", "b = 1"]),
    ],
)
def test_logical_lines_are_python_3_12s(source: str, lines: list[str]) -> None:
    assert [source[start:end] for start, end in logical_lines(source)] == lines


def test_a_call_is_read_from_the_start_of_what_it_calls() -> None:
    source = "x = (eval)(a) + m.n(b)[0](c) + f'{g(d)}' + 'no'.p(e) + (1).q(f)"
    assert [source[start:end] for start, _, end in calls_in(source)] == [
        "(eval)(a)",
        "m.n(b)",
        "m.n(b)[0](c)",
        "g(d)",
        "(1).q(f)",
    ]


@pytest.mark.parametrize("spoiler", [NEWER, FIELD_SPOILERS[0], "x = = 1\n"])
@pytest.mark.parametrize(
    ("body", "construct"),
    [
        ("e = eval\ne(x)\n", "python-eval"),
        ("import os\nrun = os.system\nrun(cmd)\n", "python-os-system"),
        ("import builtins\nb = builtins\nf = b.exec\nf(code)\n", "python-exec"),
        ("from os import (\n    system,\n)\nsystem(cmd)\n", "python-os-system"),
        ("x = 1; import os as o\no.system(cmd)\n", "python-os-system"),
        ("if True: import os as o\no.popen(cmd)\n", "python-os-system"),
        ("from os import *\nsystem(cmd)\n", "python-os-system"),
        ("@eval\ndef f():\n    pass\n", "python-eval"),
    ],
)
def test_a_file_that_does_not_parse_is_resolved_through_its_statements_alone(
    repo: GitRepo, spoiler: str, body: str, construct: str
) -> None:
    found = _dangerous(repo, {"new.py": spoiler + body})
    assert construct in {i for _, _, i in where(found)}, where(found)


@pytest.mark.parametrize(
    "body",
    [
        "e = evaluate\ne(x)\n",
        "import os\nrun = os.path.join\nrun(a)\n",
        "from os import (\n    path,\n)\npath(cmd)\n",
        "@property\ndef f(self):\n    pass\n",
    ],
)
def test_names_a_file_that_does_not_parse_binds_to_nothing_dangerous_stay_quiet(
    repo: GitRepo, body: str
) -> None:
    assert _dangerous(repo, {"new.py": NEWER + body}) == []


@pytest.mark.parametrize("spoiler", [NEWER, BROKEN])
@pytest.mark.parametrize(
    "body",
    [
        "import os\nclass A:\n    run = os.system\n\n    def go(self, x):\n        self.run(x)\n\n\nA.run(x)\n",
        'import pickle\n\n\nclass Codec(Base):\n    """Reads blobs."""\n\n    decode = pickle.loads\n',
        "import subprocess\nclass A:\n    x = 1\n    if x:\n        out = subprocess.getoutput\n",
        "class A:\n    class B:\n        e = eval\n",
        "import os\nclass A:\n    def go(self, c):\n        run = os.system\n        return run(c)\n",
        "import os\nclass A:\n    pass\nrun = os.system\nrun(c)\n",
        "import os\nclass A:\n    run = staticmethod(os.system)\nA.run(c)\n",
    ],
)
def test_a_class_body_is_read_alone_as_the_whole_file_is(repo: GitRepo, spoiler: str, body: str) -> None:
    """A name a class body binds a dangerous function is an attribute, handed on as a value (not an
    alias followed to its calls), in a file that does not parse as in one that does."""
    parsed = scan(RULE, change_of(GitRepo.create(repo.root.parent / "parsed"), {"new.py": body}))
    shift = spoiler.count("\n")
    assert parsed
    expected = [(p, (n or 0) + shift, i) for p, n, i in where(parsed)]
    assert where(_dangerous(repo, {"new.py": spoiler + body})) == expected


def test_a_call_added_without_the_new_text_is_resolved_through_the_hunks_assignments(repo: GitRepo) -> None:
    base = {"app.py": "import json\n\n\ndef f(cmd):\n    return 0\n"}
    head = {"app.py": "import json\nimport os\nrun = os.system\n\ndef f(cmd):\n    return run(cmd)\n"}
    found = _dangerous(repo, head, base, texts=False)
    assert where(found) == [("app.py", 6, "python-os-system")]


def test_a_long_chain_of_aliases_in_a_file_that_does_not_parse_is_followed(repo: GitRepo) -> None:
    chain = "a0 = eval\n" + "".join(f"a{n} = a{n - 1}\n" for n in range(1, 40)) + "a39(x)\n"
    found = _dangerous(repo, {"new.py": NEWER + chain})
    assert where(found) == [("new.py", 42, "python-eval")]


@pytest.mark.parametrize(
    "body",
    [
        "e = eval\ne(x)\n",
        "import os as o\nrun = o.system\nrun(cmd)\n",
        "x = 1; import os as o\no.popen(cmd)\n",
    ],
)
@pytest.mark.parametrize("opener", [BROKEN, "value = (1,\n", "items = [\n    1,\n"])
def test_a_bracket_left_open_ends_where_a_line_starts_with_a_statement(
    repo: GitRepo, opener: str, body: str
) -> None:
    """Only a statement starts with `def`, `pass`, `import`...: a bracket still open there was never closed."""
    found = _dangerous(repo, {"new.py": opener + "pass\n" + body})
    assert len(found) == 1, where(found)


@pytest.mark.parametrize(
    "source",
    [
        "x = (\n    a\n    if b\n    else c)\n",
        "x = (yield\n    from g)\n",
        "x = [\n    y\n    for y in z\n    if y\n]\n",
        "x = [\n    y\n    async for y in z\n]\n",
        "x = (\n    not a\n    or lambda: b\n)\n",
        "x = f(\n    '''\nimport os\npass\n'''\n)\n",
    ],
)
def test_a_valid_statement_is_one_logical_line(source: str) -> None:
    assert [source[start:end] for start, end in logical_lines(source)] == [source[:-1], ""]


def test_a_line_starting_with_a_statement_closes_what_a_broken_line_left_open() -> None:
    source = "x = (1,\nimport os\ny = [\n  from a import b\n    pass\n"
    assert [source[start:end] for start, end in logical_lines(source)] == [
        "x = (1,",
        "import os",
        "y = [",
        "  from a import b",
        "    pass",
        "",
    ]

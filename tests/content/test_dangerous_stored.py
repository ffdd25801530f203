"""Values kept other than in a plain name — an object's attribute, a container's item, a loop's
name, a getter made by `operator` — are followed to the calls made through them (pystored.py), and
what `dangerous` parses (the selection, pyselect.py) finds the same as the whole file."""

from __future__ import annotations

import ast

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.pyconstructs import Resolver, python_constructs
from bot.engine.content.pystored import Looped, Stored, items_of, stores
from tests.content.helpers import change_of, constructs_found, scan
from tests.gitrepo import GitRepo

SYSTEM = "python-os-system"
EVAL = "python-eval"
SHELL = "python-subprocess-shell"

_CLASS = "import os\n\n\nclass Runner:\n    def __init__(self):\n        {store}\n\n    def go(self, cmd):\n        {use}\n"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (_CLASS.format(store="self.m = os", use="self.m.system(cmd)"), [(9, SYSTEM)]),
        (_CLASS.format(store="self.run = os.system", use="self.run(cmd)"), [(9, SYSTEM)]),
        (_CLASS.format(store='setattr(self, "m", os)', use="self.m.system(cmd)"), [(9, SYSTEM)]),
        (_CLASS.format(store="setattr(self, name, os)", use="self.anything.system(cmd)"), [(9, SYSTEM)]),
        (_CLASS.format(store='self.m = __import__("os")', use="self.m.system(cmd)"), [(9, SYSTEM)]),
        (_CLASS.format(store="self.g = getattr", use='self.g(os, "sys" + "tem")(cmd)'), [(9, SYSTEM)]),
        (_CLASS.format(store="self.i = __import__", use='self.i("os").system(cmd)'), [(9, SYSTEM)]),
        (_CLASS.format(store="self.m = os", use="run = self.m.system\n        run(cmd)"), [(10, SYSTEM)]),
        (_CLASS.format(store="self.m = os", use="m = self.m\n        m.system(cmd)"), [(10, SYSTEM)]),
        (
            "import sys\n\n\nclass A:\n    def __init__(self):\n        self.m = sys.modules['os']\n\n"
            "    def go(self, c):\n        self.m.system(c)\n",
            [(9, SYSTEM)],
        ),
        ("import builtins\nconfig.b = builtins\nconfig.b.eval(x)\n", [(3, EVAL)]),
        (
            "import subprocess\nconfig.runner = subprocess\nconfig.runner.call(c, shell=True)\n",
            [(3, SHELL)],
        ),
        ('import os\nmods = {"o": os}\nmods["o"].system(c)\n', [(3, SYSTEM)]),
        ('import os\nmods = {"o": os, "p": print}\nmods[key].system(c)\n', [(3, SYSTEM)]),
        ('import os\nmods = dict(o=os)\nrun = mods.get("o").system\nrun(c)\n', [(4, SYSTEM)]),
        ("import os\nmods = [os]\nmods[0].system(c)\n", [(3, SYSTEM)]),
        ("import os\nmods = {}\nmods[name] = os\nmods['x'].system(c)\n", [(4, SYSTEM)]),
        ("import os\nmods = []\nmods.append(os)\nmods[-1].system(c)\n", [(4, SYSTEM)]),
        ("import os\nmods = {}\nmods.update(o=os)\nmods.pop('o').system(c)\n", [(4, SYSTEM)]),
        ("import os\nmods = {}\nmods.setdefault('o', os)\nmods['o'].system(c)\n", [(4, SYSTEM)]),
        (
            "import os\n\n\nclass A:\n    def __init__(self):\n        self.handlers = {'run': os}\n\n"
            "    def go(self, k, c):\n        self.handlers[k].system(c)\n",
            [(9, SYSTEM)],
        ),
        ("import os, json\nfor m in (json, os):\n    m.system(c)\n", [(3, SYSTEM)]),
        ("import os\nmods = [os]\nfor m in mods:\n    m.system(c)\n", [(4, SYSTEM)]),
        ("import operator, os\nmc = operator.methodcaller('system', cmd)\nmc(os)\n", [(3, SYSTEM)]),
        (
            "from operator import methodcaller\nimport os\nrun = methodcaller('system', c)\nrun(os)\n",
            [(4, SYSTEM)],
        ),
        ("import operator, os\nget = operator.attrgetter('system')\nget(os)(cmd)\n", [(3, SYSTEM)]),
        ("import os\n\n\ndef get():\n    return os\n\n\nget().system(c)\n", [(8, SYSTEM)]),
        (
            "import os\n\n\nclass A:\n    def m(self):\n        if y:\n            return os\n\n"
            "    def go(self, c):\n        self.m().system(c)\n",
            [(10, SYSTEM)],
        ),
        ("import sys\n\n\ndef get():\n    return sys.modules['os']\n\n\nget().system(c)\n", [(8, SYSTEM)]),
        ("import os\nget = lambda: os\nget().system(c)\n", [(3, SYSTEM)]),
        ("import os\n\n\ndef run(c, m=os):\n    m.system(c)\n", [(5, SYSTEM)]),
        ("import os\n\n\ndef run(c, /, m=os, *, n=None):\n    m.system(c)\n", [(5, SYSTEM)]),
        ("import os\n\n\ndef run(c, *, m=os):\n    m.system(c)\n", [(5, SYSTEM)]),
        ("import os\nrun = lambda c, m=os: m.system(c)\n", [(2, SYSTEM)]),
    ],
)
def test_values_kept_in_attributes_items_and_getters_are_followed(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert constructs_found(source) == expected, source


@pytest.mark.parametrize(
    "source",
    [
        _CLASS.format(store="self.m = os", use="self.m.path.join(cmd)"),
        _CLASS.format(store="self.m = os", use="other.m.system(cmd)"),
        _CLASS.format(store="self.name = 'eval'", use="print(self.name)"),
        _CLASS.format(store='setattr(self, "m", os)', use="self.n.system(cmd)"),
        "import re\nself.m = re\nself.m.compile(x)\n",
        'import os\nmods = {"o": os, "j": json}\nmods["j"].system(c)\n',
        'import os\nmods = {"o": os.path}\nmods["o"].join(c)\n',
        "import os\nmods = [os]\nmods.append(json)\nother[0].system(c)\n",
        "import os, json\nfor m in (json,):\n    m.system(c)\n",
        "import operator, os\nmc = operator.methodcaller('getcwd')\nmc(os)\n",
        "import operator\nget = operator.attrgetter('name')\nget(obj)\n",
        "d = {}\nd[k] = v\nd.update(x)\nd.update(**other)\nd.setdefault(k)\nd.insert(v)\n",
        "import os\n\n\ndef get():\n    return os\n\n\nget().getcwd()\n",
        "import os, json\n\n\ndef get():\n    def inner():\n        return os\n\n    return json\n\n\nx.get().system(c)\n",
        "import os\n\n\ndef get():\n    return\n\n\nget().system(c)\n",
        "import os\n\n\ndef run(c, m=json):\n    m.system(c)\n",
        "import os\nf()().system(c)\n",
    ],
)
def test_near_misses_stay_quiet(source: str) -> None:
    assert constructs_found(source) == [], source


def test_where_values_are_kept_is_read_off_each_statement() -> None:
    def kept(statement: str) -> list[tuple[str, str | None, bool]]:
        return [
            (s.holder, s.key, s.attribute) if isinstance(s, Stored) else (s.name, None, False)
            for s in stores(ast.parse(statement).body[0])
        ]

    assert kept("self.a.b = v") == [("self.a.b", None, True)]
    assert kept("a, self.b = x, y") == [("self.b", None, True)]
    assert kept("d['k'] = v") == [("d", "k", False)]
    assert kept("d[k] = v") == [("d", None, False)]
    assert kept("f()[0] = v") == []
    assert kept("d = {'a': x, **y}") == [("d", "a", False)]
    assert kept("s = {x, *y}") == [("s", None, False), ("s", None, False)]
    assert kept("d = dict({'a': x}, b=y)") == [("d", "b", False), ("d", "a", False)]
    assert kept("d = dict(**y)") == []
    assert kept("q.put(v)") == [("q", None, False)]
    assert kept("l.insert(0, v)") == [("l", None, False)]
    assert kept("l.extend([v])") == [("l", None, False)]
    assert kept("d.update({'a': v}, b=w)") == [("d", "a", False), ("d", "b", False)]
    assert kept("setattr(o.p, 'a', v)") == [("o.p.a", None, True)]
    assert kept("setattr(o, a, v)") == [("o.*", None, True)]
    assert kept("setattr(o(), 'a', v)") == []
    assert kept("setattr(o, 'a')") == []
    assert kept("f(v)") == []
    assert kept("o().append(v)") == []
    assert kept("for (a, b) in x: pass") == []
    assert kept("x = 1") == []
    assert [type(s) for s in stores(ast.parse("for m in mods: pass").body[0])] == [Looped]
    assert list(items_of(ast.parse("f(x)", mode="eval").body)) == []


def test_a_change_that_adds_only_the_use_is_told_what_it_calls(repo: GitRepo) -> None:
    base = _CLASS.format(store="self.m = os", use="pass")
    head = _CLASS.format(store="self.m = os", use="self.m.system(cmd)")
    found = scan(DangerousRule(), change_of(repo, {"runner.py": head}, {"runner.py": base}))
    assert [(v.line, v.id) for v in found] == [(9, SYSTEM)]


_RUN = "import os\n\n\ndef run(m, c):\n    m.system(c)\n\n\n"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (_RUN + "run(os, 'x')\n", [(5, SYSTEM)]),
        (_RUN + "run(c='x', m=os)\n", [(5, SYSTEM)]),
        (_RUN + "o = os\nprint(run(o, 'x'))\n", [(5, SYSTEM)]),
        (_RUN + "run(__import__('os'), 'x')\n", [(5, SYSTEM)]),
        (_RUN + "run(json, 'x')\nrun(os, 'y')\n", [(5, SYSTEM)]),
        ("import os\n\n\ndef main():\n    run(os, c)\n\n\ndef run(m, c):\n    m.system(c)\n", [(9, SYSTEM)]),
        ("import os\n\n\ndef run(m, c):\n    x = m\n    x.system(c)\n\n\nrun(os, c)\n", [(6, SYSTEM)]),
        ("import os\n\n\ndef run(m, c):\n    f = m.system\n    f(c)\n\n\nrun(os, c)\n", [(6, SYSTEM)]),
        (
            "import os\n\n\ndef outer(m, c):\n    inner(m, c)\n\n\ndef inner(n, c):\n    n.system(c)\n\n\n"
            "outer(os, c)\n",
            [(9, SYSTEM)],
        ),
        (
            "import os\n\n\nclass A:\n    def go(self, m, c):\n        m.system(c)\n\n"
            "    def main(self, c):\n        self.go(os, c)\n",
            [(6, SYSTEM)],
        ),
        (
            "import os\n\n\nclass A:\n    @staticmethod\n    def go(m, c):\n        m.system(c)\n\n\n"
            "A.go(os, c)\n",
            [(7, SYSTEM)],
        ),
        (
            "import os\n\n\nclass A:\n    def go(self, m, c):\n        m.system(c)\n\n\nA.go(a, os, c)\n",
            [(6, SYSTEM)],
        ),
        ("import os\n\n\ndef run(m, /, c):\n    m.system(c)\n\n\nrun(os, c)\n", [(5, SYSTEM)]),
        ("import os\n\n\ndef run(c, *, m):\n    m.system(c)\n\n\nrun(c, m=os)\n", [(5, SYSTEM)]),
        ("import os\nrun = lambda m, c: m.system(c)\nrun(os, c)\n", [(2, SYSTEM)]),
        (
            "import subprocess\n\n\ndef call(sp, c):\n    sp.run(c, shell=True)\n\n\ncall(subprocess, c)\n",
            [(5, SHELL)],
        ),
        ("import builtins\n\n\ndef ev(b, s):\n    return b.eval(s)\n\n\nev(builtins, s)\n", [(5, EVAL)]),
        ("import sys\n\n\ndef run(m, c):\n    m.system(c)\n\n\nrun(sys.modules['os'], c)\n", [(5, SYSTEM)]),
        ("import os\n\n\ndef run(g, c):\n    g(os, 'system')(c)\n\n\nrun(getattr, c)\n", [(5, SYSTEM)]),
    ],
)
def test_values_passed_to_a_function_the_module_defines_are_what_its_parameters_hold(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert constructs_found(source) == expected, source


@pytest.mark.parametrize(
    "source",
    [
        _RUN + "run(json, 'x')\n",
        _RUN + "other(os, 'x')\n",
        _RUN + "run(c='x', n=os)\n",
        _RUN + "run('x', os)\n",
        _RUN + "run(os.path, 'x')\n",
        "import os\n\n\ndef run(m, c):\n    m.getcwd()\n\n\nrun(os, c)\n",
        "import os\n\n\nclass A:\n    def go(self, m, c):\n        m.system(c)\n\n\nA().go(json, os)\n",
        "import os\n\n\ndef run(m, c):\n    m.system(c)\n\n\nx.run.y(os, c)\n",
    ],
)
def test_values_passed_elsewhere_stay_quiet(source: str) -> None:
    assert constructs_found(source) == [], source


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import os, subprocess\nm = os\nm.system(c)\nm = subprocess\n", [(3, SYSTEM)]),
        ("import os, sys\nm = os\nm.system(c)\nm = sys\n", [(3, SYSTEM)]),
        (
            "import os, subprocess\n\n\ndef f(c):\n    m = os\n    m.system(c)\n\n\n"
            "def g():\n    m = subprocess\n    return m\n",
            [(6, SYSTEM)],
        ),
        ("import os, sys\nif x:\n    m = os\nelse:\n    m = sys\nm.system(c)\n", [(6, SYSTEM)]),
        ("import os, sys\nfor m in (sys, os):\n    m.system(c)\n", [(3, SYSTEM)]),
        ("import os, sys\nm = os\nm = sys\nx = m\nx.system(c)\n", [(5, SYSTEM)]),
        ("import os as m\nm.system(c)\nimport sys as m\n", [(2, SYSTEM)]),
        ("e = eval\ne = getattr\ne(s)\n", [(3, EVAL)]),
        (
            "import os, sys\n\n\nclass A:\n    def __init__(self):\n        self.m = os\n\n"
            "    def reset(self):\n        self.m = sys\n\n    def go(self, c):\n        self.m.system(c)\n",
            [(12, SYSTEM)],
        ),
        ('import os, sys\nmods = {}\nmods["o"] = os\nmods["o"].system(c)\nmods["o"] = sys\n', [(4, SYSTEM)]),
        (
            "import os, sys\n\n\ndef get():\n    if x:\n        return os\n    return sys\n\n\nget().system(c)\n",
            [(10, SYSTEM)],
        ),
        (
            "import os, subprocess\n\n\ndef run(m, c):\n    m.system(c)\n\n\nrun(subprocess, c)\nrun(os, c)\n",
            [(5, SYSTEM)],
        ),
    ],
)
def test_every_value_a_name_or_a_holder_is_given_is_followed(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert constructs_found(source) == expected, source


@pytest.mark.parametrize(
    "source",
    [
        "import os, json\nm = os\nm = json\nm.dumps(x)\n",
        "import os, sys\nm = os\nm.getcwd()\nm = sys\nm.exit(1)\n",
        "import os, sys\nfor m in (sys, os):\n    m.getcwd()\n",
    ],
)
def test_every_value_near_misses_stay_quiet(source: str) -> None:
    assert constructs_found(source) == [], source


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import os\nm = os if x else None\nm.system(c)\n", [(3, SYSTEM)]),
        ("import os, sys\nm = sys if x else os\nm.system(c)\n", [(3, SYSTEM)]),
        ("import os\nm = x or os\nm.system(c)\n", [(3, SYSTEM)]),
        ("import os, sys\nm = sys and os\nm.system(c)\n", [(3, SYSTEM)]),
        ("import os\n(None or os).system(c)\n", [(2, SYSTEM)]),
        ("e = None if x else eval\ne(s)\n", [(2, EVAL)]),
        ("import os\nif (m := os):\n    m.system(c)\n", [(3, SYSTEM)]),
        ("import os\nwhile (m := os) is None:\n    pass\nm.system(c)\n", [(4, SYSTEM)]),
        ("import os\nmods = (os,)\nm = mods[0]\nm.system(c)\n", [(4, SYSTEM)]),
        ("import os\n[os][0].system(c)\n", [(2, SYSTEM)]),
        ("import os, sys\n(sys, os)[1].system(c)\n", [(2, SYSTEM)]),
        ("import os\n{'o': os}['o'].system(c)\n", [(2, SYSTEM)]),
        ("import os\ng = lambda: os\nx = [g()][0]\nx.system(c)\n", [(4, SYSTEM)]),
        ("import os\n\n\nclass A:\n    m = os\n\n\nA.m.system(c)\n", [(8, SYSTEM)]),
        (
            "import os\n\n\nclass A:\n    m = os\n\n    def go(self, c):\n        self.m.system(c)\n",
            [(8, SYSTEM)],
        ),
        (
            "import os\n\n\nclass A:\n    run = os.system\n\n    @classmethod\n    def go(cls, c):\n"
            "        cls.run(c)\n",
            [(9, SYSTEM)],
        ),
    ],
)
def test_values_an_expression_may_take_are_each_followed(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert constructs_found(source) == expected, source


@pytest.mark.parametrize(
    "source",
    [
        "import os, json\nm = json if x else None\nm.system(c)\n",
        "import os\nm = x or os\nm.getcwd()\n",
        "import os, json\n{'o': os, 'j': json}['j'].system(c)\n",
        "import os\nif (m := json):\n    m.system(c)\n",
        "import os\n\n\nclass A:\n    m = os\n\n\nB.m.system(c)\n",
    ],
)
def test_values_an_expression_may_take_near_misses(source: str) -> None:
    assert constructs_found(source) == [], source


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "import os\n\n\nclass A:\n    def __init__(self, m):\n        self.m = m\n\n"
            "    def go(self, c):\n        self.m.system(c)\n\n\nA(os).go(c)\n",
            [(9, SYSTEM)],
        ),
        (
            "import os\n\n\nclass A:\n    def __init__(self, m, c):\n        m.system(c)\n\n\nA(m=os, c=c)\n",
            [(6, SYSTEM)],
        ),
        (_RUN + "g = run\ng(os, c)\n", [(5, SYSTEM)]),
        (_RUN + "run(*(os, c))\n", [(5, SYSTEM)]),
        (_RUN + "run(*[os], c)\n", [(5, SYSTEM)]),
        (_RUN + "run(**{'m': os, 'c': c})\n", [(5, SYSTEM)]),
        (_RUN + "from functools import partial\npartial(run, os)(c)\n", [(5, SYSTEM)]),
        (_RUN + "import functools\nfunctools.partial(run, m=os)(c=c)\n", [(5, SYSTEM)]),
        ("import os\n\n\ndef f(*a):\n    a[0].system(c)\n\n\nf(os)\n", [(5, SYSTEM)]),
        (
            "import os\n\n\ndef f(c, *rest):\n    for m in rest:\n        m.system(c)\n\n\nf(c, json, os)\n",
            [(6, SYSTEM)],
        ),
        ("import os\n\n\ndef f(c, **kw):\n    kw['m'].system(c)\n\n\nf(c, m=os)\n", [(5, SYSTEM)]),
    ],
)
def test_values_passed_however_the_call_is_made(source: str, expected: list[tuple[int, str]]) -> None:
    assert constructs_found(source) == expected, source


@pytest.mark.parametrize(
    "source",
    [
        "import os\n\n\nclass A:\n    def __init__(self, m):\n        self.m = m\n\n"
        "    def go(self, c):\n        self.m.system(c)\n\n\nA(json).go(c)\n",
        _RUN + "g = other\ng(os, c)\n",
        _RUN + "run(*(c, os))\n",
        _RUN + "run(**{'n': os})\n",
        _RUN + "from functools import partial\npartial(run, c)(os)\n",
        "import os\n\n\ndef f(*a):\n    a[0].system(c)\n\n\nf(json)\n",
        "import os\n\n\ndef f(c, **kw):\n    kw['m'].system(c)\n\n\nf(c, n=os)\n",
    ],
)
def test_values_passed_however_near_misses(source: str) -> None:
    assert constructs_found(source) == [], source


def test_a_dangerous_function_passed_is_reported_where_it_is_handed_on() -> None:
    source = "def run(g, c):\n    g(c)\n\n\nrun(getattr(__import__('os'), 'system'), c)\n"
    found = python_constructs(ast.parse(source))
    assert [(f.line, f.construct.value, f.handed_on) for f in found] == [(5, SYSTEM, True)]


def _chain(depth: int) -> str:
    """A module passed along `depth` functions, each defined before the one that calls it (the
    call into it read first): every reading of the calls gives one more parameter its value."""
    functions = "".join(f"def f{n}(m, c):\n    f{n + 1}(m, c)\n\n\n" for n in range(depth - 1, 0, -1))
    return f"import os\n\n\ndef f{depth}(m, c):\n    m.system(c)\n\n\n{functions}f1(os, c)\n"


def test_a_value_passed_along_functions_written_before_their_callers_is_followed_four_deep() -> None:
    assert constructs_found(_chain(4)) == [(5, SYSTEM)]
    assert constructs_found(_chain(5)) == []  # past four readings: not followed (README)


def test_a_name_read_alone_of_an_expression_of_several_values_is_the_first() -> None:
    tree = ast.parse("import os, sys\nx = os if c else sys\n")
    resolver = Resolver(tree, whole=True)
    either = ast.parse("os if c else sys", mode="eval").body
    assert resolver.name(either) == "os"
    assert resolver.names(either) == ["os", "sys"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import os\n[m.system(c) for m in (os,)]\n", [(2, SYSTEM)]),
        ("import os, sys\nlist(m.system(c) for m in [sys, os])\n", [(2, SYSTEM)]),
        ("import os\nmods = [os]\n{m.system(c) for m in mods}\n", [(3, SYSTEM)]),
        ("import os\n(lambda m: m.system(c))(os)\n", [(2, SYSTEM)]),
        ("import os\n(lambda c, m=None: m.system(c))(c, m=os)\n", [(2, SYSTEM)]),
    ],
)
def test_names_comprehensions_and_lambdas_called_where_written_bind(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert constructs_found(source) == expected, source


@pytest.mark.parametrize(
    "source",
    [
        "import os, json\n[m.system(c) for m in (json,)]\n",
        "import os\n(lambda m: m.system(c))(json)\n",
        "import os\n[m.getcwd() for m in (os,)]\n",
    ],
)
def test_names_comprehensions_and_lambdas_near_misses(source: str) -> None:
    assert constructs_found(source) == [], source

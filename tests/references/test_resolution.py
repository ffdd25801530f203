"""How `references` resolves names: every binding form, scope rule, class lookup and dynamic
construct, each as a base commit, a head commit and the findings (or the quiet) it must give."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine.references.result import MAX_LISTED
from bot.engine.render.markdown import render_markdown
from bot.engine.semantic import CheckConclusion
from tests.gitrepo import GitRepo
from tests.references.helpers import change, found, references

FETCH = "def fetch(url, timeout=10):\n    return url\n"
FETCH_HEAD = "def fetch(url):\n    return url\n"
OLD = "def old(a):\n    return a\n"
NEW = "def new(a):\n    return a\n"

CASES = {
    "a local import inside a function": (
        {
            "lib.py": FETCH,
            "use.py": "def f():\n    from lib import fetch\n    return fetch('u', timeout=1)\n",
        },
        {"lib.py": FETCH_HEAD},
        [("use.py", 3, "signature", "lib.fetch")],
    ),
    "a name bound twice in a function is not followed": (
        {
            "lib.py": FETCH,
            "use.py": "from lib import fetch\n\n\ndef f(x):\n    g = fetch\n    g = x\n    g(timeout=1)\n",
        },
        {"lib.py": FETCH_HEAD},
        [],
    ),
    "an instance made at module level and imported": (
        {
            "lib.py": "class Client:\n    def send(self, body, retries=1):\n        return body\n\n\nclient = Client()\n",
            "use.py": "from lib import client\nclient.send('x', retries=2)\n",
        },
        {"lib.py": "class Client:\n    def send(self, body):\n        return body\n\n\nclient = Client()\n"},
        [("use.py", 2, "signature", "lib.Client.send")],
    ),
    "an instance that is removed": (
        {"lib.py": "class Client:\n    pass\n\n\nclient = Client()\n", "use.py": "from lib import client\n"},
        {"lib.py": "class Client:\n    pass\n"},
        [("use.py", 1, "removed", "lib.client")],
    ),
    "a name bound twice at module level exists, then is removed": (
        {
            "lib.py": "import os\nif os.name:\n    def old():\n        pass\nelse:\n    old = None\n",
            "use.py": "import lib\nlib.old\n",
        },
        {"lib.py": "import os\n"},
        [("use.py", 2, "removed", "lib.old")],
    ),
    "an attribute of a function is not followed": (
        {"lib.py": FETCH, "use.py": "import lib\nlib.fetch.cache_clear(timeout=1)\n"},
        {"lib.py": FETCH_HEAD},
        [],
    ),
    "star imports inside the tree are followed": (
        {
            "pkg/__init__.py": "from .core import *\n",
            "pkg/core.py": FETCH + OLD,
            "use.py": "from pkg import fetch, old\nfetch('u', timeout=1)\n",
        },
        {"pkg/core.py": FETCH_HEAD},
        [("use.py", 1, "removed", "pkg.old"), ("use.py", 2, "signature", "pkg.core.fetch")],
    ),
    "a star import from outside the tree is not guessed at": (
        {
            "pkg/__init__.py": "from os.path import *\nfrom .core import *\n",
            "pkg/core.py": OLD,
            "use.py": "from pkg import old\n",
        },
        {"pkg/core.py": NEW},
        [],
    ),
    "__all__ and private names limit a star import": (
        {
            "pkg/__init__.py": "from .core import *\nfrom .more import *\n",
            "pkg/core.py": "__all__ = ['new']\n" + OLD + NEW,
            "pkg/more.py": "def _old(a):\n    return a\n",
            "use.py": "from pkg import old, _old\n",
        },
        {"pkg/core.py": "__all__ = ['new']\n" + NEW, "pkg/more.py": "X = 1\n"},
        [],
    ),
    "a cycle of re-exports is not followed forever": (
        {"lib.py": OLD, "a.py": "from b import old\n", "b.py": "from a import old\n"},
        {"lib.py": NEW},
        [],
    ),
    "a module-level __getattr__ answers for anything": (
        {"lib.py": OLD + "\n\ndef __getattr__(name):\n    return name\n", "use.py": "from lib import old\n"},
        {"lib.py": NEW + "\n\ndef __getattr__(name):\n    return name\n"},
        [],
    ),
    "a removed instance attribute": (
        {
            "lib.py": "class W:\n    def __init__(self):\n        self.size = 1\n",
            "use.py": "from lib import W\n\n\ndef f(w: W):\n    return w.size\n",
        },
        {"lib.py": "class W:\n    def __init__(self):\n        self.width = 1\n"},
        [("use.py", 5, "removed", "lib.W.size")],
    ),
    "members are looked up through the bases, object and foreign bases": (
        {
            "lib.py": (
                "class A:\n    def spin(self, n):\n        return n\n\n\n"
                "class B:\n    def turn(self, n):\n        return n\n\n\n"
                "class C(A, B, object):\n    pass\n\n\n"
                "class E(Exception):\n    pass\n"
            ),
            "use.py": (
                "import lib\n\n\ndef f(c: lib.C, e: lib.E):\n"
                "    c.turn(1)\n    c.spin(1)\n    e.turn(1)\n    return c.gone\n"
            ),
        },
        {
            "lib.py": (
                "class A:\n    def spin(self, n, m):\n        return n\n\n\n"
                "class B:\n    def turn(self):\n        return 1\n\n\n"
                "class C(A, B, object):\n    pass\n\n\n"
                "class E(Exception):\n    pass\n"
            ),
        },
        [("use.py", 5, "signature", "lib.B.turn"), ("use.py", 6, "signature", "lib.A.spin")],
    ),
    "dynamic classes are not followed": (
        {
            "lib.py": (
                "class M(type):\n    pass\n\n\nclass D(metaclass=M):\n    def spin(self):\n        pass\n\n\n"
                "class G:\n    def __getattr__(self, name):\n        return name\n\n    def spin(self):\n        pass\n"
            ),
            "use.py": "from lib import D, G\nD().spin\nG.spin\n",
        },
        {
            "lib.py": (
                "class M(type):\n    pass\n\n\nclass D(metaclass=M):\n    pass\n\n\n"
                "class G:\n    def __getattr__(self, name):\n        return name\n"
            ),
        },
        [],
    ),
    "decorated functions and properties have no known signature": (
        {
            "lib.py": (
                "import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef cached(a, b=1):\n    return a\n\n\n"
                "@app.route('/')\ndef page(a, b=1):\n    return a\n\n\n"
                "class W:\n    @property\n    def size(self):\n        return 1\n"
            ),
            "use.py": "from lib import cached, page, W\ncached(1, b=2)\npage(1, b=2)\nW().size\n",
        },
        {
            "lib.py": (
                "import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef cached(a):\n    return a\n\n\n"
                "@app.route('/')\ndef page(a):\n    return a\n\n\n"
                "class W:\n    @property\n    def size(self, extra):\n        return 1\n"
            ),
        },
        [("use.py", 2, "signature", "lib.cached")],
    ),
    "classmethods called on the class, and a method taking *args": (
        {
            "lib.py": (
                "class W:\n    @classmethod\n    def make(cls, n):\n        return cls()\n\n"
                "    def any(*args):\n        return args\n\n"
                "    def __new__(cls, *a):\n        return object.__new__(cls)\n"
            ),
            "use.py": "from lib import W\nW.make(1)\nw = W()\nw.any(1)\nW(1, 2)\n",
        },
        {
            "lib.py": (
                "class W:\n    @classmethod\n    def make(cls):\n        return cls()\n\n"
                "    def any(*args, key):\n        return args\n\n"
                "    def __new__(cls):\n        return object.__new__(cls)\n"
            ),
        },
        [("use.py", 2, "signature", "lib.W.make"), ("use.py", 4, "signature", "lib.W.any")],
    ),
    "keywords a **kwargs still accepts": (
        {"lib.py": "def f(a, b=1):\n    return a\n", "use.py": "from lib import f\nf(1, b=2)\nf(1, c=3)\n"},
        {"lib.py": "def f(a, **rest):\n    return a\n"},
        [],
    ),
    "dataclasses with fields the check cannot read": (
        {
            "lib.py": (
                "from dataclasses import dataclass, field, KW_ONLY\nfrom typing import ClassVar\n\n\n"
                "@dataclass(kw_only=True)\nclass K:\n    a: int\n\n\n"
                "@dataclass\nclass F:\n    a: int = field(init=False)\n\n\n"
                "@dataclass\nclass S:\n    _: KW_ONLY\n    a: int = 0\n\n\n"
                "@dataclass\nclass V:\n    n: ClassVar[int] = 0\n    a: int = 0\n    def m(self):\n        pass\n"
            ),
            "use.py": "from lib import K, F, S, V\nK(a=1)\nF()\nS(a=1)\nV(1)\n",
        },
        {
            "lib.py": (
                "from dataclasses import dataclass, field, KW_ONLY\nfrom typing import ClassVar\n\n\n"
                "@dataclass(kw_only=True)\nclass K:\n    b: int\n\n\n"
                "@dataclass\nclass F:\n    b: int = field(init=False)\n\n\n"
                "@dataclass\nclass S:\n    _: KW_ONLY\n    b: int = 0\n\n\n"
                "@dataclass\nclass V:\n    n: ClassVar[int] = 0\n    b: int = 0\n    def m(self):\n        pass\n"
            ),
        },
        [],
    ),
    "a dataclass with a base class, or its own __init__": (
        {
            "lib.py": (
                "from dataclasses import dataclass\n\n\nclass Base:\n    pass\n\n\n"
                "@dataclass\nclass D(Base):\n    a: int\n\n\n@dataclass\nclass I:\n    a: int\n"
                "    def __init__(self, a):\n        self.a = a\n"
            ),
            "use.py": "from lib import D, I\nD(1)\nI(1)\n",
        },
        {
            "lib.py": (
                "from dataclasses import dataclass\n\n\nclass Base:\n    pass\n\n\n"
                "@dataclass\nclass D(Base):\n    b: int\n\n\n@dataclass\nclass I:\n    a: int\n"
                "    def __init__(self):\n        self.a = 1\n"
            ),
        },
        [("use.py", 3, "signature", "lib.I")],
    ),
    "scopes: globals, nonlocals, class bodies, walrus, except and match names": (
        {
            "lib.py": FETCH,
            "use.py": (
                "from lib import fetch\n\n\n"
                "def a():\n    fetch('u', timeout=1)\n\n\n"
                "def b():\n    fetch = dict\n\n    def inner():\n        nonlocal fetch\n        return fetch(timeout=1)\n    return inner\n\n\n"
                "class K:\n    fetch = dict\n    x = fetch(timeout=1)\n\n    def m(self) -> int:\n        return fetch('u', timeout=2)\n\n\n"
                "def c(items):\n    if (fetch := dict):\n        fetch(timeout=1)\n    return [(fetch := dict) for _ in items for _ in items]\n\n\n"
                "def d():\n    try:\n        pass\n    except ValueError as fetch:\n        fetch(timeout=1)\n\n\n"
                "def e(v):\n    match v:\n        case {'k': 1, **fetch}:\n            fetch(timeout=1)\n        case [*fetch]:\n            fetch(timeout=1)\n"
            ),
        },
        {"lib.py": FETCH_HEAD},
        [("use.py", 5, "signature", "lib.fetch"), ("use.py", 22, "signature", "lib.fetch")],
    ),
    "a global declaration makes the module's name ambiguous": (
        {
            "lib.py": FETCH,
            "use.py": "from lib import fetch\n\n\ndef a():\n    global fetch\n    fetch('u', timeout=1)\n",
        },
        {"lib.py": FETCH_HEAD},
        [],
    ),
    "self in a class nested in a class, and a new class the base never had": (
        {
            "lib.py": "class Outer:\n    class Inner:\n        def spin(self, n):\n            return n\n\n        def go(self):\n            return self.spin(1)\n",
            "use.py": "X = 1\n",
        },
        {
            "lib.py": "class Outer:\n    class Inner:\n        def spin(self):\n            return 1\n\n        def go(self):\n            return self.spin(1)\n",
            "use.py": "from lib import Outer\n\n\nclass Mine(Outer.Inner):\n    def twice(self):\n        return self.spin(2)\n",
        },
        [("lib.py", 7, "signature", "lib.Outer.Inner.spin")],
    ),
    "bindings of every statement form at module level": (
        {
            "lib.py": (
                "import contextlib\nfor loop in []:\n    pass\nwith contextlib.suppress() as ctx:\n    pass\n"
                "try:\n    pass\nexcept ValueError as err:\n    pass\na = b = 1\nc, d = 1, 2\n"
                "del c\n\n\ndef setter():\n    global made\n    made = 1\n\n\n"
                "class Slots:\n    __slots__ = ('x', 'y')\n"
            ),
            "use.py": "from lib import loop, ctx, err, a, b, d, made\nfrom lib import Slots\n\n\ndef f(s: Slots):\n    return s.x\n",
        },
        {"lib.py": "class Slots:\n    __slots__ = ('y',)\n"},
        [
            ("use.py", 1, "removed", "lib.a"),
            ("use.py", 1, "removed", "lib.b"),
            ("use.py", 1, "removed", "lib.ctx"),
            ("use.py", 1, "removed", "lib.d"),
            ("use.py", 1, "removed", "lib.err"),
            ("use.py", 1, "removed", "lib.loop"),
            ("use.py", 1, "removed", "lib.made"),
            ("use.py", 6, "removed", "lib.Slots.x"),
        ],
    ),
    "a relative import above the root is not a module": (
        {"lib.py": OLD, "use.py": "from ... import old\nfrom lib import old as mine\n"},
        {"lib.py": NEW},
        [("use.py", 2, "removed", "lib.old")],
    ),
    "a module imported under its own name": (
        {
            "pkg/__init__.py": "",
            "pkg/gone.py": "X = 1\n",
            "use.py": "import pkg.gone as gone\n\n\ndef f():\n    return gone.X\n",
        },
        {},
        [("use.py", 1, "removed", "pkg.gone")],
    ),
    "a class removed with its members": (
        {"lib.py": "class W:\n    def spin(self):\n        pass\n", "use.py": "from lib import W\n"},
        {"lib.py": "X = 1\n"},
        [("use.py", 1, "removed", "lib.W")],
    ),
    "a name defined by itself is not followed forever": (
        {"lib.py": OLD, "use.py": "def f():\n    old = old()\n    return old\n"},
        {"lib.py": NEW},
        [],
    ),
    "re-exports under new names are followed for four rounds": (
        {
            "lib.py": OLD,
            "a.py": "from lib import old as a1\n",
            "b.py": "from a import a1 as a2\n",
            "c.py": "from b import a2 as a3\n",
            "d.py": "from c import a3 as a4\n",
            "e.py": "from d import a4 as a5\n",
        },
        {"lib.py": NEW},
        [
            ("a.py", 1, "removed", "lib.old"),
            ("b.py", 1, "removed", "lib.old"),
            ("c.py", 1, "removed", "lib.old"),
            ("d.py", 1, "removed", "lib.old"),
        ],
    ),
    "a mapping pattern without a rest": (
        {
            "lib.py": FETCH,
            "use.py": "from lib import fetch\n\n\ndef e(v):\n    match v:\n        case {'k': 1}:\n            fetch('u', timeout=1)\n",
        },
        {"lib.py": FETCH_HEAD},
        [("use.py", 7, "signature", "lib.fetch")],
    ),
    "a star import in the caller": (
        {"lib.py": OLD, "use.py": "from lib import *\nold(1)\n"},
        {"lib.py": NEW},
        [("use.py", 2, "removed", "use.old")],
    ),
    "a module that is not text is not followed": (
        {"lib.py": OLD, "blob.py": "\0old\n", "use.py": "from blob import old\n"},
        {"lib.py": NEW},
        [],
    ),
    "a member removed from a class whose only base is object": (
        {
            "lib.py": "class P(object):\n    def spin(self):\n        pass\n",
            "use.py": "from lib import P\nP.spin\n",
        },
        {"lib.py": "class P(object):\n    pass\n"},
        [("use.py", 2, "removed", "lib.P.spin")],
    ),
    "a base class that is not a name is not followed": (
        {
            "lib.py": "def make():\n    return object\n\n\nclass F(make()):\n    def spin(self, n):\n        pass\n",
            "use.py": "from lib import F\n\n\ndef f(x: F):\n    return x.spin\n",
        },
        {"lib.py": "def make():\n    return object\n\n\nclass F(make()):\n    pass\n"},
        [],
    ),
    "self.hook that only a subclass still defines is quiet": (
        {
            "lib.py": "class Base:\n    def hook(self):\n        pass\n\n    def run(self):\n        return self.hook()\n",
            "sub.py": "from lib import Base\n\n\nclass Sub(Base):\n    def hook(self):\n        return 1\n",
        },
        {"lib.py": "class Base:\n    def run(self):\n        return self.hook()\n"},
        [],
    ),
    "self.hook that no class defines any more": (
        {
            "lib.py": "class Base:\n    def hook(self):\n        pass\n\n    def run(self):\n        return self.hook()\n"
        },
        {"lib.py": "class Base:\n    def run(self):\n        return self.hook()\n"},
        [("lib.py", 3, "removed", "lib.Base.hook")],
    ),
    "getattr with a name that did not change": (
        {"lib.py": OLD, "use.py": "import lib\ngetattr(lib, 'other')\ngetattr(lib, name)\nlib.old\n"},
        {"lib.py": NEW},
        [("use.py", 4, "removed", "lib.old")],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_resolution(repo: GitRepo, case: str) -> None:
    base, head, expected = CASES[case]
    removed = tuple(p for p in base if p.startswith("pkg/gone"))
    assert found(change(repo, base, head, removed=removed)) == expected


def test_a_changed_module_that_does_not_parse_at_the_head_is_a_gap(repo: GitRepo) -> None:
    receipt = change(repo, {"lib.py": OLD, "use.py": "from lib import old\n"}, {"lib.py": "def new(:\n"})
    result = references(receipt)
    assert result.conclusion is CheckConclusion.NEUTRAL
    assert result.incomplete == "lib.py does not parse here"
    assert result.summary == "not followed: lib.py does not parse here"
    assert "references not followed: lib.py does not parse here" in receipt.verdict.reasons


def test_a_module_that_never_parsed_is_only_noted(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {
            "lib.py": "print 'py2'\n",
            "old2.py": "print old\n",
            "new.py": OLD,
            "use.py": "from new import old\n",
        },
        {"lib.py": "print 'still py2'\n", "new.py": NEW, "broken.py": "old(\n"},
    )
    result = references(receipt)
    assert found(receipt) == [("use.py", 1, "removed", "new.old")]
    assert result.notes == ("old2.py does not parse here",)
    assert result.incomplete == "broken.py does not parse here"


def test_modules_nested_too_deeply_are_gaps(repo: GitRepo) -> None:
    deep = "+".join(["1"] * 1500)
    receipt = change(
        repo,
        {
            "lib.py": f"def old(a={deep}):\n    return a\n",
            "x.py": OLD,
            "use.py": f"from x import old\nv = old({deep})\n",
        },
        {"lib.py": f"def old(a={deep}, b=1):\n    return a\n", "x.py": NEW},
    )
    result = references(receipt)
    assert (
        result.incomplete
        == "lib.py is nested too deeply to compare; lib.py is nested too deeply to follow; use.py is nested too deeply to follow"
    )
    assert result.conclusion is CheckConclusion.NEUTRAL


def test_a_module_whose_bindings_nest_too_deeply_does_not_parse_here(repo: GitRepo) -> None:
    deep = "+".join(["1"] * 1500)
    receipt = change(
        repo, {"lib.py": OLD, "use.py": f"from lib import old\nx, y = {deep}, 1\n"}, {"lib.py": NEW}
    )
    assert references(receipt).notes == ("use.py does not parse here",)


def test_findings_past_the_limit_are_counted(repo: GitRepo, tmp_path: Path) -> None:
    calls = "".join(f"fetch('u', timeout={n})\n" for n in range(MAX_LISTED + 5))
    receipt = change(
        repo, {"lib.py": FETCH, "use.py": "from lib import fetch\n" + calls}, {"lib.py": FETCH_HEAD}
    )
    result = references(receipt)
    assert (len(result.findings), result.left_out) == (MAX_LISTED, 5)
    assert result.summary == f"{MAX_LISTED + 5} broken call site(s)"
    assert result.details.splitlines()[-1] == "… and 5 more not listed"
    markdown = render_markdown(receipt)
    assert "### Broken call sites" in markdown and f"- … and {MAX_LISTED - 20 + 5} more" in markdown


def test_many_dynamic_uses_are_counted_in_the_notes(repo: GitRepo) -> None:
    uses = "".join(f"getattr(lib, 'old')  # {n}\n" for n in range(12))
    receipt = change(repo, {"lib.py": OLD, "use.py": "import lib\n" + uses}, {"lib.py": NEW})
    notes = references(receipt).notes
    assert len(notes) == 11 and notes[-1] == "2 more"


def test_a_change_removing_thousands_of_names_is_prefiltered_word_by_word(repo: GitRepo) -> None:
    many = "".join(f"def f{n}():\n    pass\n" for n in range(2_100))
    receipt = change(
        repo,
        {"gen.py": many, "use.py": "from gen import f7, f2099\n", "other.py": "X = 1\n"},
        {"gen.py": "def f7():\n    pass\n"},
    )
    assert found(receipt) == [("use.py", 1, "removed", "gen.f2099")]
    assert references(receipt).readers == 1  # use.py; gen.py and other.py mention none of them

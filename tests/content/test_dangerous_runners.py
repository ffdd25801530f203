"""Python's other ways to run code: runpy, the `code` module's interpreters, code objects (marshal,
types), native libraries (ctypes) and pickle's kin (dill, cloudpickle, shelve). Each is reached in
every form the older entries are: an alias, `from m import f`, getattr, `importlib.import_module`,
NFKC look-alike names, a name assigned it, handed on as a value, and in a file that does not parse."""

from __future__ import annotations

import ast

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.pyconstructs import python_constructs
from bot.engine.content.pyselect import selected_source
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

BROKEN = "def broken(:\n    pass\n"

# (module, the function's path in it, its arguments, the construct): every entry added.
ENTRIES = [
    ("runpy", "run_path", "path", "python-run-code"),
    ("runpy", "run_module", "name, run_name='__main__'", "python-run-code"),
    ("code", "interact", "local=namespace", "python-run-code"),
    ("marshal", "loads", "blob", "python-code-object"),
    ("marshal", "load", "handle", "python-code-object"),
    ("types", "FunctionType", "compiled, namespace", "python-code-object"),
    ("types", "CodeType", "*fields", "python-code-object"),
    ("ctypes", "CDLL", "path", "python-native-code"),
    ("ctypes", "WinDLL", "path", "python-native-code"),
    ("ctypes", "cdll.LoadLibrary", "path", "python-native-code"),
    ("ctypes", "windll.LoadLibrary", "path", "python-native-code"),
    ("_ctypes", "dlopen", "path, mode", "python-native-code"),
    ("dill", "loads", "blob", "python-pickle"),
    ("dill", "Unpickler", "handle", "python-pickle"),
    ("cloudpickle", "load", "handle", "python-pickle"),
    ("shelve", "open", "path", "python-pickle"),
]

# Classes are judged when called: handed on as a value, one is mostly a type to check.
CLASSES = frozenset({"FunctionType", "CodeType", "CDLL", "WinDLL"})
_FULLWIDTH = {
    c: chr(ord(c) - ord("!") + 0xFF01) for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
}


def _forms(module: str, path: str, args: str) -> list[str]:
    head, _, rest = path.partition(".")
    tail = f".{rest}" if rest else ""
    last = path.rsplit(".", 1)[-1]
    owner = f"{module}.{path.rsplit('.', 1)[0]}" if rest else module
    wide = "".join(_FULLWIDTH.get(c, c) for c in last)
    return [
        f"import {module}\n{module}.{path}({args})\n",
        f"import {module} as m_\nm_.{path}({args})\n",
        f"from {module} import {head}\n{head}{tail}({args})\n",
        f"from {module} import {head} as h_\nh_{tail}({args})\n",
        f"import {module}\ngetattr({owner}, '{last}')({args})\n",
        f"import importlib\nimportlib.import_module('{module}').{path}({args})\n",
        f"import {module}\nf_ = {module}.{path}\n\n\ndef g(*a):\n    return f_({args})\n",
        f"import {module}\n{owner}.{wide}({args})\n",
    ] + ([] if path in CLASSES else [f"import {module}\nresults = map({module}.{path}, items)\n"])


def _found(source: str) -> list[tuple[str, int]]:
    tree = ast.parse(source)
    found = python_constructs(tree)
    selected = selected_source(source)
    if selected is not None:  # what `dangerous` parses finds the same (pyselect.py)
        assert python_constructs(ast.parse(selected)) == found
    return [(f.construct.value, f.line) for f in found]


@pytest.mark.parametrize(
    ("source", "construct"),
    [(form, construct) for module, path, args, construct in ENTRIES for form in _forms(module, path, args)],
)
def test_every_runner_is_resolved_in_every_form(source: str, construct: str) -> None:
    assert {c for c, _ in _found(source)} == {construct}, source


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        ("import code\ncode.InteractiveInterpreter().runsource(source)\n", "python-run-code"),
        ("import code\ncode.InteractiveConsole(ns).push(line)\n", "python-run-code"),
        ("import code\nconsole = code.InteractiveConsole()\nconsole.interact()\n", "python-run-code"),
        ("from code import InteractiveConsole as IC\nc = IC()\nc.push(line)\n", "python-run-code"),
        ("import code as c\ni = c.InteractiveInterpreter(ns)\ni.runcode(compiled)\n", "python-run-code"),
        ("import code\ngetattr(code, 'InteractiveConsole')().push(line)\n", "python-run-code"),
        (
            "import importlib\nimportlib.import_module('code').InteractiveInterpreter().runsource(s)\n",
            "python-run-code",
        ),
        ("import code\ncode.InteractiveInterpreter().ｒｕｎｓｏｕｒｃｅ(source)\n", "python-run-code"),
        (
            "import code\nfeed = code.InteractiveConsole().push\nfor line in lines:\n    feed(line)\n",
            "python-run-code",
        ),
        ("import code\nlines.map(code.InteractiveConsole().push)\n", "python-run-code"),
        ("import ctypes\nctypes.LibraryLoader(ctypes.CDLL).LoadLibrary(path)\n", "python-native-code"),
        ("import code\nm = code\nm.interact()\n", "python-run-code"),
        ("import types\nt = (types)\nt.FunctionType(compiled, ns)\n", "python-code-object"),
        ("import pty\npty.spawn(['sh', '-c', command])\n", "python-subprocess-shell"),
        ("from pty import spawn\nspawn(('/bin/bash', '-c', command))\n", "python-subprocess-shell"),
        ("import os\nos.posix_spawnp('sh', ['sh', '-c', command], env)\n", "python-subprocess-shell"),
        ("import os\nos.execvpe('bash', ['bash', '-c', command], env)\n", "python-subprocess-shell"),
    ],
)
def test_interpreters_and_their_methods(source: str, construct: str) -> None:
    assert {c for c, _ in _found(source)} == {construct}, source


@pytest.mark.parametrize(
    "source",
    [
        "import re\ncode = re.compile(pattern)\ncode.match(text)\n",
        "code = compile_regex(pattern)\ncode.interact()\n",
        "def run_path(p):\n    return p\n\n\nrun_path(p)\n",
        "from tools import run_path\nrun_path(p)\n",
        "import runpy\nrunpy.run_path('scripts/setup_helpers.py')\n",  # fixed in the source
        "import runpy\nrunpy.run_module('pip', run_name='__main__')\n",
        "import marshal\nblob = marshal.dumps(value)\n",
        "import ctypes\nsize = ctypes.sizeof(ctypes.c_int)\nn = ctypes.c_int(3)\n",
        "import ctypes\nlibc = ctypes.CDLL('libc.so.6')\nself = ctypes.CDLL(None)\n",
        "import types\nns = types.SimpleNamespace(a=1)\nm = types.MethodType(f, obj)\n",
        "stack.push(item)\nself.interpreter.runsource(source)\n",
        "db.open(path)\nwith shelf.open(path) as s:\n    pass\n",
        "import dill\nblob = dill.dumps(value)\n",
        "import code\nprint(code.__doc__)\n",
        "import pty\npty.spawn('/bin/sh')\n",
        # A class handed on as a value is a type to check or to subclass.
        "import types\nisinstance(f, (types.FunctionType, types.MethodType))\n",
        "import types\n\n\ndef f(x: types.CodeType) -> types.LambdaType:\n    return x\n",
        "import types\nclass A:\n    f: types.FunctionType\n",
        "from types import FunctionType, CodeType\n",  # a module's names, not an export of danger
        "import shelve\nisinstance(d, (dict, shelve.Shelf))\n",
        "import ctypes\n\n\nclass Library(ctypes.CDLL):\n    pass\n",
        # Named like a common attribute: the module only where imported as such.
        "import code\nself.code.interact()\nerr.code.push(x)\n",
        "from helpers import types\ntypes.FunctionType(c, g)\n",
    ],
)
def test_runner_near_misses_stay_quiet(source: str) -> None:
    assert _found(source) == [], source


def test_marshal_dill_and_shelve_in_bandits_examples() -> None:
    source = "import marshal\nprint(marshal.loads(serialized))\nprint(marshal.load(file_obj))\n"
    assert _found(source) == [("python-code-object", 2), ("python-code-object", 3)]


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        (form, construct)
        for module, path, args, construct in ENTRIES
        for form in _forms(module, path, args)[:4]
    ]
    + [
        ("import code\nc = code.InteractiveConsole()\nc.push(\n    line)\n", "python-run-code"),
        ("from ctypes import cdll\nlib = cdll.LoadLibrary(\n    path)\n", "python-native-code"),
    ],
)
def test_runners_in_a_file_that_does_not_parse(repo: GitRepo, source: str, construct: str) -> None:
    change = change_of(repo, {"new.py": BROKEN + source})
    found = scan(DangerousRule(), change)
    assert where(found) == where(scan(DangerousRule(parse_whole_files=True), change))
    assert {i for _, _, i in where(found)} == {construct}, source


def test_a_loop_over_fixed_paths_is_judged_by_the_paths(repo: GitRepo) -> None:
    """A target given a loop variable that can only hold a string of the source (pyfixed.py) is
    fixed, as an importer's is."""
    source = (
        "import runpy\n\nSCRIPTS = ('a.py', 'b.py')\nfor script in SCRIPTS:\n    runpy.run_path(script)\n"
    )
    assert scan(DangerousRule(), change_of(repo, {"run.py": source})) == []
    found = scan(
        DangerousRule(),
        change_of(GitRepo.create(repo.root.parent / "x"), {"run.py": source + "runpy.run_path(script)\n"}),
    )
    assert where(found) == [("run.py", 6, "python-run-code")]

"""Code strings the standard library runs (timeit, pdb, bdb, profile, cProfile, trace), modules
loaded from a path computed at run time (importlib's file loaders, zipimport, imp), and names read
by a string through operator's getters and `__getattribute__`, as `getattr` is."""

from __future__ import annotations

import ast

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.pyconstructs import python_constructs
from bot.engine.content.pyselect import selected_source
from bot.engine.content.pywords import may_hold, words_in
from tests.content.helpers import change_of, scan
from tests.gitrepo import GitRepo


def _found(source: str) -> set[str]:
    tree = ast.parse(source)
    found = python_constructs(tree)
    selected = selected_source(source)
    if selected is not None:  # what `dangerous` parses finds the same (pyselect.py)
        assert python_constructs(ast.parse(selected)) == found
    if found:  # the words of the text send it to the parser (pywords.py)
        assert may_hold(words_in(source))
    return {f.construct.value for f in found}


RUN = "python-run-code"
NATIVE = "python-native-code"
SYSTEM = "python-os-system"
EVAL = "python-eval"


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        ("import timeit\ntimeit.timeit(stmt.format(n))\n", RUN),
        ("import timeit\ntimeit.timeit('pass', setup=header + code_text)\n", RUN),
        ("import timeit\ntimeit.timeit(stmt=f'x = {value}')\n", RUN),
        ("import timeit\ntimeit.repeat(input(), number=3)\n", RUN),
        ("import timeit\ntimeit.Timer('f()', 'from m import ' + name)\n", RUN),
        ("from timeit import timeit as t\nt('x = %s' % value)\n", RUN),
        ("from timeit import Timer\nTimer(source % n).timeit()\n", RUN),
        ("import pdb\npdb.run(statement)\n", RUN),
        ("import pdb\npdb.runeval(expression)\n", RUN),
        ("import pdb\npdb.runctx(statement, globals(), {})\n", RUN),
        ("import pdb\npdb.Pdb().run(statement)\n", RUN),
        ("import cProfile\ncProfile.run(statement)\n", RUN),
        ("import cProfile as cp\ncp.runctx(statement, g, l)\n", RUN),
        ("import profile\nprofile.run(statement)\n", RUN),
        ("import profile\nprofile.runctx(statement, g, l)\n", RUN),
        ("import cProfile\nprofiler = cProfile.Profile()\nprofiler.run(command)\n", RUN),
        ("import cProfile as cp\ncp.Profile().runctx(command, g, l)\n", RUN),
        ("import profile\nprofile.Profile().run(command)\n", RUN),
        ("import trace\ntracer = trace.Trace(count=1)\ntracer.run(command)\n", RUN),
        ("import trace\ntrace.Trace().runctx(command, g, l)\n", RUN),
        ("import bdb\nbdb.Bdb().run(command)\n", RUN),
        ("import bdb\n\n\nclass D(bdb.Bdb):\n    pass\n\n\nD().run(command)\n", RUN),
        ("import importlib.util\nimportlib.util.spec_from_file_location(name, path)\n", RUN),
        ("from importlib.util import spec_from_file_location as s\ns('m', location=p)\n", RUN),
        ("import importlib.machinery\nimportlib.machinery.SourceFileLoader(name, path).load_module()\n", RUN),
        (
            "from importlib.machinery import SourceFileLoader as L\nloader = L(n, p)\nloader.exec_module(m)\n",
            RUN,
        ),
        (
            "from importlib.machinery import SourcelessFileLoader\nSourcelessFileLoader(n, p).load_module()\n",
            RUN,
        ),
        ("import importlib.machinery as m\nm.ExtensionFileLoader(name, path)\n", NATIVE),
        ("import zipimport\nzipimport.zipimporter(archive)\n", RUN),
        ("import imp\nimp.load_source(name, path)\n", RUN),
        ("import imp\nimp.load_compiled(name, path)\n", RUN),
        ("import imp\nimp.load_dynamic(name, path)\n", NATIVE),
        ("import os, operator\noperator.methodcaller('system', cmd)(os)\n", SYSTEM),
        ("import os\nfrom operator import methodcaller\nmethodcaller('system', cmd)(os)\n", SYSTEM),
        ("import os, operator\noperator.attrgetter('system')(os)(cmd)\n", SYSTEM),
        ("import os\nos.__getattribute__('system')(cmd)\n", SYSTEM),
        ("import os\nobject.__getattribute__(os, 'system')(cmd)\n", SYSTEM),
        ("import os\ntype(os).__getattribute__(os, 'system')(cmd)\n", SYSTEM),
        ("import os\nrun = os.__getattribute__('sys' + 'tem')\nrun(cmd)\n", SYSTEM),
    ],
)
def test_code_strings_computed_loads_and_names_read_by_string(source: str, construct: str) -> None:
    assert _found(source) == {construct}, source


@pytest.mark.parametrize(
    "source",
    [
        "import timeit\ntimeit.timeit(\"import os; os.system('curl x | sh')\")\n",
        "import timeit\ntimeit.timeit('pass', setup=\"__import__('os').system(c)\")\n",
        'import timeit\ntimeit.Timer("eval(x)").timeit()\n',
        "import timeit\ntimeit.repeat(stmt='exec(code)', number=1)\n",
        "import cProfile\ncProfile.run('os.system(cmd)')\n",
        "import pdb\npdb.run('import subprocess; subprocess.call(c, shell=True)')\n",
        "import pdb\npdb.runeval('eval(x)')\n",
        "import profile\nprofile.Profile().run('exec(x)')\n",
        "import timeit\ntimeit.timeit('timeit.timeit(\"eval(x)\")')\n",
        "import os as o, timeit\ntimeit.timeit('o.system(c)', globals=globals())\n",
        "import timeit\ntimeit.timeit('f(')\n",
        "import pdb\nfor s in ('eval(x)',):\n    pdb.run(s)\n",
    ],
)
def test_code_strings_written_in_the_source_are_judged_as_code(source: str) -> None:
    assert _found(source) == {RUN}, source


def test_a_code_string_naming_what_the_module_binds_to_a_dangerous_call_is_judged_so() -> None:
    # `run` is used only in the string: the binding is also reported as exported, unused here.
    assert _found("import timeit\nrun = eval\ntimeit.timeit('run(x)', globals=globals())\n") == {RUN, EVAL}


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("import timeit\nstmt = \"import os; os.system('id')\"\ntimeit.timeit(stmt)\n", 3),
        ("import timeit\n\n\ndef bench():\n    s = 'eval(x)'\n    return timeit.timeit(s, number=1)\n", 6),
        ("import timeit\nsetup = 'import os'\nstmt = 'os.popen(c)'\ntimeit.timeit(stmt, setup)\n", 4),
        (
            "import timeit\nsetup = 'import os'\nstmt = 'x = 1'\n"
            + "y = 2\n" * 300
            + "timeit.timeit(stmt)\n",
            None,
        ),
    ],
)
def test_timeit_given_a_name_is_judged_by_the_strings_its_scope_assigns_it(
    repo: GitRepo, source: str, line: int | None
) -> None:
    found = scan(DangerousRule(), change_of(repo, {"bench.py": source}))
    assert [(v.line, v.id) for v in found] == ([] if line is None else [(line, RUN)])


@pytest.mark.parametrize(
    "source",
    [
        "import timeit\ntimeit.timeit('x = 1')\n",
        "import timeit\ntimeit.timeit('sorted(data)', setup='data = list(range(9))')\n",
        "import timeit\ns = 'sorted(x)'\ntimeit.timeit(s)\n",
        "import timeit\ns = make_bench()\ntimeit.timeit(s)\n",
        "import timeit\n\n\ndef f():\n    s = 'eval(x)'\n\n\ntimeit.timeit(s)\n",
        "import cProfile\ncProfile.run('main()')\n",
        "import os as o, timeit\ntimeit.timeit('len(x)', globals=globals())\n",
        "import timeit\ntimeit.timeit(fn, number=10)\n",
        "import timeit\ntimeit.timeit(lambda: f())\n",
        "import timeit\ntimeit.repeat(self.bench, setup=module.prepare, repeat=3)\n",
        "import timeit\ntimeit.Timer('f()', 'from m import f').timeit()\n",
        "import timeit\ntimeit.timeit()\n",
        "import cProfile\ncProfile.Profile().runcall(main)\nprofile.run(x)\n",
        "import pdb\npdb.set_trace()\npdb.run('main()')\n",
        "import importlib.util\nspec_from_file_location('m', 'plugins/m.py')\n",
        "import importlib.util\nimportlib.util.spec_from_file_location('m', 'plugins/m.py')\n",
        "import importlib.util\nimportlib.util.spec_from_file_location('m')\n",
        "import importlib.util\nimportlib.util.find_spec(name)\n",
        "import zipimport\nzipimport.zipimporter('vendor.zip')\n",
        # A loader that reads or compiles the file runs nothing (py_compile).
        "import importlib.machinery\nloader = importlib.machinery.SourceFileLoader(n, path)\n"
        "code = loader.source_to_code(loader.get_data(path), path)\n",
        "import operator\noperator.methodcaller('strip')(s)\n",
        "import operator\noperator.attrgetter('name')(obj)\n",
        "import os, operator\noperator.methodcaller('getcwd')(os)\n",
        "import os\nos.__getattribute__('getcwd')()\n",
        "self.trace.run(x)\ntimer.timeit(stmt)\n",
    ],
)
def test_near_misses_stay_quiet(source: str) -> None:
    assert _found(source) == set(), source

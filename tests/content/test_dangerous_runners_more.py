"""Code strings the standard library runs (timeit, pdb, bdb, profile, cProfile, trace), modules
loaded from a path computed at run time (importlib's file loaders, zipimport, imp), and names read
by a string through operator's getters and `__getattribute__`, as `getattr` is."""

from __future__ import annotations

import ast

import pytest

from bot.engine.content.pyconstructs import python_constructs
from bot.engine.content.pyselect import selected_source
from bot.engine.content.pywords import may_hold, words_in


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
        "import timeit\ntimeit.timeit('x = 1')\n",
        "import timeit\ntimeit.timeit(fn, number=10)\n",
        "import timeit\ntimeit.timeit(lambda: f())\n",
        "import timeit\ntimeit.repeat(self.bench, setup=module.prepare, repeat=3)\n",
        "import timeit\ntimeit.Timer('f()', 'from m import f').timeit()\n",
        "import timeit\ntimeit.timeit()\n",
        "import cProfile\ncProfile.run('main()')\n",
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

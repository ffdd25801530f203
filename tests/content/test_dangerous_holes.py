"""Holes a hostile change could pass through, closed: a shell called through a native library
(ctypes), pickle's readers in other libraries (joblib, pandas, numpy, torch), `shell=True` put into
a `**mapping` by a method before the call, and a subclass of `code`'s interpreters. Each is found
on the whole file's syntax tree, on the selection (pyselect.py) and past the trigger (pywords.py)."""

from __future__ import annotations

import ast

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.pyconstructs import python_constructs
from bot.engine.content.pyselect import selected_source
from bot.engine.content.pywords import may_hold, words_in
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo


def _found(source: str) -> set[tuple[str, str]]:
    """(construct, call) of what the whole file holds, which the selection finds the same (unless it
    leaves the file to be parsed whole, as `dangerous` does) and the trigger sends to the parser."""
    tree = ast.parse(source)
    found = python_constructs(tree)
    selected = selected_source(source)
    inspected: set[str] = set()
    if selected is not None:
        of_selection = python_constructs(ast.parse(selected), inspected=inspected)
        assert inspected or of_selection == found, selected
    if found:
        assert may_hold(words_in(source))
    return {(f.construct.value, f.call) for f in found}


def _constructs(source: str) -> set[str]:
    return {construct for construct, _ in _found(source)}


# --- 1. A shell called through a native library -----------------------------------------------------

NATIVE_SHELLS = [
    "import ctypes\nctypes.CDLL(None).system(cmd)\n",
    "from ctypes import CDLL\nCDLL('libc.so.6').system(b'id')\n",
    "from ctypes import CDLL as D\nlibc = D(None)\nlibc.system(cmd)\n",
    "import ctypes as c\nc.cdll.LoadLibrary('libc.so.6').system(x)\n",
    "from ctypes import cdll\ncdll.libc.system(x)\n",
    "from ctypes import cdll\ncdll['libc.so.6'].system(x)\n",
    "import ctypes\nctypes.cdll.msvcrt.system(x)\n",
    "import ctypes\nlibc = ctypes.CDLL('libc.dylib')\nlibc.popen(cmd, b'r')\n",
    "import ctypes\nlibc = ctypes.PyDLL(None)\n\n\ndef run(c):\n    return libc.system(c)\n",
    "import ctypes\ngetattr(ctypes.CDLL(None), 'system')(cmd)\n",
    "import ctypes\nctypes.CDLL(None)['system'](cmd)\n",
    "import ctypes\ngetattr(ctypes.cdll, 'libc.so.6').system(cmd)\n",
    "import ctypes\nrun = ctypes.CDLL(None).system\nrun(cmd)\n",
    "import ctypes\nctypes.windll.msvcrt._wsystem(cmd)\n",
    "import ctypes\nctypes.LibraryLoader(ctypes.CDLL).LoadLibrary('libc.so.6').system(cmd)\n",
    "import ctypes\nctypes.CDLL('libc.so.6', handle=_ctypes.dlopen('libc.so.6', 2)).system(cmd)\n",
    "import ctypes\nctypes.cdll._dlltype(None).system(cmd)\n",
    "import ctypes\n\n\nclass Libc(ctypes.CDLL):\n    pass\n\n\nLibc(None).system(cmd)\n",
]


@pytest.mark.parametrize("source", NATIVE_SHELLS)
def test_a_shell_called_through_a_native_library(source: str) -> None:
    assert _constructs(source) == {"python-os-system"}, source


@pytest.mark.parametrize(
    "source",
    [
        "import ctypes\nctypes.CDLL(None).execv(path, argv)\n",
        "import ctypes\nlibc = ctypes.CDLL('libc.so.6')\nlibc.execvp(b'sh', argv)\n",
        "from ctypes import cdll\ncdll.libc.execl(b'/bin/sh', b'sh', b'-c', cmd, None)\n",
        "import ctypes\nctypes.CDLL(None).posix_spawnp(pid, b'sh', None, None, argv, env)\n",
        "import ctypes\nctypes.CDLL(None).dlsym(handle, b'system')\n",
        "import ctypes\nctypes.CDLL(None).dlopen(name, 2)\n",
    ],
)
def test_a_program_run_or_a_function_found_through_a_native_library(source: str) -> None:
    assert _constructs(source) == {"python-native-code"}, source


@pytest.mark.parametrize(
    "source",
    [
        "import ctypes\nlibc = ctypes.CDLL(None)\nthreading.Thread(target=libc.system, args=(cmd,))\n",
        "import ctypes\nrun = ctypes.CDLL(None).system\n",  # bound and not used: an export
        "import ctypes\nlibc = ctypes.CDLL(None)\nhandlers = {'run': libc.popen}\n",
    ],
)
def test_a_native_shell_handed_on_is_reported(source: str) -> None:
    assert _constructs(source) == {"python-os-system"}, source


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        (
            "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.system.argtypes = [ctypes.c_char_p]\n",
            "python-os-system",
        ),
        ("from ctypes import cdll\ncdll.libc.popen.restype = c_void_p\n", "python-os-system"),
        ("import ctypes\nprint(ctypes.CDLL(None).execv.__name__)\n", "python-native-code"),
        ("import ctypes\nctypes.pythonapi.PyRun_SimpleString.argtypes = [c_char_p]\n", "python-run-code"),
    ],
)
def test_a_native_shell_read_is_reported(source: str, construct: str) -> None:
    """Reading a C function that runs a shell or a program (its `argtypes`) readies it for a call."""
    assert _constructs(source) == {construct}, source


@pytest.mark.parametrize(
    ("source", "call"),
    [
        (
            "import ctypes\nctypes.pythonapi.PyRun_SimpleString(source)\n",
            "ctypes.pythonapi.PyRun_SimpleString",
        ),
        (
            "from ctypes import pythonapi as api\napi.PyRun_String(s, 257, g, l)\n",
            "ctypes.pythonapi.PyRun_String",
        ),
        (
            "import ctypes\nctypes.PyDLL(None).PyRun_SimpleStringFlags(s, None)\n",
            "ctypes.CDLL.PyRun_SimpleStringFlags",
        ),
        (
            "import ctypes\nctypes.pythonapi.Py_CompileString(s, b'<x>', 257)\n",
            "ctypes.pythonapi.Py_CompileString",
        ),
    ],
)
def test_python_run_through_its_c_api(source: str, call: str) -> None:
    assert _found(source) == {("python-run-code", call)}, source


@pytest.mark.parametrize(
    "source",
    [
        "from ctypes import cdll\nlib = cdll[name]\n",
        "import ctypes as c\nlib = getattr(c.cdll, name)\n",
        "from ctypes import windll\nwindll[name].f()\n",
        "import ctypes\nlib = ctypes.LibraryLoader(ctypes.CDLL)[path]\n",
        "from ctypes import *\nlib = cdll[name]\n",
    ],
)
def test_a_library_loaded_by_a_computed_name(source: str) -> None:
    assert _constructs(source) == {"python-native-code"}, source


@pytest.mark.parametrize(
    "source",
    [
        "import ctypes\nctypes.CDLL('libm.so.6').cos(1.0)\n",
        "from ctypes import CDLL as D\nlibm = D('libm.so.6')\nlibm.sqrt.restype = c_double\n",
        "from ctypes import cdll\ncdll.libc.printf(b'%d', 3)\nlib = cdll['libm.so.6']\n",
        "import ctypes\nlib = getattr(ctypes.cdll, 'libm')\nlib.cos(1.0)\n",
        "import ctypes\nctypes.cdll.LoadLibrary('libm.so.6').sin(x)\n",
        "import os\nos.CDLL(None).system\n",  # not ctypes: an attribute read, not called
        "lib = load()\nlib.system(cmd)\n",
        "import ctypes\nself.cdll.libc.system(cmd)\n",
        "from ctypes import cdll\ncdll._handles.system(x)\ncdll[name] = lib\n",
        "import ctypes\nlib = ctypes.cdll['libm.so.6']\nlib[key](x)\n",
        "import ctypes\nrows = load()[index]\nctypes.cdll.libm.cos(rows[0])\n",
        "import ctypes\nlibm = ctypes.CDLL('libm.so.6')\nlibm.cos.argtypes = [ctypes.c_double]\nx.y.z = 1\n",
        "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.system.__call__\n",
        "import os\nprint(os.system.__name__)\n",
        "import ctypes\nctypes.pythonapi.Py_IncRef(obj)\nctypes.pythonapi.PyLong_FromLong(1)\n",
    ],
)
def test_native_near_misses_stay_quiet(source: str) -> None:
    assert _found(source) == set(), source


# --- 2. Pickle's readers in other libraries ---------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "call"),
    [
        ("import joblib\nmodel = joblib.load(path)\n", "joblib.load"),
        ("from joblib import load\nload(path)\n", "joblib.load"),
        ("import pandas\npandas.read_pickle(path)\n", "pandas.read_pickle"),
        ("import pandas as pd\ndf = pd.read_pickle(path)\n", "pandas.read_pickle"),
        ("import numpy as np\nnp.load(f, allow_pickle=True)\n", "numpy.load"),
        ("import numpy\nnumpy.load(f, None, True)\n", "numpy.load"),
        ("from numpy import load as L\nL(f, allow_pickle=flag)\n", "numpy.load"),
        ("import torch\nstate = torch.load(f)\n", "torch.load"),
        ("import torch\ntorch.load(f, weights_only=False)\n", "torch.load"),
        ("import torch\ntorch.load(f, map_location='cpu', weights_only=flag)\n", "torch.load"),
        ("import torch as t\nt.load(f, **options)\n", "torch.load"),
        (
            "import functools\nimport numpy as np\nread = functools.partial(np.load, allow_pickle=True)\n",
            "numpy.load",
        ),
        ("import torch\nstates = list(map(torch.load, paths))\n", "torch.load"),
        ("import joblib\nmodels = map(joblib.load, paths)\n", "joblib.load"),
        ("import pandas as pd\nREADERS = {'pickle': pd.read_pickle}\n", "pandas.read_pickle"),
        ("import numpy as np\nopts = {'allow_pickle': True}\nnp.load(f, **opts)\n", "numpy.load"),
        ("import torch\nopts = {}\nopts.update(weights_only=False)\ntorch.load(f, **opts)\n", "torch.load"),
    ],
)
def test_other_pickle_readers(source: str, call: str) -> None:
    assert _found(source) == {("python-pickle", call)}, source


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as np\nnp.load(f)\n",
        "import numpy as np\nnp.load(f, allow_pickle=False)\n",
        "import numpy as np\nnp.load(f, mmap_mode='r', allow_pickle=0)\n",
        "import torch\ntorch.load(f, weights_only=True)\n",
        "import torch\ntorch.load(f, map_location='cpu', weights_only=True)\n",
        "model.load(f)\npd.read_csv(path)\n",
        "import json\njson.load(f)\n",
        "import numpy as np\nread = functools.partial(np.load, mmap_mode='r')\nmap(np.load, paths)\n",
        "import torch\nload = functools.partial(torch.load, weights_only=True)\n",
        "import pandas as pd\npd.read_csv(path)\n",
        "import torch\nopts = {'weights_only': True}\ntorch.load(f, **opts)\n",
        "import numpy as np\nnp.load(f, **{'allow_pickle': False})\n",
        "import ctypes\nlib = getattr(ctypes.cdll, '')\n",
    ],
)
def test_pickle_reader_near_misses_stay_quiet(source: str) -> None:
    assert _found(source) == set(), source


def test_the_messages_say_what_to_do(repo: GitRepo) -> None:
    source = (
        "import ctypes\nimport numpy as np\nimport torch\n"
        "torch.load(path)\nnp.load(f, allow_pickle=True)\nctypes.CDLL(None).execv(path, argv)\n"
        "ctypes.CDLL(None).dlopen(name, 2)\n"
    )
    found = scan(DangerousRule(), change_of(repo, {"train.py": source}))
    assert [(line, i) for _, line, i in where(found)] == [
        (4, "python-pickle"),
        (5, "python-pickle"),
        (6, "python-native-code"),
        (7, "python-native-code"),
    ]
    torch, numpy, execv, dlopen = (v.message for v in found)
    assert "Pass weights_only=True: PyTorch before 2.6 unpickles by default." in torch
    assert "Leave allow_pickle False" in numpy
    assert "runs the program, or finds the function" in execv and "subprocess.run" in execv
    assert "loads the native library a run-time value names" in dlopen


# --- 3. shell=True put into a **mapping before the call ---------------------------------------------

SPREAD_SHELLS = [
    "import subprocess\nkw = {}\nkw.update(shell=True)\nsubprocess.run(cmd, **kw)\n",
    "import subprocess\nkw = {}\nkw.update({'shell': True})\nsubprocess.run(cmd, **kw)\n",
    "import subprocess\nkw = {}\nkw.update(dict(shell=1))\nsubprocess.run(cmd, **kw)\n",
    "import subprocess\nkw = {}\nkw.setdefault('shell', True)\nsubprocess.run(cmd, **kw)\n",
    "import subprocess\nkw = dict(text=True)\nkw |= {'shell': True}\nsubprocess.run(cmd, **kw)\n",
    "from subprocess import run\n\n\ndef f(cmd):\n    kw = {}\n    kw.update(shell=True)\n    return run(cmd, **kw)\n",
    "import subprocess as sp\nkw = {}\nkw['shell'] = True\nsp.Popen(cmd, **kw)\n",
]


@pytest.mark.parametrize("source", SPREAD_SHELLS)
def test_shell_put_into_a_mapping_by_a_method(source: str) -> None:
    assert _constructs(source) == {"python-subprocess-shell"}, source


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess\nkw = {}\nkw['shell'] = False\nsubprocess.run(cmd, **kw)\n",
        "import subprocess\nkw = {}\nkw.update(shell=False)\nsubprocess.run(cmd, **kw)\n",
        "import subprocess\nkw = {}\nkw.update({'check': True})\nsubprocess.run(cmd, **kw)\n",
        "import subprocess\nkw = {}\nkw.setdefault('shell', False)\nsubprocess.run(cmd, **kw)\n",
        "import subprocess\nkw = {}\nkw.setdefault('check', True)\nkw.pop('shell')\nsubprocess.run(cmd, **kw)\n",
        "import subprocess\nkw = {}\nother.update(shell=True)\nsubprocess.run(cmd, **kw)\n",
        "import subprocess\nkw = {}\nkw.update(shell=True)\nsubprocess.run(['ls', '-l'], **kw)\n",
        "import subprocess\nkw = {}\nkw |= {'text': True}\nsubprocess.run(cmd, **kw)\n",
        # Another scope's mapping is another name.
        "import subprocess\n\n\ndef f():\n    kw.update(shell=True)\n\n\ndef g(cmd, kw):\n    subprocess.run(cmd, **kw)\n",
    ],
)
def test_a_mapping_a_method_gives_no_shell_stays_quiet(source: str) -> None:
    assert _found(source) == set(), source


# --- 4. A subclass of code's interpreters -----------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "import code\n\n\nclass C(code.InteractiveConsole):\n    pass\n\n\nC().push(src)\n",
        "import code as c\n\n\nclass Shell(c.InteractiveInterpreter):\n    x = 1\n\n\nShell(ns).runsource(s)\n",
        "from code import InteractiveConsole as IC\n\n\nclass A(IC):\n    pass\n\n\nclass B(A):\n    pass\n\n\nb = B()\nb.interact()\n",
    ],
)
def test_a_subclass_of_an_interpreter_called_through_its_own_name(source: str) -> None:
    assert _constructs(source) == {"python-run-code"}, source


@pytest.mark.parametrize(
    "source",
    [
        "import code\n\n\nclass C(code.InteractiveConsole):\n    pass\n\n\nC().write(s)\n",
        "import code\n\n\nclass C(Base):\n    pass\n\n\nC().push(src)\n",
        "class InteractiveConsole:\n    pass\n\n\nInteractiveConsole().push(src)\n",
    ],
)
def test_other_classes_and_methods_stay_quiet(source: str) -> None:
    assert _found(source) == set(), source


# --- Through the rule: whole file, selection, statements alone --------------------------------------


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        ("from ctypes import cdll\ncdll.libc.system(x)\n", "python-os-system"),
        ("import ctypes as c\nlibc = c.CDLL(None)\nlibc.system(cmd)\n", "python-os-system"),
        ("from ctypes import cdll\nlib = cdll[name]\n", "python-native-code"),
        ("import pandas as pd\npd.read_pickle(path)\n", "python-pickle"),
        ("import numpy as np\nnp.load(f, allow_pickle=True)\n", "python-pickle"),
        ("import numpy as np\nopts = {'allow_pickle': True}\nnp.load(f, **opts)\n", "python-pickle"),
        ("import torch\nopts = {'weights_only': False}\ntorch.load(f, **opts)\n", "python-pickle"),
        (
            "import subprocess\nkw = {}\nkw.update(shell=True)\nsubprocess.run(cmd, **kw)\n",
            "python-subprocess-shell",
        ),
    ],
)
@pytest.mark.parametrize("texts", [True, False])
def test_the_rule_reports_them(repo: GitRepo, source: str, construct: str, texts: bool) -> None:
    change = change_of(repo, {"evil.py": source}, texts=texts)
    found = scan(DangerousRule(), change)
    assert found == scan(DangerousRule(parse_whole_files=True), change)
    assert construct in {i for _, _, i in where(found)}, where(found)


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        ("from ctypes import cdll\ncdll.libc.system(x)\n", "python-os-system"),
        ("import ctypes as c\nlibc = c.CDLL(None)\nlibc.system(cmd)\n", "python-os-system"),
        ("from ctypes import cdll\nlib = cdll[name]\n", "python-native-code"),
        ("import ctypes\nlib = getattr(ctypes.cdll, name)\n", "python-native-code"),
        ("import joblib\njoblib.load(path)\n", "python-pickle"),
        ("import torch\nstate = torch.load(\n    path)\n", "python-pickle"),
    ],
)
def test_statements_alone_report_them(repo: GitRepo, source: str, construct: str) -> None:
    """A file that does not parse: each statement on an added line is parsed alone (pystatements.py)."""
    change = change_of(repo, {"evil.py": "def broken(:\n    pass\n" + source})
    found = scan(DangerousRule(), change)
    assert {i for _, _, i in where(found)} == {construct}, where(found)

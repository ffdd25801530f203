from __future__ import annotations

import ast
import tokenize
from pathlib import Path

import pytest

from bot.engine.content.pyconstructs import PyConstruct, python_constructs
from bot.engine.content.pyselect import selected_source
from tests.datafiles import SECRETS


def _found(source: str, *, whole: bool = True, lines: list[int] | None = None) -> list[tuple[str, str, int]]:
    tree = ast.parse(source)
    found = python_constructs(tree, whole=whole, lines=lines)
    selected = selected_source(source)
    if whole and selected is not None:  # what `dangerous` parses finds the same (pyselect.py)
        assert python_constructs(ast.parse(selected), lines=lines) == found
    return [(f.construct.value, f.call, f.line) for f in found]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("eval(data)", [("python-eval", "eval", 1)]),
        ("import builtins\nbuiltins.exec(code)", [("python-exec", "exec", 2)]),
        ("from builtins import eval as e\ne(x)", [("python-eval", "eval", 2)]),
        ("import os\nos.system(cmd)", [("python-os-system", "os.system", 2)]),
        ("import os as o\no.system('ls')", [("python-os-system", "os.system", 2)]),
        ("from os import system as run\nrun(cmd)", [("python-os-system", "os.system", 2)]),
        ("import posix\nposix.system(c)", [("python-os-system", "posix.system", 2)]),
        ("import pickle\npickle.loads(b)", [("python-pickle", "pickle.loads", 2)]),
        ("from pickle import loads as lp\nlp(b)", [("python-pickle", "pickle.loads", 2)]),
        ("import _pickle\n_pickle.Unpickler(f)", [("python-pickle", "_pickle.Unpickler", 2)]),
        ("import yaml\nyaml.load(s)", [("python-yaml-load", "yaml.load", 2)]),
        ("import yaml\nyaml.load(s, Loader=yaml.Loader)", [("python-yaml-load", "yaml.load", 2)]),
        ("import yaml\nyaml.load_all(s, yaml.FullLoader)", [("python-yaml-load", "yaml.load_all", 2)]),
        ("import yaml\nyaml.unsafe_load(s)", [("python-yaml-load", "yaml.unsafe_load", 2)]),
        ("import yaml\nyaml.load(s, Loader=get_loader())", [("python-yaml-load", "yaml.load", 2)]),
        ("__import__(name)", [("python-import-variable", "__import__", 1)]),
        ("__import__(name='x' + y)", [("python-import-variable", "__import__", 1)]),
        (
            "import importlib\nimportlib.__import__(m[k])",
            [("python-import-variable", "importlib.__import__", 2)],
        ),
        (
            "import subprocess\nsubprocess.run(f'ls {d}', shell=True)",
            [("python-subprocess-shell", "subprocess.run", 2)],
        ),
        (
            "import subprocess as sp\nsp.Popen('ls %s' % d, shell=1)",
            [("python-subprocess-shell", "subprocess.Popen", 2)],
        ),
        (
            "from subprocess import check_output\ncheck_output(args='ls ' + d, shell=flag)",
            [("python-subprocess-shell", "subprocess.check_output", 2)],
        ),
        (
            "import subprocess\nsubprocess.call(cmd, -1, None, None, None, None, None, True, True)",
            [("python-subprocess-shell", "subprocess.call", 2)],
        ),
        (
            "import subprocess\nsubprocess.getoutput(cmd)",
            [("python-subprocess-shell", "subprocess.getoutput", 2)],
        ),
        (
            "import asyncio\nasyncio.create_subprocess_shell(cmd=c)",
            [("python-subprocess-shell", "asyncio.create_subprocess_shell", 2)],
        ),
    ],
)
def test_constructs_fire(source: str, expected: list[tuple[str, str, int]]) -> None:
    assert _found(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "x = 'eval(data)'  # eval(data) in a comment",
        "def eval(x):\n    return x\neval(1)",  # the module's own eval
        "eval = print\neval(1)",
        "class T:\n    def exec(self):\n        self.exec()",
        "system(cmd)",  # not imported: not os.system
        "import json\njson.loads(s)",
        "import yaml\nyaml.load(s, Loader=yaml.SafeLoader)",
        "import yaml\nfrom yaml import CSafeLoader\nyaml.load(s, CSafeLoader)",
        "import yaml\nyaml.safe_load(s)",
        "__import__('os')",
        "__import__()",
        "import importlib\nimportlib.import_module(name)",
        "import subprocess\nsubprocess.run(['ls', d], shell=False)",
        "import subprocess\nsubprocess.run('ls *', shell=True)",  # fixed command
        "import subprocess\nsubprocess.run(f'ls', shell=True)",  # an f-string without fields
        "import subprocess\nsubprocess.run(['ls', '-l'], shell=True)",
        "import subprocess\nsubprocess.run(cmd, shell=None)",
        "import subprocess\nsubprocess.run(cmd, shell=[])",
        "import subprocess\nsubprocess.run(cmd, shell={})",
        "import subprocess\nsubprocess.run(cmd)",
        "import subprocess\nsubprocess.run(shell=True)",
        "import subprocess\nsubprocess.run(*args, shell=True)",
        "import subprocess\nsubprocess.getoutput('ls')",
        "import subprocess\nsubprocess.getoutput()",
        "getattr(os, 'system')(cmd)",
        "from . import pickling\npickling.loads(b)",  # (`from . import pickle` is pickle: see test_resolution)
        "handlers[0](x)",
    ],
)
def test_near_misses(source: str) -> None:
    assert _found(source) == []


def test_a_line_alone_reads_unknown_names_as_the_modules_they_spell() -> None:
    assert _found("os.system(cmd)", whole=False) == [("python-os-system", "os.system", 1)]
    assert _found("os.system(cmd)") == []


def test_only_calls_spanning_the_given_lines_are_found() -> None:
    source = (
        "import subprocess\n"  # 1
        "def f(cmd):\n"  # 2
        "    eval(cmd)\n"  # 3
        "    subprocess.run(\n"  # 4
        "        cmd,\n"  # 5
        "        shell=True,\n"  # 6
        "    )\n"  # 7
        "@register(eval(spec))\n"  # 8
        "def g():\n"  # 9
        "    pass\n"  # 10
    )
    assert _found(source, lines=[6]) == [("python-subprocess-shell", "subprocess.run", 4)]
    assert _found(source, lines=[3, 10]) == [("python-eval", "eval", 3)]
    assert _found(source, lines=[8]) == [("python-eval", "eval", 8)]
    assert _found(source, lines=[11]) == []


def test_imports_inside_functions_and_control_flow_count() -> None:
    source = (
        "try:\n"
        "    import cPickle as p\n"
        "except ImportError:\n"
        "    import pickle as p\n"
        "def f(b):\n"
        "    import os.path\n"
        "    with open(b) as fh:\n"
        "        for line in fh:\n"
        "            os.system(line)\n"
        "    return p.loads(b)\n"
        "match x:\n"
        "    case 1:\n"
        "        from yaml import load\n"
        "load(doc)\n"
    )
    assert [f[:2] for f in _found(source)] == [
        ("python-os-system", "os.system"),
        ("python-pickle", "pickle.loads"),
        ("python-yaml-load", "yaml.load"),
    ]


def test_module_level_bindings_of_every_kind_shadow_builtins() -> None:
    for binding in ("for eval in x: pass", "with f() as (a, eval): pass", "eval: int = 1", "eval += 1"):
        assert _found(f"{binding}\neval(y)") == [], binding


# bandit's example files, labelled by its functional tests (tests/data/secrets/bandit/test_functional.py):
# for each file, the lines holding a construct this rule covers. subprocess_shell.py's lines are the 11
# bandit rates HIGH (shell=True, or a truthy shell value, with a command not fixed in the source).
BANDIT_LABELS: dict[str, list[tuple[str, int]]] = {
    "eval.py": [("python-eval", 3), ("python-eval", 4), ("python-eval", 5)],
    "exec.py": [("python-exec", 1)],
    "os_system.py": [("python-os-system", 3)],
    "os-popen.py": [("python-os-system", n) for n in (6, 7, 8, 9)],
    "wildcard-injection.py": [("python-os-system", 5), ("python-os-system", 6)],
    "subprocess_shell.py": [
        ("python-subprocess-shell", n) for n in (37, 38, 41, 46, 47, 48, 49, 51, 52, 53, 54)
    ],
    "pickle_deserialize.py": [("python-pickle", 7), ("python-pickle", 12), ("python-pickle", 15)],
    "dill.py": [("python-pickle", 6), ("python-pickle", 11), ("python-pickle", 14)],
    "shelve_open.py": [("python-pickle", 8), ("python-pickle", 11)],
    "pandas_read_pickle.py": [("python-pickle", 12)],
    "pytorch_load.py": [("python-pickle", 10), ("python-pickle", 18), ("python-pickle", 22)],
    "marshal_deserialize.py": [("python-code-object", 6), ("python-code-object", 11)],
    "imports-aliases.py": [("python-pickle", 15)],
    "yaml_load.py": [("python-yaml-load", 9), ("python-yaml-load", 22)],
    "new_candidates-all.py": [("python-yaml-load", 15), ("python-yaml-load", 17)],
    "new_candidates-some.py": [("python-yaml-load", 15)],
    "new_candidates-nosec.py": [("python-yaml-load", 13)],
    "imports-function.py": [("python-import-variable", 12)],
    "imports-with-importlib.py": [("python-import-variable", 9)],
}


def _bandit_examples() -> list[Path]:
    return sorted((SECRETS / "bandit" / "examples").glob("*.py"))


def test_bandit_examples_match_their_labels_exactly() -> None:
    assert len(_bandit_examples()) > 80
    for path in _bandit_examples():
        try:
            tree = ast.parse(path.read_bytes())
        except SyntaxError:
            assert path.name not in BANDIT_LABELS
            continue
        got = [(f.construct.value, f.line) for f in python_constructs(tree)]
        assert got == BANDIT_LABELS.get(path.name, []), path.name
        with tokenize.open(path) as file:  # decoded as its coding line says
            selected = selected_source(file.read())
        if selected is not None:
            assert python_constructs(ast.parse(selected)) == python_constructs(tree), path.name
    labelled = {c for labels in BANDIT_LABELS.values() for c, _ in labels}
    # Bandit has no example of these (tests/content/test_dangerous_runners.py and
    # test_dangerous_computed_names.py have).
    missing = {"python-run-code", "python-native-code", "python-attribute-variable"}
    assert {c.value for c in PyConstruct} - labelled == missing

"""Calls are matched as the interpreter resolves them: Python's NFKC identifiers, parentheses,
continuations, aliases, getattr and importers; JavaScript's indirect eval; any interpreter a download
is piped into; script blocks of markup files; files named by their `#!` line or their content."""

from __future__ import annotations

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.filekinds import kind_of
from bot.engine.findings import Violation
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = DangerousRule()


def _dangerous(repo: GitRepo, head: dict[str, str], **kw: bool) -> list[Violation]:
    change = change_of(repo, head, **kw)
    found = scan(RULE, change)
    assert found == scan(DangerousRule(parse_whole_files=True), change)  # the selection changes nothing
    return found


def _assert_reported(repo: GitRepo, source: str, construct: str, *, texts: bool) -> None:
    found = _dangerous(repo, {"evil.py": source}, texts=texts)
    assert construct in {i for _, _, i in where(found)}, where(found)


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        ("ｅｖａｌ(x)\n", "python-eval"),
        ("import os\nos.ｓｙｓｔｅｍ(cmd)\n", "python-os-system"),
        ("(eval)(x)\n", "python-eval"),
        ("((exec))(code)\n", "python-exec"),
        ("result = eval \\\n    (x)\n", "python-eval"),
        ("e = eval\ne(x)\n", "python-eval"),
        ("import os\ns = os.system\ns(cmd)\n", "python-os-system"),
        ("import os\nrun = os.system\n\ndef f(c):\n    run(c)\n", "python-os-system"),
        ("(e := eval)(x)\n", "python-eval"),
        ("import builtins\ngetattr(builtins, 'eval')(x)\n", "python-eval"),
        ("getattr(__builtins__, 'exec')(code)\n", "python-exec"),
        ("import builtins\nf = getattr(builtins, 'ev' + 'al')\nf(x)\n", "python-eval"),
        ("import builtins\nbuiltins.eval(x)\n", "python-eval"),
        ("__builtins__.eval(x)\n", "python-eval"),
        ("__import__('os').system(cmd)\n", "python-os-system"),
        ("import importlib\nimportlib.import_module('os').system(cmd)\n", "python-os-system"),
        (
            "import importlib\nm = importlib.import_module('subprocess')\nm.getoutput(cmd)\n",
            "python-subprocess-shell",
        ),
        ("import sys\nsys.modules['os'].system(cmd)\n", "python-os-system"),
        (  # a module made from the spec a string finds (quiet before)
            "import importlib.util\nspec = importlib.util.find_spec('os')\n"
            "m = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(m)\nm.system(cmd)\n",
            "python-os-system",
        ),
        (
            "from importlib.util import find_spec, module_from_spec\n"
            "module_from_spec(find_spec('subprocess')).call(cmd, shell=True)\n",
            "python-subprocess-shell",
        ),
        (
            "import importlib.util as iu\nmod = iu.module_from_spec(iu.find_spec('pick' + 'le'))\nmod.loads(d)\n",
            "python-pickle",
        ),
        ("import os\nos.popen(cmd).read()\n", "python-os-system"),
        ("import os\nos.execl('/bin/sh', 'sh', '-c', cmd)\n", "python-subprocess-shell"),
        ("import os\nos.spawnlp(os.P_WAIT, 'bash', 'bash', '-c', cmd)\n", "python-subprocess-shell"),
        ("import os\nos.execvp('sh', ['sh', '-c', cmd])\n", "python-subprocess-shell"),
        ("import subprocess\nsubprocess.run(['sh', '-c', cmd])\n", "python-subprocess-shell"),
        ("import subprocess\nsubprocess.Popen(['/bin/bash', '-ec', cmd])\n", "python-subprocess-shell"),
        (
            "from subprocess import check_output\ncheck_output(('zsh', '-c', cmd))\n",
            "python-subprocess-shell",
        ),
        ("import subprocess\nsubprocess.call(['bash', '-x', '-c', cmd])\n", "python-subprocess-shell"),
        # Names the dangerous call's words only in strings, or only through another name.
        ("import os\ngetattr(os, 'system')(cmd)\n", "python-os-system"),
        ("import os\ngetattr(os, 'sys' + 'tem')(cmd)\n", "python-os-system"),
        ("import os\ngetattr(os, '\\x73ystem')(cmd)\n", "python-os-system"),
        ("import sys\ngetattr(getattr(sys, 'modules')['\\x6fs'], 'popen')(cmd)\n", "python-os-system"),
        ("import pickle\ngetattr(pickle, 'loads')(data)\n", "python-pickle"),
        # A module's names read from its dict: `M.__dict__`, `vars(M)`, subscripted or `.get`.
        ("import builtins\nd = builtins.__dict__\nd['eval'](x)\n", "python-eval"),
        ("import builtins\nvars(builtins)['exec'](code)\n", "python-exec"),
        ("import builtins\nn = vars(builtins)\nn.get('exec')(code)\n", "python-exec"),
        ("import os\nvars(os)['system'](cmd)\n", "python-os-system"),
        ("import os\nos.__dict__['popen'](cmd)\n", "python-os-system"),
        ("import os as o\nns = vars(o)\nns['sys' + 'tem'](cmd)\n", "python-os-system"),
        ("import sys\nsys.modules['os'].__dict__.get('system')(cmd)\n", "python-os-system"),
        ("import pickle\nvars(pickle)['loads'](data)\n", "python-pickle"),
        ("import pickle\np = pickle\np.loads(data)\n", "python-pickle"),
        ("import pickle\n(pickle).loads(data)\n", "python-pickle"),
        ("import pickle\npickle.\\\n    loads(data)\n", "python-pickle"),
        ("import yaml\n(yaml).load(document)\n", "python-yaml-load"),
        ("import subprocess\nsubprocess.run(['sh', '-' + 'c', cmd])\n", "python-subprocess-shell"),
        ("import subprocess\nsubprocess.run(['sh', '-' 'c', cmd])\n", "python-subprocess-shell"),
        (
            "import subprocess\nsubprocess.Popen(cmd, 0, None, None, None, None, None, True, True)\n",
            "python-subprocess-shell",
        ),
    ],
)
@pytest.mark.parametrize("texts", [True, False])
def test_python_calls_are_resolved_as_python_does(
    repo: GitRepo, source: str, construct: str, texts: bool
) -> None:
    _assert_reported(repo, source, construct, texts=texts)


@pytest.mark.parametrize(
    "source",
    [
        "model.eval()\n",
        "import torch\nnet = torch.nn.Linear(2, 2)\nnet.eval()\n",
        "x = 'eval(y)'  # eval(z)\n",
        "e = evaluate\ne(x)\n",
        "def eval(x):\n    return x\n\neval(1)\n",
        "import os\nos.popen\n",  # named, never called
        "import subprocess\nsubprocess.run(['sh', '-c', 'ls -l'])\n",
        "import subprocess\nsubprocess.run(['git', '-c', cmd])\n",
        "import subprocess\nsubprocess.run(['bash', '-x'], shell=False)\n",
        "import subprocess\nsubprocess.run(['bash', 'run.sh', '-c', cmd])\n",
        "import os\nos.execv('/usr/bin/git', ['git', 'status'])\n",
        "getattr(obj, 'eval')(x)\n",
        "import importlib\nimportlib.import_module('json').loads(s)\n",
        "import importlib.util\nimportlib.util.module_from_spec(importlib.util.find_spec('json')).loads(s)\n",
        "import importlib.util\nif importlib.util.find_spec('os') is None:\n    pass\n",
        "import importlib.util\nm = importlib.util.module_from_spec(spec)\nm.system(cmd)\n",  # spec unknown
        "import os\nprint(vars(os)['path'], os.__dict__.get('sep'))\n",
        "import builtins\nvars(builtins)['len']([])\n",
        "vars(obj)['system'](cmd)\n",
        "config.__dict__.get('eval')(x)\n",
        "import os\nd = vars(os)\nd.get('system')\n",  # read, never called
    ],
)
def test_python_near_misses_stay_quiet(repo: GitRepo, source: str) -> None:
    assert _dangerous(repo, {"fine.py": source}) == []


def test_a_call_added_to_a_file_is_resolved_through_its_unchanged_lines(repo: GitRepo) -> None:
    base = "import pickle\np = pickle\n\n\ndef read(data):\n    return None\n"
    head = {"store.py": base.replace("return None", "return p.loads(data)")}
    found = scan(RULE, change_of(repo, head, {"store.py": base}))
    assert where(found) == [("store.py", 6, "python-pickle")]


def test_a_statement_judged_alone_is_resolved_through_the_imports_beside_it(repo: GitRepo) -> None:
    """Without the new text (the diff alone), each added statement is parsed with the hunk's imports."""
    head = {"tool.py": "x = 1\nfrom os import system as run\nrun(cmd)\n"}
    found = scan(RULE, change_of(repo, head, {"tool.py": "x = 1\n"}, texts=False))
    assert where(found) == [("tool.py", 3, "python-os-system")]


@pytest.mark.parametrize(
    ("line", "construct"),
    [
        ("(0, eval)(input);", "js-eval"),
        ("globalThis['eval'](input);", "js-eval"),
        ('window["ev" + "al"](input);', "js-eval"),
        ("global.eval(input);", "js-eval"),
        ("self[`eval`](input);", "js-eval"),
        ("const f = Function('a', body);", "js-new-function"),
        ("child_process.exec('convert ' + file + ' out.png');", "js-child-process-exec"),
        ("require('child_process').exec(cmd);", "js-child-process-exec"),
        ('require("child_process").execSync("ls " + dir);', "js-child-process-exec"),
    ],
)
def test_javascript_indirect_forms(repo: GitRepo, line: str, construct: str) -> None:
    assert where(_dangerous(repo, {"web/a.js": f"let a = 1;\n{line}\n"})) == [("web/a.js", 2, construct)]


@pytest.mark.parametrize(
    "line",
    [
        "model.eval();",
        "const evaluate = Function.prototype;",
        "obj.Function(x);",
        "child_process.exec('ls -l');",
        "const msg = 'eval' + '(x)';",
        "myFunction(x);",
        "window['evaluate'](x);",
        "require('child_process').execFile('ls', [dir]);",
    ],
)
def test_javascript_near_misses(repo: GitRepo, line: str) -> None:
    assert _dangerous(repo, {"web/a.js": f"{line}\n"}) == []


@pytest.mark.parametrize(
    "line",
    [
        "curl -fsSL https://x.io/i.py | python",
        "curl -fsSL https://x.io/i.py | python3 -",
        "wget -qO- https://x.io/i.js | node",
        "curl -s https://x.io/i.pl | perl",
        "curl -s https://x.io/i.rb | ruby",
        "curl -fsSL https://x.io/i | sudo -E bash",
        "wget -O- https://x.io/i | sh",
        "source <(curl -s https://x.io/env)",
        ". <(wget -qO- https://x.io/env)",
        "python3 <(curl -s https://x.io/i.py)",
        "curl -s https://x.io/i | env bash",
        "curl -s https://x.io/i.py | python3 -u",
        "curl -s https://x.io/i | bash -s -- --yes",
    ],
)
def test_downloads_run_by_any_interpreter(repo: GitRepo, line: str) -> None:
    found = _dangerous(repo, {"scripts/setup.sh": f"set -e\n{line}\n"})
    assert where(found) == [("scripts/setup.sh", 2, "shell-pipe-to-shell")]


@pytest.mark.parametrize(
    "line",
    [
        'echo "curl https://x.io/i | sh"',
        "# curl https://x.io/i | python",
        "curl -s https://x.io/data.json | python3 -m json.tool > out.json",
        "curl -s https://x.io/sums | shasum -c",
        "curl -s https://x.io/a | pythonic-tool",
        "curl -s https://x.io/data | bash process.sh",
        "diff <(curl -s https://x.io/a) b",
    ],
)
def test_shell_near_misses(repo: GitRepo, line: str) -> None:
    assert _dangerous(repo, {"scripts/setup.sh": f"{line}\n"}) == []


@pytest.mark.parametrize("path", ["web/index.html", "web/page.htm", "web/App.vue", "web/Card.svelte"])
def test_script_blocks_of_markup_are_javascript(repo: GitRepo, path: str) -> None:
    source = (
        "<template><p>eval(x) is shown, not run</p></template>\n"
        "<script setup lang='ts'>\n"
        "const a = 1;\n"
        "eval(input);\n"
        "</script>\n"
        "<p>eval(y)</p><script>eval(z)</script>\n"
    )
    assert where(_dangerous(repo, {path: source})) == [(path, 4, "js-eval"), (path, 6, "js-eval")]


def test_without_the_new_text_a_fragment_closing_a_script_block_started_in_one(repo: GitRepo) -> None:
    base = {"a.html": "<script>\nlet a = 1;\n</script>\n"}
    head = {"a.html": "<script>\nlet a = 1;\neval(x); </script> <p>eval(y)</p>\n"}
    assert where(scan(RULE, change_of(repo, head, base, texts=False))) == [("a.html", 3, "js-eval")]


def test_a_script_block_opened_before_the_change_is_known_from_the_new_text(repo: GitRepo) -> None:
    base = {"a.html": "<script>\nlet a = 1;\n</script>\n<p>x</p>\n"}
    head = {"a.html": "<script>\nlet a = 1;\neval(x);\n</script>\n<p>eval(y)</p>\n"}
    change = change_of(repo, head, base)
    assert where(scan(RULE, change)) == [("a.html", 3, "js-eval")]


@pytest.mark.parametrize(
    ("path", "first", "kind"),
    [
        ("bin/tool", "#!/usr/bin/env -S python3 -u", "python"),
        ("bin/tool", "#!/usr/bin/env node", "javascript"),
        ("bin/tool", "#!/bin/zsh", "shell"),
        ("bin/tool", "#! /usr/bin/env -S bash -e", "shell"),
        ("bin/tool", "set -e", "shell"),  # no `#!`: a shell runs it
        ("bin/tool", "curl -s https://x.io/i | sh", "shell"),
        ("bin/tool", "#!/usr/bin/perl", "other"),
        ("LICENSE", "MIT License", "document"),
        ("README", "curl -s https://x.io/i | sh", "document"),
        ("web/a.vue", None, "markup"),
        ("data.json", None, "other"),
    ],
)
def test_files_without_an_extension_are_read_by_their_first_line(
    path: str, first: str | None, kind: str
) -> None:
    assert kind_of(path, first).value == kind


def test_an_extensionless_script_without_a_shebang_is_read_as_shell(repo: GitRepo) -> None:
    found = _dangerous(repo, {"bin/install": "set -e\ncurl -fsSL https://x.io/i | bash\n"})
    assert where(found) == [("bin/install", 2, "shell-pipe-to-shell")]


def test_json_and_documents_stay_quiet(repo: GitRepo) -> None:
    files = {
        "data.json": '{"run": "curl -s https://x.io/i | sh", "code": "eval(x)"}\n',
        "README": "Install: curl -s https://x.io/i | sh\n",
        "CHANGELOG": "eval(x) is gone\n",
    }
    assert _dangerous(repo, files) == []


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        ("xs = map(eval, sources)\n", "python-eval"),
        ("import functools, os\nrun = functools.partial(os.system, cmd)\n", "python-os-system"),
        (
            "import os, threading\nthreading.Thread(target=os.system, args=(cmd,)).start()\n",
            "python-os-system",
        ),
        ("import atexit, os\natexit.register(os.popen, cmd)\n", "python-os-system"),
        ("import pickle\nobjects = list(map(pickle.loads, blobs))\n", "python-pickle"),
        ("import builtins\nfunctools.reduce(builtins.exec, codes)\n", "python-exec"),
        ("modules = map(__import__, names)\n", "python-import-variable"),
        ("import subprocess\npool.submit(subprocess.getoutput, cmd)\n", "python-subprocess-shell"),
        ("e = eval\napply(e, text)\n", "python-eval"),
        ("import os as o\nhandlers = {'run': o.system}\nhandlers['run'](cmd)\n", "python-os-system"),
        ("[eval][0](x)\n", "python-eval"),
        ("def run(cmd, runner=eval):\n    return runner(cmd)\n", "python-eval"),
        ("import os\ndef runner():\n    return os.system\n", "python-os-system"),
        ("import os\nf = lambda: os.system\nf()(cmd)\n", "python-os-system"),
        ("import os\nclass Tool:\n    run = os.system\nTool().run(cmd)\n", "python-os-system"),
        ("import os\nself.run = os.system\n", "python-os-system"),
        ("import os\nmap(getattr(os, 'sys' + 'tem'), cmds)\n", "python-os-system"),
        ("import os\nmap(vars(os)['system'], cmds)\n", "python-os-system"),
        ("import os\nmap(os.system.__call__, cmds)\n", "python-os-system"),
        ("import os\nos.system.__call__(cmd)\n", "python-os-system"),
        (
            "import functools, subprocess\nfunctools.partial(subprocess.run, shell=True)(cmd)\n",
            "python-subprocess-shell",
        ),
        (
            "import subprocess, threading\nthreading.Thread(target=subprocess.run, args=(c,), kwargs={'shell': True})\n",
            "python-subprocess-shell",
        ),
        ("import subprocess\npool.submit(subprocess.run, cmd, **options)\n", "python-subprocess-shell"),
        (
            "import subprocess\nThread(target=subprocess.run, args=(c,), kwargs=options)\n",
            "python-subprocess-shell",
        ),
        (
            "import subprocess\npool.apply_async(subprocess.run, (c,), {'shell': 1})\n",
            "python-subprocess-shell",
        ),
        (
            "import functools, os\nfunctools.partial(os.execl, '/bin/sh', 'sh', '-c')(cmd)\n",
            "python-subprocess-shell",
        ),
        (
            "import functools, yaml\nfunctools.partial(yaml.load, Loader=yaml.Loader)(doc)\n",
            "python-yaml-load",
        ),
        ("import yaml\nmap(yaml.unsafe_load, docs)\n", "python-yaml-load"),
        # A dangerous module reached through another module is that module.
        ("from helpers import os\nos.system(cmd)\n", "python-os-system"),
        ("from helpers import os as h\nh.system(cmd)\n", "python-os-system"),
        ("import helpers\nhelpers.os.system(cmd)\n", "python-os-system"),
        ("from . import subprocess\nsubprocess.getoutput(cmd)\n", "python-subprocess-shell"),
        ("import six.moves.cPickle as p\np.loads(blob)\n", "python-pickle"),
        ("from six.moves import cPickle\ncPickle.loads(blob)\n", "python-pickle"),
        ("import tools\ntools.builtins.eval(source)\n", "python-eval"),
        ("import tools\nmap(tools.os.system, cmds)\n", "python-os-system"),
        # A dict method bound to a name, or read through getattr, is followed to its call.
        ("import os\ng = vars(os).get\ng('system')(cmd)\n", "python-os-system"),
        ("import os\ngetattr(vars(os), 'get')('system')(cmd)\n", "python-os-system"),
    ],
)
@pytest.mark.parametrize("texts", [True, False])
def test_a_dangerous_function_handed_on_as_a_value_is_reported(
    repo: GitRepo, source: str, construct: str, texts: bool
) -> None:
    _assert_reported(repo, source, construct, texts=texts)


def test_the_message_says_the_function_is_handed_on(repo: GitRepo) -> None:
    (found,) = _dangerous(repo, {"evil.py": "import os, threading\nthreading.Thread(target=os.system)\n"})
    assert found.line == 2
    assert found.message.startswith("os.system is handed on as a value, and whatever calls it runs")


@pytest.mark.parametrize(
    "source",
    [
        "import os\nprint(os.system, callable(os.system), repr(eval), isinstance(eval, type))\n",
        "import os\nif runner is os.system or runner == eval:\n    pass\n",
        "import os\nos.system = fake\ndel os.popen\n",
        "import pickle\nname = pickle.loads.__name__\n",
        "def f():\n    e = eval\n    return 1\n",
        "import subprocess\npool.submit(subprocess.run, ['ls', '-l'])\n",
        "import subprocess, threading\nthreading.Thread(target=subprocess.run, kwargs={'shell': False})\n",
        "import functools, yaml\nfunctools.partial(yaml.load, Loader=yaml.SafeLoader)\n",
        "import os\nhasattr(os, 'system') and getattr(os, 'sep')\n",
        "import unittest.mock\nunittest.mock.patch.object(os, 'system')\n",
        "map(evaluate, xs)\n",
        "import helpers\nhelpers.os_tools.system(cmd)\nhelpers.system(cmd)\n",
        "from helpers import osx\nosx.system(cmd)\n",
        "import os\nmap(os.path.join, parts)\n",
    ],
)
def test_a_dangerous_function_merely_looked_at_is_not_handed_on(repo: GitRepo, source: str) -> None:
    assert _dangerous(repo, {"fine.py": source}) == []


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        ("import os\nglobals()['os'].system(cmd)\n", "python-os-system"),
        ("import os\nrun = os.system\nglobals()['ru' + 'n'](cmd)\n", "python-os-system"),
        ("globals()['__builtins__']['eval'](x)\n", "python-eval"),
        ("import os\nnames = globals()\nnames['os'].popen(cmd)\n", "python-os-system"),
        ("import os\nglobals().get('os').system(cmd)\n", "python-os-system"),
        ("def f():\n    pass\nf.__globals__['os'].system(cmd)\n", "python-os-system"),
        ("e = eval\nvars()['e'](x)\n", "python-eval"),
        ("import pickle\nlocals()['pickle'].loads(blob)\n", "python-pickle"),
        ("import os\nmap(globals()['os'].system, cmds)\n", "python-os-system"),
    ],
)
@pytest.mark.parametrize("texts", [True, False])
def test_a_name_read_from_the_modules_own_dict_is_that_name(
    repo: GitRepo, source: str, construct: str, texts: bool
) -> None:
    _assert_reported(repo, source, construct, texts=texts)


@pytest.mark.parametrize(
    "source",
    [
        "value = globals()['name']\nprint(globals()['os'], vars()['config'])\n",
        "import os\nglobals()['settings'].system(cmd)\n",
        "settings = load()\nvars(settings)['system'](cmd)\n",
    ],
)
def test_the_modules_own_dict_near_misses(repo: GitRepo, source: str) -> None:
    assert _dangerous(repo, {"fine.py": source}) == []


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("import os\nrun = os.system\n", 2),
        ("from os import system as run\n", 1),
        ("from pickle import loads\n", 1),
        ("from subprocess import getoutput\n__all__ = ['getoutput']\n", 1),
        ("try:\n    from pickle import loads\nexcept ImportError:\n    loads = None\n", 2),
        ("from builtins import eval as evaluate\n", 1),
        ("e = eval\nname = e.__name__\n", 1),
    ],
)
def test_a_dangerous_function_bound_at_the_top_and_unused_is_an_export(
    repo: GitRepo, source: str, line: int
) -> None:
    """`tools.py` binding `run = os.system` for `from tools import run; run(cmd)` elsewhere: each
    file is judged alone, so the binding is reported where nothing in its own module uses it."""
    (found,) = _dangerous(repo, {"tools.py": source})
    assert found.line == line
    assert "at the module's top level and not used here" in found.message


@pytest.mark.parametrize(
    "source",
    [
        "from os import system\nsystem(cmd)\n",  # the call is reported, not the import
        "e = eval\ne(x)\n",
        "import os\nrun = os.system\ndef go(c):\n    return run(c)\n",
        "def f():\n    from os import system\n",
        "from os import path, sep\nimport pickle\n",
        "from subprocess import run\n",  # dangerous only with a shell, which a call would show
    ],
)
def test_a_binding_the_module_uses_is_not_an_export(repo: GitRepo, source: str) -> None:
    found = _dangerous(repo, {"tools.py": source})
    assert all("top level" not in f.message for f in found), found


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        # The value is read before the name is bound: at the top, `eval = eval` binds the builtin.
        ("eval = eval\neval(x)\n", "python-eval"),
        ("exec = exec\n\n\ndef run(code):\n    exec(code)\n", "python-exec"),
        ("getattr = getattr\ngetattr(__builtins__, 'eval')(x)\n", "python-eval"),
        ("eval: object = eval\neval(x)\n", "python-eval"),
        ("__import__ = __import__\n__import__(name)\n", "python-import-variable"),
    ],
)
@pytest.mark.parametrize("texts", [True, False])
def test_a_builtin_bound_to_its_own_name_is_the_builtin(
    repo: GitRepo, source: str, construct: str, texts: bool
) -> None:
    _assert_reported(repo, source, construct, texts=texts)


@pytest.mark.parametrize(
    "source",
    [
        "def eval(x):\n    return x\n\n\neval = eval\neval(1)\n",
        "class exec:\n    pass\n\n\nexec = exec\nexec(1)\n",
        "eval = evaluate\neval(x)\n",
    ],
)
def test_a_name_the_module_defines_and_binds_again_is_not_the_builtin(repo: GitRepo, source: str) -> None:
    assert _dangerous(repo, {"fine.py": source}) == []


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess\nsubprocess.run(cmd, **{'shell': True})\n",
        "import subprocess\nsubprocess.Popen(cmd, **{'shell': 1, 'text': True})\n",
        "import subprocess\nsubprocess.check_output(cmd, **dict(shell=True))\n",
        "import subprocess\nsubprocess.call(args=cmd, **{'shell': flag})\n",
    ],
)
@pytest.mark.parametrize("texts", [True, False])
def test_shell_spread_into_a_subprocess_call_is_a_shell(repo: GitRepo, source: str, texts: bool) -> None:
    _assert_reported(repo, source, "python-subprocess-shell", texts=texts)


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess\nsubprocess.run(cmd, **{'shell': False})\n",
        "import subprocess\nsubprocess.run(['ls', '-l'], **{'shell': True})\n",
        "import subprocess\nsubprocess.run(cmd, **{'check': True})\n",
        "import subprocess\nsubprocess.run(cmd, **dict(check=True))\n",
        "import subprocess\nsubprocess.run(cmd, **options)\n",
    ],
)
def test_spread_options_without_a_shell_stay_quiet(repo: GitRepo, source: str) -> None:
    assert _dangerous(repo, {"fine.py": source}) == []


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess\nkw = {'shell': True}\nsubprocess.run(cmd, **kw)\n",
        "import subprocess\nopts = dict(shell=1)\nsubprocess.Popen(cmd, **opts)\n",
        "import subprocess\n\n\ndef f(cmd):\n    kw = {}\n    kw['shell'] = True\n    return subprocess.run(cmd, **kw)\n",
        "import subprocess\n\n\ndef f(cmd, flag):\n    o = {'check': True, 'shell': flag}\n    subprocess.check_output(cmd, **o)\n",
        "import subprocess as sp\nkw: dict = dict(text=True, shell=True)\nsp.call(cmd, **kw)\n",
        "import subprocess\nif posix:\n    kw = {'shell': False}\nelse:\n    kw = {'shell': True}\nsubprocess.run(cmd, **kw)\n",
        "import subprocess\nclass T:\n    kw = {'shell': True}\n    subprocess.run(cmd, **kw)\n",
    ],
)
@pytest.mark.parametrize("texts", [True, False])
def test_shell_in_a_mapping_a_name_holds_is_a_shell(repo: GitRepo, source: str, texts: bool) -> None:
    """A `**name` is followed to the mappings assigned to it in the scope the call is in."""
    _assert_reported(repo, source, "python-subprocess-shell", texts=texts)


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess\nkw = {'shell': False}\nsubprocess.run(cmd, **kw)\n",
        "import subprocess\nkw = dict(shell=0, check=True)\nsubprocess.run(cmd, **kw)\n",
        "import subprocess\nkw = {'shell': True}\nsubprocess.run(cmd, **other)\n",
        "import subprocess\nkw = {'shell': True}\nsubprocess.run(['ls', '-l'], **kw)\n",
        "import subprocess\nkw = options()\nsubprocess.run(cmd, **kw)\n",
        "import subprocess\nkw = {}\nkw['check'] = True\nsubprocess.run(cmd, **kw)\n",
        # Another scope's mapping is another name.
        "import subprocess\nkw = {'shell': True}\n\n\ndef f(cmd, **kw):\n    subprocess.run(cmd, **kw)\n",
        "import subprocess\n\n\ndef f():\n    kw = {'shell': True}\n\n\ndef g(cmd, kw):\n    subprocess.run(cmd, **kw)\n",
        "import subprocess\nkw = {'shell': True}\nrun = lambda cmd, kw: subprocess.run(cmd, **kw)\n",
    ],
)
def test_a_mapping_without_a_shell_or_from_elsewhere_stays_quiet(repo: GitRepo, source: str) -> None:
    assert _dangerous(repo, {"fine.py": source}) == []


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        ("from os import *\nsystem(cmd)\n", "python-os-system"),
        ("from os import *\n\n\ndef run(cmd):\n    return popen(cmd)\n", "python-os-system"),
        ("from subprocess import *\ngetoutput(cmd)\n", "python-subprocess-shell"),
        ("from subprocess import *\nrun(cmd, shell=True)\n", "python-subprocess-shell"),
        ("from pickle import *\nloads(blob)\n", "python-pickle"),
        ("from helpers import *\nfrom os import *\nsystem(cmd)\n", "python-os-system"),
    ],
)
@pytest.mark.parametrize("texts", [True, False])
def test_a_name_a_star_import_binds_is_that_modules(
    repo: GitRepo, source: str, construct: str, texts: bool
) -> None:
    _assert_reported(repo, source, construct, texts=texts)


@pytest.mark.parametrize(
    "source",
    [
        "from os.path import *\njoin(a, b)\n",
        "from os import *\n\n\ndef system(cmd):\n    return cmd\n\n\nsystem(cmd)\n",
        "from os import *\nfrom helpers import system\nsystem(cmd)\n",
        "from subprocess import *\nrun(['ls', '-l'])\n",
        "from . import *\nsystem(cmd)\n",
        "from os import *\nsystem = print\nsystem(cmd)\n",
    ],
)
def test_star_import_near_misses(repo: GitRepo, source: str) -> None:
    assert _dangerous(repo, {"fine.py": source}) == []

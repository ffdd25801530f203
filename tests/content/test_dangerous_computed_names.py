"""An attribute of a module holding a dangerous function, read by a name the source does not spell
(`getattr(os, name)`, `vars(os)[name]`), is reported itself: however the name is built (joined,
reversed, decoded, passed in), it may be the dangerous one. Each case was quiet before."""

from __future__ import annotations

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.pyconstructs import ATTRIBUTE_HOLDERS, held_example
from tests.content.helpers import change_of, constructs_found, scan, where
from tests.gitrepo import GitRepo

ATTRIBUTE = "python-attribute-variable"


@pytest.mark.parametrize(
    "source",
    [
        "import os\ndef f(name, c):\n    return getattr(os, name)(c)\n",
        "import os\ngetattr(os, ''.join(['sys', 'tem']))(c)\n",
        "import os\ngetattr(os, 'metsys'[::-1])(c)\n",
        "import os\ngetattr(os, b'system'.decode())(c)\n",
        "import os\ngetattr(os, chr(115) + 'ystem')(c)\n",
        "import os\nx = 'tem'\ngetattr(os, f'sys{x}')(c)\n",
        "import os\ngetattr(os, '{}tem'.format('sys'))(c)\n",
        "import os\ngetattr(os, 'sys%s' % 'tem')(c)\n",
        "import subprocess as sp\nrun = getattr(sp, name, None)\n",
        "import builtins\ndef f(name, s):\n    return getattr(builtins, name)(s)\n",
        "def f(name, s):\n    return getattr(__builtins__, name)(s)\n",
        "import os, operator\noperator.attrgetter(name)(os)(c)\n",
        "import os\nos.__getattribute__(name)(c)\n",
        "import os, operator\noperator.methodcaller(name, c)(os)\n",
        "import os\nfrom operator import methodcaller as mc\ncall = mc(name, c)\ncall(os)\n",
        "import os\nobject.__getattribute__(os, name)(c)\n",
        "import os\nm = os\ngetattr(m, name)(c)\n",
        "import sys\ngetattr(sys.modules['os'], name)(c)\n",
        "m = __import__('pickle')\ngetattr(m, name)(data)\n",
        "import os\nvars(os)[name](c)\n",
        "import os\nos.__dict__[name](c)\n",
        "import os\nvars(os).get(name)(c)\n",
        "__builtins__[name](s)\n",
        "import builtins\nbuiltins.__dict__[name](s)\n",
        "globals()['__builtins__'][name](s)\n",
        "import pty\nspawn = getattr(pty, kind + '_spawn')\n",
    ],
)
def test_a_dangerous_module_read_by_a_computed_name_is_reported(source: str) -> None:
    assert constructs_found(source) == [(len(source.splitlines()), ATTRIBUTE)]  # the read is on the last line


@pytest.mark.parametrize(
    "source",
    [
        "import os\nflag = getattr(os, 'O_BINARY', 0)\n",  # a name the source spells
        "import os\ngetattr(os, 'get' + 'cwd')()\n",  # built of constants: read as spelled
        "import string\ngetattr(string, name)\n",  # a module holding nothing dangerous
        "import os\ngetattr(os.path, name)(p)\n",  # os.path is not os
        "def f(o, name):\n    return getattr(o, name)\n",  # any object
        "globals()[name]()\n",  # the module's own names hold no builtin
        "vars(obj)[name]\n",
        "d = {}\nd[name]\n",
        "import numpy as np\ndtype = getattr(np, name)\n",  # its reader is dangerous only as told
        "import torch\ndtype = getattr(torch, name)\n",
        "import os\nsetattr(os, name, value)\n",  # a write, not a read
        "import os, operator\noperator.methodcaller('getcwd')(os)\n",
        "import operator\noperator.methodcaller(name)(obj)\n",
        "import os\nvars(os)[name] = value\n",
    ],
)
def test_computed_reads_near_misses_stay_quiet(source: str) -> None:
    assert ATTRIBUTE not in {construct for _, construct in constructs_found(source)}


def test_a_getter_made_by_an_alias_is_followed() -> None:
    """Quiet before: the getter was recognized by the word `methodcaller` alone."""
    source = "import os\nfrom operator import methodcaller as mc\nrun = mc('system', c)\nrun(os)\n"
    assert constructs_found(source) == [(4, "python-os-system")]


def test_every_holder_names_a_function_it_holds() -> None:
    assert {"os", "subprocess", "builtins", "pickle", "marshal", "pty", "ctypes"} <= ATTRIBUTE_HOLDERS
    assert held_example("os") == "os.popen" and held_example("builtins") == "eval"
    assert all(held_example(holder).startswith(holder) for holder in ATTRIBUTE_HOLDERS - {"builtins"})


def test_the_report_names_the_module_and_a_function_it_holds(repo: GitRepo) -> None:
    filler = "".join(f"def f{i}(a):\n    return a + {i}\n\n" for i in range(2000))
    head = {
        "tool.py": "import os as o\n" + filler + "def run(name, c):\n    return getattr(o, name)(c)\n",
        "broken.py": "import os\ndef g(n, c):\n    return getattr(os,\n        n)(c)\ndef h(:\n",
    }
    found = scan(DangerousRule(), change_of(repo, head))
    assert where(found) == [("broken.py", 3, ATTRIBUTE), ("tool.py", 6003, ATTRIBUTE)]
    message = found[1].message
    assert message.startswith("Reads an attribute of os by a name computed at run time")
    assert "os.popen among them" in message and "content.dangerous: false" in message

from __future__ import annotations

import json

import pytest

from bot.cli import main
from bot.engine.change import FileTexts, change_from_diff
from bot.engine.content.bannedimports import BannedImportsRule
from bot.engine.findings import RuleId, Violation
from bot.engine.manifest import ManifestError, json_schema, parse_manifest
from bot.local.check import CheckOptions, run_check
from tests.content.helpers import change_of, commit_change, manifest, scan, where
from tests.gitrepo import GitRepo

RULE = BannedImportsRule()
POLICY = """\
content:
  banned_imports:
    - module: requests
      message: use the http.client wrapper in src/net.py
    - module: child_process
      paths: ["src/**"]
    - module: lodash/fp
"""


def _imports(repo: GitRepo, head: dict[str, str], base: dict[str, str] | None = None) -> list[Violation]:
    found = scan(RULE, change_of(repo, head, base), manifest(POLICY))
    assert all(v.rule is RuleId.BANNED_IMPORT for v in found)
    return found


@pytest.mark.parametrize(
    "source",
    [
        "import requests\n",
        "import os, requests\n",
        "import requests.adapters\n",
        "import requests as r\n",
        "from requests import get\n",
        "from requests.adapters import HTTPAdapter\n",
        "from requests import (\n    get,\n    post,\n)\n",
        "x = 1; import requests\n",
        "import os, \\\n    requests\n",
        "def f():\n    import requests\n",
        "try:\n    import requests\nexcept ImportError:\n    requests = None\n",
        "r = __import__('requests')\n",
        "r = __import__('requests.adapters')\n",
        "import importlib\nr = importlib.import_module('requests')\n",
        "from importlib import import_module as load\nr = load('req' + 'uests')\n",
        "import importlib\nr = importlib.import_module('.adapters', package='requests')\n",
        "import builtins\nr = builtins.__import__('requests')\n",
        "import runpy\nrunpy.run_module('requests')\n",
        "r = __import__(f'requests')\n",
        "import importlib\nr = importlib.import_module('..x', 'requests.adapters')\n",
        "import importlib\nr = importlib.import_module('..', 'requests.adapters')\n",
        "import ｒｅｑｕｅｓｔｓ\n",
        "r = __ｉｍｐｏｒｔ__('requests')\n",
    ],
)
def test_python_imports_of_a_banned_module_fire(repo: GitRepo, source: str) -> None:
    found = _imports(repo, {"src/a.py": source})
    assert [(v.path, v.id) for v in found] == [("src/a.py", "requests")]
    assert "requests" in found[0].message and "src/a.py" in found[0].message
    assert "use the http.client wrapper in src/net.py" in found[0].message
    assert "content.banned_imports of the base branch's manifest" in found[0].message


@pytest.mark.parametrize(
    "source",
    [
        "import requests_cache\n",
        "from myapp import requests\n",
        "from . import requests\n",
        "from .requests import get\n",
        "# import requests\n",
        "doc = 'import requests'\n",
        '"""\nimport requests\n"""\n',
        "name = 'requests'\n__import__(name)\n",
        "import importlib\nimportlib.import_module('requestsx')\n",
        "def __import__(x): return x\n__import__('requests')\n",
        "r = __import__(f'{name}')\n",
        "import importlib\nimportlib.import_module('.requests')\n",
    ],
)
def test_python_near_misses_stay_quiet(repo: GitRepo, source: str) -> None:
    assert _imports(repo, {"src/a.py": source}) == []


@pytest.mark.parametrize(
    ("path", "source", "module"),
    [
        ("src/a.js", "import fp from 'lodash/fp';\n", "lodash/fp"),
        ("src/a.js", 'import { map } from "lodash/fp/map";\n', "lodash/fp"),
        ("src/a.ts", "import {\n  exec,\n} from 'child_process';\n", "child_process"),
        ("src/a.ts", "import { exec } from 'node:child_process';\n", "child_process"),
        ("src/a.js", "const cp = require('child_process');\n", "child_process"),
        ("src/a.js", "const cp = require(`child_process`);\n", "child_process"),
        ("src/a.js", "const cp = require('child' + '_process');\n", "child_process"),
        ("src/a.mjs", "const cp = await import('child_process');\n", "child_process"),
        ("src/a.js", "import 'requests';\n", "requests"),
        ("src/a.js", "x = s.split(/'/); const cp = require('child_process');\n", "child_process"),
        ("src/a.js", "/* a\n * b */ const cp = require('child_process');\n", "child_process"),
        ("src/a.ts", "export * from 'requests/sub';\n", "requests"),
        ("src/a.ts", 'import cp = require("child_process");\n', "child_process"),
    ],
)
def test_javascript_imports_of_a_banned_module_fire(
    repo: GitRepo, path: str, source: str, module: str
) -> None:
    found = _imports(repo, {path: source})
    assert [(v.path, v.id) for v in found] == [(path, module)]


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("src/a.js", "import x from 'lodash';\n"),
        ("src/a.js", "import x from 'lodash/fpx';\n"),
        ("src/a.js", "// const cp = require('child_process');\n"),
        ("src/a.js", "const s = \"require('child_process')\";\n"),
        ("src/a.js", "const p = require.resolve('child_process');\n"),
        ("src/a.js", "const m = require(name);\n"),
        ("src/a.js", "const m = require(`child_${x}`);\n"),
        ("src/a.js", "const t = `\nconst cp = require('child_process');\n`;\n"),
        ("src/a.js", "/*\nconst cp = require('child_process');\n*/\n"),
        ("lib/a.js", "const cp = require('child_process');\n"),  # outside the entry's paths
        ("src/a.rb", "require 'requests'\n"),
        ("README.md", "import requests\n"),
    ],
)
def test_javascript_near_misses_stay_quiet(repo: GitRepo, path: str, source: str) -> None:
    assert _imports(repo, {path: source}) == []


def test_only_imports_on_added_lines_count(repo: GitRepo) -> None:
    base = {"src/a.py": "import requests\n\nx = 1\n"}
    head = {"src/a.py": "import requests\n\nx = requests.get('u')\nfrom requests import post\n"}
    found = _imports(repo, head, base)
    assert where(found) == [("src/a.py", 4, "requests")]
    assert found[0].message.startswith("Imports `requests` (line 4 of src/a.py)")


def test_an_import_after_a_lone_carriage_return_is_placed_on_the_diff_line_holding_it(repo: GitRepo) -> None:
    # Python ends a line at a lone CR: the tree numbers four lines where the diff shows two.
    base = {"src/a.py": "x = 1\n"}
    head = {"src/a.py": "x = 1\n# note\rimport requests\n# note\rfrom requests import get\n"}
    found = _imports(repo, head, base)
    assert where(found) == [("src/a.py", 2, "requests"), ("src/a.py", 3, "requests")]
    assert found[0].message.startswith("Imports `requests` (line 2 of src/a.py)")


def test_an_import_spanning_lines_is_reported_on_its_first_added_line(repo: GitRepo) -> None:
    base = {"src/a.py": "from os import (\n    path,\n)\n"}
    head = {"src/a.py": "from os import (\n    path,\n)\nimport os, \\\n    requests\n"}
    assert where(_imports(repo, head, base)) == [("src/a.py", 4, "requests")]


def test_a_file_that_does_not_parse_is_read_line_by_line(repo: GitRepo) -> None:
    source = (
        "def f(:\nimport requests.adapters  # here\nfrom requests import (\n    get)\n"
        "x = __import__('requests')\n# __import__('requests')\nfrom .requests import x\n"
    )
    assert where(_imports(repo, {"src/a.py": source})) == [
        ("src/a.py", 2, "requests"),
        ("src/a.py", 3, "requests"),
        ("src/a.py", 5, "requests"),
    ]


def test_without_the_new_text_lines_are_read_alone(repo: GitRepo) -> None:
    change = change_of(repo, {"src/a.py": "x = 1\nimport requests\n"}, {"src/a.py": "x = 1\n"}, texts=False)
    assert where(scan(RULE, change, manifest(POLICY))) == [("src/a.py", 2, "requests")]


def test_an_import_renamed_before_the_change_still_counts_where_it_is_called(repo: GitRepo) -> None:
    base = {"src/a.py": "from importlib import import_module as load\n\nx = 1\n"}
    head = {"src/a.py": "from importlib import import_module as load\n\nx = load('requests')\n"}
    assert where(_imports(repo, head, base)) == [("src/a.py", 3, "requests")]


def test_without_entries_nothing_is_read(repo: GitRepo) -> None:
    assert scan(RULE, change_of(repo, {"src/a.py": "import requests\n"})) == []


def test_entries_are_validated_with_their_place() -> None:
    text = (
        "version: 1\ncontent:\n  banned_imports:\n    - module: '../x'\n    - module: requests\n"
        "    - module: requests\n    - {paths: [src]}\n    - module: a b\n"
    )
    with pytest.raises(ManifestError) as caught:
        parse_manifest(text, "m.yml")
    lines = str(caught.value).splitlines()
    assert any(line.startswith("m.yml:4:15: content.banned_imports[0].module: ") for line in lines)
    assert any(
        line.startswith("m.yml:6:7: content.banned_imports[2].module: repeats entry 1") for line in lines
    )
    assert any("content.banned_imports[3]: missing required key 'module'" in line for line in lines)
    assert any(line.startswith("m.yml:8:15: content.banned_imports[4].module: ") for line in lines)


def test_the_schema_describes_banned_imports(capsys: pytest.CaptureFixture[str]) -> None:
    content = json_schema()["properties"]["content"]["properties"]
    assert content["banned_imports"]["items"]["required"] == ["module"]
    assert main(["schema"]) == 0
    assert "banned_imports" in json.loads(capsys.readouterr().out)["properties"]["content"]["properties"]


def test_a_module_name_is_read_as_python_reads_it(repo: GitRepo) -> None:
    policy = "content:\n  banned_imports:\n    - module: ｒｅｑｕｅｓｔｓ\n"
    found = scan(RULE, change_of(repo, {"a.py": "import requests\n"}), manifest(policy))
    assert where(found) == [("a.py", 1, "requests")]


def test_without_the_base_text_the_diff_alone_decides(repo: GitRepo) -> None:
    diff = b"diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x = 1\n+import requests\n"
    texts = {("a.py", "a.py"): FileTexts(base=None, head="x = 1\nimport requests\n")}
    assert where(scan(RULE, change_from_diff(diff, texts), manifest(POLICY))) == [("a.py", 2, "requests")]


def test_banned_imports_fail_scope_end_to_end(repo: GitRepo) -> None:
    commit_change(repo, {"src/a.py": "import requests\n"}, {".github/receipt.yml": "version: 1\n" + POLICY})
    receipt = run_check(CheckOptions(repo=repo.root, base="main", head="pr", no_tests=True))
    assert not receipt.scope_pass
    assert [(v.rule, v.id, v.line) for v in receipt.scope] == [(RuleId.BANNED_IMPORT, "requests", 1)]


def test_a_change_that_cannot_import_is_not_read(repo: GitRepo) -> None:
    change = change_of(repo, {"src/a.py": "import os\ny = 2\n"}, {"src/a.py": "import os\n"}, texts=False)
    assert scan(RULE, change, manifest(POLICY)) == []


def test_files_no_entry_selects_are_not_read(repo: GitRepo) -> None:
    policy = "content:\n  banned_imports:\n    - {module: requests, paths: ['src/**']}\n"
    assert scan(RULE, change_of(repo, {"lib/a.py": "import requests\n"}), manifest(policy)) == []


def test_content_exclude_leaves_paths_unread(repo: GitRepo) -> None:
    policy = POLICY + "  exclude: ['vendor/**']\n"
    change = change_of(repo, {"vendor/a.py": "import requests\n", "src/a.py": "import requests\n"})
    assert where(scan(RULE, change, manifest(policy))) == [("src/a.py", 1, "requests")]


SPOILERS = [
    "type Vector = list[float]\n",  # Python 3.12
    'label = f"{"("}"\n',  # Python 3.12: a string in a field
    "x = = 1\n",
]


@pytest.mark.parametrize("spoiler", SPOILERS)
@pytest.mark.parametrize(
    "body",
    [
        "x = 1; import requests\n",
        "if ready: import requests\n",
        "import os, \\\n    requests\n",
        "from \\\n    requests import get\n",
        "__import__(\n    'requests')\n",
        "r = __import__('req' + 'uests')\n",
        "import importlib\nr = importlib.import_module(\n    'requests.sessions')\n",
        "m = __import__\nr = m('requests')\n",
        "import importlib as il\nr = il.import_module('.sessions', 'requests')\n",
        "import importlib\nr = importlib.import_module(name='requests')\n",
        "r = (__import__)('requests')\n",
        "import ｒｅｑｕｅｓｔｓ\n",
        "r = [__import__('requests'), , other('x')]\n",  # broken itself: its calls are read alone
    ],
)
def test_a_file_that_does_not_parse_is_read_statement_by_statement(
    repo: GitRepo, spoiler: str, body: str
) -> None:
    assert [i for _, _, i in where(_imports(repo, {"src/a.py": spoiler + body}))] == ["requests"]


@pytest.mark.parametrize("spoiler", SPOILERS)
@pytest.mark.parametrize(
    "body",
    [
        "from . import requests\n",
        "import requests_mock\n",
        "x = 'import requests'\n",
        "r = __import__('requests_mock')\n",
        'label = f"{"import requests"}"\n',
        "# import requests\n",
    ],
)
def test_near_misses_in_a_file_that_does_not_parse_stay_quiet(repo: GitRepo, spoiler: str, body: str) -> None:
    assert _imports(repo, {"src/a.py": spoiler + body}) == []


@pytest.mark.parametrize(
    "body",
    [
        "import os, \\\n    requests\n",
        "x = 1; import requests\n",
        "__import__(\n    'requests')\n",
        "m = __import__\nr = m('requests')\n",
    ],
)
def test_without_the_new_text_statements_are_read_alone(repo: GitRepo, body: str) -> None:
    base = {"src/a.py": "import json\n"}
    change = change_of(repo, {"src/a.py": "import json\n" + body}, base, texts=False)
    assert [i for _, _, i in where(scan(RULE, change, manifest(POLICY)))] == ["requests"]


@pytest.mark.parametrize("spoiler", ["", "x = = 1\n"])
@pytest.mark.parametrize(
    "binding", ["m = __import__", "import importlib\nm = importlib.import_module", "m: object = __import__"]
)
def test_an_importer_bound_to_a_name_before_the_change_counts_where_it_is_called(
    repo: GitRepo, spoiler: str, binding: str
) -> None:
    base = {"src/a.py": f"{spoiler}{binding}\n"}
    head = {"src/a.py": f"{spoiler}{binding}\nr = m('requests')\n"}
    line = (spoiler + binding).count("\n") + 2
    assert where(_imports(repo, head, base)) == [("src/a.py", line, "requests")]


def test_a_lone_surrogate_a_declared_codec_decodes_is_read_as_any_text(repo: GitRepo) -> None:
    """`unicode_escape` turns `\\udc80` into a lone surrogate, which UTF-8 cannot encode: the text
    is still read."""
    source = b'# coding: unicode_escape\nimport requests\nx = "\\udc80"\n'
    assert where(_imports(repo, {"a.py": source})) == [("a.py", 2, "requests")]

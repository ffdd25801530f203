"""`dangerous` parses only the statements of a Python file that can hold or change a construct
(bot/engine/content/pyselect.py). For a file that parses, its findings must be exactly those of
parsing the whole file (`DangerousRule(parse_whole_files=True)`, the code as it was): checked here
on whole corpora, on every way the selection declines, and on the selection's own invariant (every
call it is responsible for is kept, node for node). A file that does not parse is judged on the
selection's statements when they parse, and line by line when they do not."""

from __future__ import annotations

import ast
import re
import sysconfig
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine.change import Change, FileTexts, change_from_diff
from bot.engine.content import dangerous, pyconstructs, pyselect, pywords
from bot.engine.content.added import added_files
from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.filekinds import Kind
from bot.engine.content.pyconstructs import _imports, _module_bindings, python_constructs
from bot.engine.findings import Violation
from tests.content.helpers import manifest
from tests.datafiles import SECRETS
from tests.texts import change_with_texts

SELECTED = DangerousRule()
WHOLE = DangerousRule(parse_whole_files=True)
ALONE = "(Judged from this statement alone"
# str.splitlines breaks lines at these, and so does the diff parser: the corpus has them replaced
# by blanks, as bench/content_rules.py does.
_LINE_BREAKS = str.maketrans(dict.fromkeys("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", " "))


def _diff(files: Mapping[str, str], added: Mapping[str, set[int]] | None = None) -> bytes:
    """A git diff making each (path, text) a new file, or, for a path in `added`, a modified file whose
    change added those lines (1-based; the base is the text without them)."""
    out = []
    for path, text in files.items():
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        if not lines:
            continue
        if added is None or path not in added:
            header = "new file mode 100644\nindex 0000000..1111111\n--- /dev/null\n"
            out.append(f"diff --git a/{path} b/{path}\n{header}+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n")
            out.append("".join(f"+{line}\n" for line in lines))
            continue
        new = {n for n in added[path] if n <= len(lines)}
        base_len = len(lines) - len(new)
        out.append(
            f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        )
        out.append(f"@@ -{1 if base_len else 0},{base_len} +1,{len(lines)} @@\n")
        out.append("".join(f"{'+' if n in new else ' '}{line}\n" for n, line in enumerate(lines, 1)))
    return "".join(out).encode("utf-8", "surrogateescape")


def _change(files: Mapping[str, str], added: Mapping[str, set[int]] | None = None) -> Change:
    texts = {path: FileTexts(None, text) for path, text in files.items()}
    return change_with_texts(_diff(files, added), texts)


def _both(change: Change) -> list[Violation]:
    """The findings, after checking they are the whole-file parse's, in the same order, for every
    file whose new text parses (of one that does not, the selection's statements decide)."""
    policy = manifest()
    selected = list(SELECTED.scan(change, policy))
    heads = [f.head for f in added_files(change) if f.kind is Kind.PYTHON and f.head is not None]
    if all(dangerous._parse(head) is not None for head in heads):
        assert selected == list(WHOLE.scan(change, policy))
    return selected


def _found(text: str, added: set[int] | None = None) -> list[tuple[int | None, str]]:
    change = _change({"m.py": text}, None if added is None else {"m.py": added})
    return [(v.line, v.id) for v in _both(change)]


def _selected(text: str) -> str | None:
    source = pyselect.selected_source(text)
    assert source is None or source.count("\n") == text.count("\n")
    return source


def _kept(text: str) -> list[int]:
    """The numbers of the lines the selection keeps as they are (not blanked, not made `pass`)."""
    source = _selected(text)
    assert source is not None
    return [
        n
        for n, (a, b) in enumerate(zip(source.split("\n"), text.split("\n"), strict=True), 1)
        if a and a == b
    ]


@pytest.fixture
def enter_every_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read even small statements block by block, as large ones are."""
    monkeypatch.setattr(pyselect, "_WHOLE_BELOW", 0)


# --- corpora ------------------------------------------------------------------------------------


def _stdlib(*, tests: bool = False) -> list[tuple[str, str]]:
    root = Path(sysconfig.get_paths()["stdlib"])
    paths = sorted(
        p
        for p in root.rglob("*.py")
        if "site-packages" not in p.relative_to(root).parts
        and (tests or p.relative_to(root).parts[0] != "test")
    )
    return [(f"Lib/{p.relative_to(root).as_posix()}", p.read_text("utf-8", "replace")) for p in paths]


def test_the_standard_library_as_new_files_has_the_whole_file_findings() -> None:
    """The benchmark's corpus: every .py file of the standard library outside `test`."""
    files = {path: text.translate(_LINE_BREAKS) for path, text in _stdlib()}
    change = _change(files)
    found = _both(change)
    assert len(files) > 500 and len(found) > 50
    candidates = [f.head for f in added_files(change) if f.kind is Kind.PYTHON and dangerous.worth_parsing(f)]
    declined = [h for h in candidates if h is None or _selected(h) is None]
    # The selection did the work; it declines a file that reaches a module or builtin around its
    # name (getattr, sys.modules["x"], builtins, an importer given a string, a module named bare),
    # as a quarter of these do.
    assert len(candidates) > 50 and len(declined) * 3 < len(candidates)


def test_the_standard_library_as_modified_files_has_the_whole_file_findings() -> None:
    """The same files, each changed by adding every fifth line: only calls on added lines count."""
    files = {path: text.translate(_LINE_BREAKS) for path, text in _stdlib()}
    added = {path: set(range(3, text.count("\n") + 2, 5)) for path, text in files.items()}
    found = _both(_change(files, added))
    assert len(found) > 10


def test_bandit_examples_have_the_whole_file_findings() -> None:
    examples = sorted((SECRETS / "bandit" / "examples").glob("*.py"))
    files = {p.name: p.read_bytes().decode("utf-8", "replace").translate(_LINE_BREAKS) for p in examples}
    found = _both(_change(files))
    assert len(examples) > 80 and len(found) >= 30


def _calls_named(tree: ast.AST, words: set[str]) -> list[str]:
    def last(node: ast.expr) -> str | None:
        return (
            node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        )

    return [
        ast.dump(n, include_attributes=True)
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and last(n.func) in words
    ]


def _calls_outside_definitions(tree: ast.AST, word: str) -> list[str]:
    """The calls to `word` (`_calls_named`) outside every definition, its header and decorators too."""
    inside = {
        call
        for definition in ast.walk(tree)
        if isinstance(definition, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        for call in _calls_named(definition, {word})
    }
    return [call for call in _calls_named(tree, {word}) if call not in inside]


def _names(tree: ast.AST) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.alias):
            out.update(node.name.split("."))
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.update(node.module.split("."))
    return out


_TRICKY_TESTS = (
    "test_grammar.py",
    "test_syntax.py",
    "test_fstring.py",
    "test_patma.py",
    "test_string_literals.py",
    "test_decorators.py",
    "test_coroutines.py",
    "test_exceptions.py",
    "test_except_star.py",
    "test_unparse.py",
    "test_tokenize.py",
    "test_builtin.py",
)


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")
def _import_matters(name: str, target: str) -> bool:
    return (
        pyconstructs._leads(target)
        or target in pyconstructs._BUILTIN_DICTS
        or bool({name, target.rsplit(".", 1)[-1]} & pyconstructs.IMPORT_DECIDES)
    )


def test_the_selection_keeps_every_call_it_answers_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """The invariant behind the equivalence, on every file that parses, with common names added to
    the words (so that most statements, at every depth, are selected or blanked): every call to one
    of the words (its module named in the file, when it needs one) is in the selection's tree node
    for node, with the same imports and the same top-level bindings of eval, exec and __import__."""
    extra = frozenset({"len", "append", "format", "join", "get", "isinstance", "print", "range", "f"})
    monkeypatch.setattr(pyselect, "_ALWAYS", pyselect._ALWAYS | extra)
    # Every file is selected, those whose code names no dangerous word too (which keep nothing
    # otherwise: test_code_without_the_words_keeps_nothing_and_the_whole_file_finds_nothing).
    monkeypatch.setattr(pyselect, "may_hold", lambda present: True)
    corpus = _stdlib() + [(p, t) for p, t in _stdlib(tests=True) if Path(p).name in _TRICKY_TESTS]
    checked = declined = 0
    for path, text in corpus:
        try:
            whole = ast.parse(text)
        except SyntaxError:
            continue
        source = _selected(text)
        if source is None:
            declined += 1
            continue
        tree = ast.parse(source)
        names = _names(whole)
        words = set(pyselect._ALWAYS).union(*(pyselect._GATED[m] for m in names & set(pyselect._GATED)))
        # A call of getattr is kept for what its arguments name, or in module-level code.
        wanted = _calls_named(whole, words - {pyselect._CALLED})
        wanted += _calls_outside_definitions(whole, pyselect._CALLED)
        kept = set(_calls_named(tree, words))
        assert [c for c in wanted if c not in kept] == [], path
        imported, imported_whole = _imports(tree), _imports(whole)
        # An import the selection keeps binds its names as the whole file's last import does, and
        # every import that leads somewhere, or names what IMPORT_DECIDES, is kept.
        assert all(imported_whole[n] == t for n, t in imported.items()), path
        assert {
            n: t for n, t in imported_whole.items() if _import_matters(n, t)
        }.items() <= imported.items(), path
        assert (
            _module_bindings(tree)[0] & pyselect._ALWAYS == _module_bindings(whole)[0] & pyselect._ALWAYS
        ), path
        assert python_constructs(tree) == python_constructs(whole), path
        checked += len(wanted)
    # A file that reaches a module or builtin around its name (getattr, sys.modules["x"], builtins,
    # an importer given a string, a module named bare) is declined: the tree follows those.
    assert checked > 3_500 and declined < 400


@pytest.mark.parametrize("every_block", [False, True])
@pytest.mark.parametrize(
    ("binding", "bound"),
    [
        # In module-level code a call of getattr can stand in a binding's target, which binds the
        # name getattr for the module (`_module_bindings`): getattr(os, ...) is then not the builtin.
        ("d[getattr(k, 'x')] = v", True),
        ("if k:\n    d[getattr(k, 'x')] = v", True),
        ("while k:\n    for d[getattr(k, 'x')] in v:\n        pass", True),
        ("with f as d[getattr (k, 'x')]:\n    pass", True),
        ("d[getattr\\\n    (k, 'x')] += 1", True),
        ("def getattr(o, n):\n    return n", True),
        ("async def getattr(o, n):\n    return n", True),
        ("class getattr:\n    pass", True),
        ("global getattr\ngetattr: int = 1", True),
        # In a definition it binds nothing for the module, nor does a definition's header.
        ("def f():\n    d[getattr(k, 'x')] = v", False),
        ("class C:\n    d[getattr(k, 'x')] = v", False),
        ("@getattr(k, 'x')\ndef f(a=getattr(k, 'y')):\n    pass", False),
        ("if k:\n    def f():\n        d[getattr(k, 'x')] = v", False),
    ],
)
def test_a_call_of_getattr_in_module_level_code_is_kept_as_it_may_bind_getattr(
    binding: str, bound: bool, every_block: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if every_block:
        monkeypatch.setattr(pyselect, "_WHOLE_BELOW", 0)
    text = f"import os\n{binding}\ndef g(c):\n    getattr(os, 'system')(c)\n"
    call = text.count("\n")
    for placed in _placements(text):
        assert _lines_of(placed, _found(placed)) == _lines_of(
            text, [] if bound else [(call, "python-os-system")]
        )


@pytest.mark.parametrize(
    "text",
    [
        "import os\ndef f(c):\n    o = os\n    x = getattr(obj, 'y')\n    getattr(o, 'system')(c)\n",
        "import os\ndef f(c):\n    g = getattr\n    g(os, 'system')(c)\n",
        "import builtins\ndef f(c):\n    b = builtins\n    b.getattr(b, 'eval')(c)\n",
        "def f(c):\n    getattr(getattr(__builtins__, 'x'), 'y')(c)\n    getattr(eval, '__call__')(c)\n",
        "import sys\ndef f(c):\n    getattr(sys.modules['os'], 'system')(c)\n",
        "import os as o\ndef f(c, s):\n    return getattr(vars(o)['sys'], s)\n",
        "def f(c):\n    return map(getattr, [eval], ['__call__'])\n",
        "import os\nclass C:\n    run = getattr(os, 'system')\n    x = getattr(C, 'y')\n",
        "def f(c):\n    return f'{getattr(__import__(c), \"system\")}'\n",
    ],
)
def test_a_call_of_getattr_in_a_definition_is_kept_for_what_its_arguments_name(text: str) -> None:
    """Called in a definition, getattr reaches a dangerous call only through what its arguments
    name, which keeps the statement: the findings are the whole file's."""
    for placed in _placements(text):
        _found(placed)
    assert _selected(_placements(text)[1]) is not None


def test_a_call_of_getattr_naming_nothing_that_leads_anywhere_is_not_kept(enter_every_block: None) -> None:
    text = (
        "import os\n"  # 1
        "def f(obj, name):\n"  # 2
        "    value = getattr(obj, name, None)\n"  # 3
        "    return getattr(value, 'x')\n"  # 4
        "def g(cmd):\n"  # 5
        "    return os.system(cmd)\n"  # 6
        "h = getattr(os, 'x')\n"  # 7: module-level code
    )
    assert _kept(text) == [1, 5, 6, 7]
    assert _found(text) == [(6, "python-os-system")]


# --- what the selection keeps -------------------------------------------------------------------


def test_only_statements_that_can_matter_are_kept() -> None:
    text = (
        '"""A module docstring that mentions eval(x)."""\n'  # 1
        "import os\n"  # 2
        "\n"  # 3
        "X = 1  # eval(x)\n"  # 4
        "def safe():\n"  # 5
        "    return 'eval(x)'\n"  # 6
        "def unsafe(cmd):\n"  # 7
        "    return os.system(cmd)\n"  # 8
    )
    assert _kept(text) == [2, 7, 8]
    assert _found(text) == [(8, "python-os-system")]


def test_a_large_statement_is_read_block_by_block(enter_every_block: None) -> None:
    text = (
        "class Tool:\n"  # 1
        '    """Runs things."""\n'  # 2
        "    @property\n"  # 3
        "    def name(self):\n"  # 4
        "        return 'tool'\n"  # 5
        "    @staticmethod\n"  # 6
        "    def run(code):\n"  # 7
        "        if code:\n"  # 8
        "            x = 1\n"  # 9
        "        elif code is None:\n"  # 10
        "            return eval(code)\n"  # 11
        "        else:\n"  # 12
        "            pass\n"  # 13
        "        try:\n"  # 14
        "            import yaml\n"  # 15
        "        except ImportError:\n"  # 16
        "            pass\n"  # 17
        "        finally:\n"  # 18
        "            y = 2\n"  # 19
    )
    source = _selected(text)
    assert source is not None
    # The docstring and the property are one run of statements that do not matter: one `pass`.
    assert source.split("\n") == [
        "class Tool:",
        "    pass",
        "",
        "",
        "",
        "    @staticmethod",
        "    def run(code):",
        "        if code:",
        "            pass",
        "        elif code is None:",
        "            return eval(code)",
        "        else:",
        "            pass",
        "        try:",
        "            import yaml",
        "        except ImportError:",
        "            pass",
        "        finally:",
        "            pass",
        "",
    ]
    assert _found(text) == [(11, "python-eval")]


def test_a_run_of_statements_that_do_not_matter_becomes_one_pass(enter_every_block: None) -> None:
    text = "def run(code):\n    a = 1\n\n    if a:\n        b = 2\n    eval(code)\n    c = 3\n    d = 4\n"
    # A statement kept between two runs ends the first: each run has its `pass`, at its first line.
    assert _selected(text) == "def run(code):\n    pass\n\n\n\n    eval(code)\n    pass\n\n"
    assert _found(text) == [(6, "python-eval")]


def test_a_statement_under_the_size_limit_is_kept_whole() -> None:
    text = "def run(code):\n    x = 1\n    return eval(code)\n"
    assert _kept(text) == [1, 2, 3]
    padded = "def run(code):\n" + "    x = 1\n" * 300 + "    return eval(code)\n"
    assert _kept(padded) == [1, 302]


def test_words_that_need_their_module_select_only_when_it_is_named() -> None:
    json = "import json\ndef f(s):\n    return json.loads(s)\ndef g(x):\n    return eval(x)\n"
    assert _kept(json) == [4, 5]  # json leads nowhere: its import is not kept either
    assert _kept("import pickle\ndef f(s):\n    return pickle.loads(s)\n") == [1, 2, 3]
    assert _found("import pickle\ndef f(s):\n    return pickle.loads(s)\n") == [(3, "python-pickle")]
    positional = "import subprocess as sp\nsp.run(c, -1, None, None, None, None, None, True, True)\neval(x)\n"
    assert _found(positional) == [(2, "python-subprocess-shell"), (3, "python-eval")]


def test_code_without_the_words_keeps_nothing() -> None:
    """A file whose text names the words a dangerous call needs only in strings and comments (so
    the trigger fires) has nothing kept: its code cannot hold such a call (pywords.py)."""
    text = (
        '"""Runs os.system on the operating system."""\n'  # 1
        "import sys\n"  # 2
        "def f(cmd):  # not os.system\n"  # 3
        "    return sys.argv\n"  # 4
    )
    assert dangerous.worth_parsing(next(iter(added_files(_change({"m.py": text})))))
    assert _kept(text) == []
    assert _found(text) == []
    # Words in a template string's fields are code, and keep what names them.
    assert _kept('import os\nprint(f"{os.system(c)}")\n') == [1, 2]


def test_an_import_in_a_string_does_not_lead_a_broken_file_line_by_line() -> None:
    """A file that does not parse, whose only import of `system as run` is a docstring's text: the
    line-by-line reading took that line for an import and `run(cmd)` for os.system; no code names
    `system`, so nothing is read (the whole-file reference finds nothing when the file parses)."""
    broken = '"""\nfrom os import system as run\n"""\nimport os, (\nrun(cmd)\n'
    assert _found(broken) == []
    assert _found(broken.replace("import os, (", "import os")) == []


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")
def test_code_without_the_words_keeps_nothing_and_the_whole_file_finds_nothing() -> None:
    """The differential check of that shortcut on the standard library and its tests: every file
    whose text names the words but whose code does not, parsed whole, has no construct."""
    skipped = 0
    for path, text in _stdlib(tests=True):
        found = pyselect.selected(text)
        if (
            found is None
            or found.tree is None
            or found.tree.body
            or not pywords.may_hold(pywords.words_in(text))
        ):
            continue
        skipped += 1
        assert found.source == "\n" * text.count("\n"), path
        whole = dangerous._parse(text)
        assert whole is None or list(python_constructs(whole)) == [], path
    assert skipped > 100


def test_the_modules_gated_are_words_of_the_trigger() -> None:
    """`modules_named` reads the trigger's word pass, so it must name every gated module."""
    assert set(pyselect._GATED) <= set(pywords.WORDS)


_GATED_MODULES = sorted(pyselect._GATED)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [*_GATED_MODULES, "_", "x", "2", ".", " ", "\n", "(", "=", "_os", "os_", "sys2", "__"]
        ),
        max_size=30,
    )
)
def test_the_modules_named_are_those_a_word_search_finds(pieces: list[str]) -> None:
    """The one-pass set answer against each match of the modules as one alternation, in texts that
    glue module names to word characters (`_os`, `builtins__`, `__builtins__`, `os2`)."""
    data = "".join(pieces).encode()
    words = re.compile(rb"\b(?:" + "|".join(_GATED_MODULES).encode() + rb")\b")
    found = pyselect.modules_named(pywords.words_of(data))
    assert found == {m.group().decode() for m in words.finditer(data)}


def test_imports_anywhere_are_kept_and_each_is_tried(enter_every_block: None) -> None:
    text = (
        "def a():\n"  # 1
        "    import subprocess as sp\n"  # 2
        "def b(cmd):\n"  # 3
        "    sp.run(cmd, shell=True)\n"  # 4
        "def c():\n"  # 5
        "    import json as sp\n"  # 6
        "def d(cmd):\n"  # 7
        "    x = 1\n"  # 8
    ) + "x = 1\n" * 80  # the second round, which keeps line 6, is not left to the whole file
    assert _kept(text) == [1, 2, 3, 4, 5, 6]
    # sp is subprocess or json, by whichever import ran last (a() or c()): each is tried.
    assert _found(text) == [(4, "python-subprocess-shell")]
    assert _found(text.replace("json as sp", "json")) == [(4, "python-subprocess-shell")]


def test_an_import_that_binds_nothing_leading_is_not_kept(enter_every_block: None) -> None:
    text = (
        "import re\n"  # 1
        "from collections import (\n"  # 2
        "    OrderedDict)\n"  # 3
        "import os.path\n"  # 4: binds os
        "def f(cmd):\n"  # 5
        "    import json, textwrap\n"  # 6
        "    os.system(cmd)\n"  # 7
    )
    assert _kept(text) == [4, 5, 7]
    assert _found(text) == [(7, "python-os-system")]


@pytest.mark.parametrize(
    ("imports", "found"),
    [
        # Either import may have run last (control flow is not followed): each is tried.
        ("import os as o\nimport re as o", [(3, "python-os-system")]),
        ("import re as o\nimport os as o", [(3, "python-os-system")]),
        ("import os.path as o", []),
        ("from helpers import os as o", [(3, "python-os-system")]),
        ("import six.moves.cPickle as o\nfrom x import loads as o", []),
    ],
)
def test_an_import_rebinding_a_name_that_leads_is_kept(imports: str, found: list[tuple[int, str]]) -> None:
    text = f"{imports}\no.system(cmd)\n"
    line = text.count("\n")
    assert _found(text) == [(line, f) for _, f in found]


@pytest.mark.parametrize(
    ("imports", "found"),
    [
        ("from loaders import SafeLoader as L", []),  # safe by its name
        ("from loaders import Unsafe as SafeLoader\nL = SafeLoader", [(4, "python-yaml-load")]),
        ("from loaders import Full as L", [(4, "python-yaml-load")]),
    ],
)
def test_an_import_naming_a_safe_loader_is_kept(imports: str, found: list[tuple[int, str]]) -> None:
    text = f"import yaml\n{imports}\n" + ("" if "\n" in imports else "\n") + "yaml.load(s, Loader=L)\n"
    assert _found(text) == found


def test_an_import_rebinding_an_inspecting_builtin_is_kept() -> None:
    text = "from log import print\nprint(eval)\n"
    assert _kept(text) == [1, 2]
    assert _found(text) == [(2, "python-eval")]


# --- statements told apart as the tokenizer does --------------------------------------------------


def test_a_string_spanning_column_0_is_one_statement() -> None:
    text = (
        "import os\n"  # 1
        'doc = """\n'  # 2
        "eval(x)\n"  # 3
        "os.system(cmd)\n"  # 4
        '"""; eval(y)\n'  # 5
        "snippet = '''\n"  # 6
        "exec(z)'''\n"  # 7
        "b = rb'\\\n"  # 8: a one-line string continued by a backslash
        "eval(w)'\n"  # 9
    )
    assert _found(text) == [(5, "python-eval")]
    assert _kept(text) == [1, 2, 3, 4, 5]


def test_brackets_and_backslashes_carry_a_statement_over_column_0() -> None:
    text = (
        "import os\n"  # 1
        "calls = [\n"  # 2
        "eval(a),\n"  # 3
        "]\n"  # 4
        "total = 1 + \\\n"  # 5
        "eval(b)\n"  # 6
        "f(\n"  # 7
        "x)(eval(c))\n"  # 8
    )
    assert _found(text) == [(3, "python-eval"), (6, "python-eval"), (8, "python-eval")]


def test_clauses_and_decorated_definitions_stay_with_their_statement(enter_every_block: None) -> None:
    text = (
        "try:\n"  # 1
        "    import cPickle as pickle\n"  # 2
        "except ImportError:\n"  # 3
        "    import pickle\n"  # 4
        "else:\n"  # 5
        "    pass\n"  # 6
        "finally:\n"  # 7
        "    x = 1\n"  # 8
        "if x:\n"  # 9
        "    y = 1\n"  # 10
        "elif y:\n"  # 11
        "    load = pickle.load\n"  # 12
        "@register(\n"  # 13
        "    eval(spec))\n"  # 14
        "@other\n"  # 15
        "def handler(blob):\n"  # 16
        "    return pickle.loads(blob)\n"  # 17
        "for i in range(3):\n"  # 18
        "    pass\n"  # 19
        "else:\n"  # 20
        "    eval(i)\n"  # 21
    )
    # Line 12 binds pickle.load at the module's top level and nothing here uses it: an export.
    assert _found(text) == [
        (12, "python-pickle"),
        (14, "python-eval"),
        (17, "python-pickle"),
        (21, "python-eval"),
    ]


def test_a_match_statement_is_kept_whole(enter_every_block: None) -> None:
    text = "match command:\n    case 'run':\n        eval(code)\n    case _:\n        pass\n"
    assert _kept(text) == [1, 2, 3, 4, 5]
    assert _found(text) == [(3, "python-eval")]


def test_a_file_indented_with_tabs_is_selected_by_top_level_statements(enter_every_block: None) -> None:
    text = "def f(code):\n\tx = 1\n\treturn eval(code)\ndef g():\n\tpass\n"
    assert _kept(text) == [1, 2, 3]
    assert _found(text) == [(3, "python-eval")]
    feed = "def f(code):\n    x = 1\n\f    return eval(code)\n"
    assert _kept(feed) == [1, 2, 3]
    assert _found(feed) == [(3, "python-eval")]


def test_windows_line_endings_are_read_like_unix_ones(enter_every_block: None) -> None:
    text = "import os\r\ndef f(cmd):\r\n    x = 1\r\n    os.system(cmd)\r\n"
    assert _kept(text) == [1, 2, 4]
    assert _found(text) == [(4, "python-os-system")]


def test_a_file_starting_with_a_blank_line_or_a_statement() -> None:
    assert _kept("\neval(x)\n") == [2]
    assert _kept("eval(x)\n") == [1]
    assert _selected("") == ""


# --- shadowing: the module's own eval is not the builtin ------------------------------------------


@pytest.mark.parametrize(
    "binding",
    [
        "def eval(x):\n    return x",
        "class exec:\n    pass",
        "eval = print",
        "if True:\n    eval = print",
        "for eval in []:\n    pass",
        "with f() as (a, __import__):\n    pass",
        "try:\n    pass\nexcept E:\n    eval = print",
    ],
)
def test_a_top_level_binding_of_a_builtin_shadows_it_everywhere(binding: str) -> None:
    text = f"{binding}\ndef run(a):\n    return eval(a), exec(a), __import__(a)\n"
    assert _found(text) != []  # the other two builtins still count
    assert len(_found(text)) == 2


# --- template strings: their fields are code -----------------------------------------------------


def test_a_call_in_a_template_field_is_found() -> None:
    text = "import os\nmsg = f'{os.system(cmd)!r:>10} {x:#x} {id(y):#x}' + rf'{eval(z)}' + Fr'{a}'\n"
    assert _selected(text) is not None
    assert _found(text) == [(2, "python-eval"), (2, "python-os-system")]


@pytest.mark.parametrize(
    "template",
    [
        "f'''{\nx}'''",  # a line break in a field
        "f'{x:#{w}x}'",  # a `#` after a nested field
        "f'{x:\"^10}'",  # a quote in a format spec
    ],
)
def test_a_template_string_the_selection_cannot_place_makes_it_decline(template: str) -> None:
    text = f"msg = {template}\neval(y)\n"
    assert _selected(text) is None
    assert _found(text) == [(text.count("\n"), "python-eval")]


@pytest.mark.parametrize(
    "template",
    [
        'f"{d["k"]}"',  # the same quote inside a field
        'f"{x  # a comment\n}"',  # a comment, then the field goes on
        "f'{'\\n'.join(x)}'",  # a backslash
    ],
)
def test_a_template_string_python_3_12_reads_differently_makes_it_decline(template: str) -> None:
    """Python 3.12 reads these as one string whose fields hold code, 3.11 as an error: either
    way the selection declines, and the whole file decides."""
    text = f"msg = {template} + eval(y)\nexec(z)\n"
    assert _selected(text) is None
    found = _both(_change({"m.py": text}))
    assert found and found[-1].line == text.count("\n")


def test_a_name_ending_like_a_prefix_before_a_string_is_read_safely() -> None:
    text = "x = 1 if'a' else 2\ny = eval(z)\n"
    assert _selected(text) is not None
    assert _found(text) == [(2, "python-eval")]


# --- names that lead to a dangerous call, learnt from the selection's syntax tree ----------------

_PADDING = "".join(f"def unrelated_{i}(value):\n    return value + {i}\n" for i in range(40))


def _placements(text: str) -> list[str]:
    """`text` as it is, and with unrelated statements between each two of its top-level statements
    (a line at column 0, but a decorator's definition), so that a binding is far from its use and
    every other statement is blanked."""
    pieces: list[list[str]] = []
    for line in text.split("\n")[:-1]:
        if pieces and (line[:1] in ("", " ") or pieces[-1][-1].startswith("@")):
            pieces[-1].append(line)
        else:
            pieces.append([line])
    return [text, _PADDING.join("".join(f"{line}\n" for line in piece) for piece in pieces) + _PADDING]


def _lines_of(text: str, found: list[tuple[int | None, str]]) -> list[tuple[str, str]]:
    lines = text.split("\n")
    return [(lines[(n or 1) - 1], rule) for n, rule in found]


@pytest.mark.parametrize("every_block", [False, True])
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "from os import system as run\nrun(cmd)\neval(x)\n",
            [(2, "python-os-system"), (3, "python-eval")],
            id="renamed-import",
        ),
        pytest.param(
            "from pickle import (\n    loads  # the one\n    as lp)\nlp(b)\n",
            [(4, "python-pickle")],
            id="renamed-in-brackets",
        ),
        pytest.param(
            "import os\ndef helper():\n    pass\nrun = os.system\nclass Tool:\n    def go(self, cmd):\n        run(cmd)\n",
            [(7, "python-os-system")],
            id="alias-in-another-statement",
        ),
        pytest.param(
            # A class attribute is handed on (read as an attribute, which is not followed).
            "import os\nclass C:\n    r = os.system\ndef f(c):\n    r(c)\n",
            [(3, "python-os-system"), (5, "python-os-system")],
            id="alias-in-a-class-body",
        ),
        pytest.param(
            "import subprocess\ndef setup():\n    global go\n    go = subprocess.getoutput\ndef f(c):\n    return go(c)\n",
            [(6, "python-subprocess-shell")],
            id="alias-in-a-function",
        ),
        pytest.param(
            "e = eval\n@decorate(e(spec))\ndef f():\n    pass\n",
            [(2, "python-eval")],
            id="alias-called-in-a-decorator",
        ),
        pytest.param(
            "e = exec\ndef f(x=e(code)):\n    pass\n", [(2, "python-exec")], id="alias-called-in-a-default"
        ),
        pytest.param("import os\nm = os\nm.system(c)\n", [(3, "python-os-system")], id="module-named-bare"),
        pytest.param(
            "import os as o\nx = o\nx.system(c)\n", [(3, "python-os-system")], id="module-renamed-then-bare"
        ),
        pytest.param(
            "import os\na, m = 1, os\nm.popen(c)\n", [(3, "python-os-system")], id="module-in-a-tuple"
        ),
        pytest.param(
            "import sys\nm = sys.modules['os']\nm.system(c)\n", [(3, "python-os-system")], id="sys-modules"
        ),
        pytest.param(
            "import sys\nmods = sys.modules\nmods['os'].system(c)\n",
            [(3, "python-os-system")],
            id="sys-modules-handed-on",
        ),
        pytest.param(
            "o = __import__('os')\nrun = o.system\nrun(c)\n", [(3, "python-os-system")], id="importer-result"
        ),
        pytest.param(
            "from importlib import import_module as im\nim('subprocess').getoutput(c)\n",
            [(2, "python-subprocess-shell")],
            id="import-module-renamed",
        ),
        pytest.param(
            "import builtins\ng = getattr\nf = g(builtins, 'ev' + 'al')\nf(x)\n",
            [(4, "python-eval")],
            id="getattr-renamed",
        ),
        pytest.param(
            "from builtins import __dict__ as d\nd['eval'](x)\n",
            [(2, "python-eval")],
            id="builtins-dict-imported",
        ),
        pytest.param("__builtins__['exec'](x)\n", [(1, "python-exec")], id="builtins-module-dict"),
        pytest.param(
            "import builtins\nd = builtins.__dict__\nd['eval'](x)\n",
            [(3, "python-eval")],
            id="builtins-dict-assigned",
        ),
        pytest.param(
            "import os\nns = vars(os)\nns.get('system')(c)\n",
            [(3, "python-os-system")],
            id="module-vars-assigned",
        ),
        pytest.param(
            "from os import system as run\nrun = print\nrun(c)\n",
            [(3, "python-os-system")],
            id="rebound-after-import",
        ),
    ],
)
def test_a_call_reached_through_a_name_bound_elsewhere_is_found_by_the_selection(
    text: str, expected: list[tuple[int, str]], every_block: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import under another name, an alias assigned in another statement (a class body, a
    function, a tuple), a module named bare, sys.modules, an importer's or getattr's result, a
    builtin's dict: the selection keeps what binds the name and what uses it, learnt a round at a
    time from its own syntax tree, and finds what the whole file does (`_found` compares)."""
    if every_block:
        monkeypatch.setattr(pyselect, "_WHOLE_BELOW", 0)
    want = _lines_of(text, expected)
    for placed in _placements(text):
        assert _lines_of(placed, _found(placed)) == want
    assert _selected(_placements(text)[1]) is not None


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("(e := eval)(x)\ne(y)\n", id="walrus"),
        pytest.param("globals()['e'] = eval\ne(x)\n", id="globals-write"),
        pytest.param("exec('e = eval')\ne(x)\n", id="exec-string"),
        pytest.param("import os\nfor r in [os.system]:\n    r(c)\n", id="loop-target"),
        pytest.param(
            "import os\ndef getattr(a, b):\n    return b\ngetattr(os, 'system')(c)\n", id="shadowed-getattr"
        ),
        pytest.param("def f():\n    a2(x)\na2 = a1\na1 = eval\n", id="used-before-bound"),
        pytest.param("import os\nx = 'run = os.system'\nrun(c)\n", id="string-mentions-only"),
    ],
)
def test_the_selection_follows_names_exactly_as_far_as_the_whole_file_does(text: str) -> None:
    """Where the syntax tree of the whole file does not follow a name (a write through globals(),
    a binding in an exec string or a loop, a walrus read later, a shadowed getattr, a use before
    the binding), the selection finds what it finds: nothing is lost, nothing is added."""
    for placed in _placements(text):
        _found(placed)
    assert _selected(_placements(text)[1]) is not None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("import os as _os\n_os.system(c)\n", [(2, "python-os-system")], id="module-as"),
        pytest.param(
            "from subprocess import Popen as P\nP(c, shell=True)\n",
            [(2, "python-subprocess-shell")],
            id="call-as",
        ),
        pytest.param(
            "import sys, types\ntypes.FunctionType(code, {})\n",
            [(2, "python-code-object")],
            id="common-name",
        ),
        pytest.param(
            "from pickle import (\n    loads as lp,\n    dumps,\n    )\nlp(data)\n",
            [(5, "python-pickle")],
            id="bracketed",
        ),
    ],
)
def test_a_name_an_import_binds_is_known_before_the_first_parse(
    text: str, expected: list[tuple[int, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The names imports bind under another name, or a module named like a common variable, are
    read off the code before the first parse: one round learns nothing new."""
    monkeypatch.setattr(pyselect, "_ROUNDS", 1)
    for placed in _placements(text):
        assert _selected(placed) is not None
        assert _lines_of(placed, _found(placed)) == _lines_of(text, expected)


@pytest.mark.parametrize(
    "text",
    [
        # Read off the code as imports, yet binding nothing that leads anywhere (or something else).
        "with run as r:\n    r(c)\nimport os\nos.system(c)\n",
        "from x import path as p\np(c)\nimport os as o\no = print\no(c)\n",
        "import types\ntypes = {}\ntypes.get(c)\n",
        "import os as S\nx = 'eval'\nS.system(c)\n",  # `S` also stands for every string in the code
        "s = 'import os as o'\no.system(c)\neval(x)\n",  # in a string: no import at all
    ],
)
def test_names_read_off_imports_only_keep_more_statements(text: str) -> None:
    """A name taken for an import's (rightly or not) keeps what names it: the findings are the
    whole file's, whatever it turns out to stand for."""
    for placed in _placements(text):
        _found(placed)
        assert _selected(placed) is not None


def test_more_names_read_off_imports_than_the_selection_looks_for_are_not_taken() -> None:
    many = pyselect._MOST_NAMES + 1
    imports = "".join(f"from os import system as r{i}\n" for i in range(many))
    assert pyselect._imported_names(f"\n{imports}", frozenset()) == frozenset()
    assert pyselect._imported_names("\nimport os as o\n", frozenset()) == {"o"}
    text = imports + f"r{many - 1}(c)\n" + _PADDING
    assert _selected(text) is None  # the rounds learn them all, one too many
    assert len(_found(text)) == 101  # (a finding per export, capped, then the count)


_SPREADS = [
    "import subprocess\nkw = {'shell': True}\nsubprocess.run(cmd, **kw)\n",
    "import subprocess\nkw = {'shell': False}\nsubprocess.run(cmd, **kw)\n",
    "import subprocess\nopts = dict(shell=1)\nsubprocess.Popen(cmd, **opts)\n",
    "import subprocess\ndef f(cmd):\n    kw = {}\n    if x:\n        kw['shell'] = True\n    return subprocess.run(cmd, **kw)\n",
    "import subprocess\ndef f(cmd, flag):\n    a, o = 1, {'check': True, 'shell': flag}\n    subprocess.check_output(cmd, **o)\n",
    "import subprocess as sp\nkw: dict = dict(text=True, shell=True)\nsp.call(cmd, **kw)\n",
    "import subprocess\nif posix:\n    kw = {'shell': False}\nelse:\n    kw = {'shell': True}\nsubprocess.run(cmd, **kw)\n",
    "import subprocess\nclass T:\n    kw = {'shell': True}\n    subprocess.run(cmd, **kw)\n",
    "import subprocess\nkw = {'shell': True}\ndef f(cmd, **kw):\n    subprocess.run(cmd, **kw)\n",
    "import subprocess\nkw = {'shell': True}\nrun = lambda cmd, kw: subprocess.run(cmd, **kw)\n",
    "import subprocess\nkw = {'shell': True}\nsubprocess.run(cmd, **kw, **other)\n",
    # What `dict` is decides whether a call of it is a mapping: bound or imported by the module.
    "import subprocess\ndict = lambda **k: {}\nkw = dict(shell=True)\nsubprocess.run(cmd, **kw)\n",
    "import subprocess\nfrom safe import dict\nkw = dict(shell=True)\nsubprocess.run(cmd, **kw)\n",
    "import subprocess\nd[dict(x)] = 1\nkw = dict(shell=True)\nsubprocess.run(cmd, **kw)\n",
    "import subprocess\ndef dict(**k):\n    return k\nkw = dict(shell=True)\nsubprocess.run(cmd, **kw)\n",
    # Where a statement naming the name does not parse (the file does not), each statement alone.
    "import subprocess\nkw = {'shell': True}\nsubprocess.run(cmd, **kw)\nprint kw\n",
    # A spread and an inspecting builtin: parsed whole.
    "import subprocess\nkw = {'shell': True}\nsubprocess.run(cmd, **kw)\nprint(eval)\n",
]


@pytest.mark.parametrize("text", _SPREADS)
def test_a_spread_name_is_judged_on_the_selection_with_what_assigns_it(text: str) -> None:
    """A subprocess call spreading a name is judged by the mappings its scope assigns the name:
    the selection made again with that name and `dict` keeps every statement that assigns it (or
    its key) and binds `dict`, and finds what the whole file does."""
    for placed in _placements(text):
        _found(placed)


def test_a_spread_name_does_not_make_the_whole_file_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    monkeypatch.setattr(dangerous, "_parse", lambda source: parsed.append(source) or ast.parse(source))
    assert _found(_placements(_SPREADS[0])[1]) == [(3 + 2 * _PADDING.count("\n"), "python-subprocess-shell")]
    assert _found(_placements(_SPREADS[1])[1]) == []
    assert len(parsed) == 4  # `_both`'s own: whether it parses, and the whole file's findings
    _found(_placements(_SPREADS[-1])[1])
    assert len(parsed) == 7  # an inspecting builtin as well: parsed whole


def test_more_names_than_the_selection_looks_for_are_parsed_whole() -> None:
    many = pyselect._MOST_NAMES
    names = [f"a{i}" for i in range(many)]
    # Each name is used (compared), so none is an export; the last is called.
    bindings = "".join(f"{name} = eval\n" for name in names) + f"assert {' is '.join(names)}\n"
    text = bindings + f"a{many - 1}(x)\n" + _PADDING * 10
    assert _selected(text) is None
    assert _found(text) == [(many + 2, "python-eval")]
    fewer = _placements("".join(f"a{i} = eval\n" for i in range(3)) + "a2(x)\n")[1]
    assert _selected(fewer) is not None


def test_a_selection_of_most_of_the_file_is_not_made_again() -> None:
    text = "a0 = eval\na1 = a0\n" + "eval(x)\n" * 20 + "a1(y)\n"
    assert _selected(text) is None
    assert _found(text)[-1] == (23, "python-eval")


def test_a_chain_of_names_longer_than_the_rounds_is_parsed_whole() -> None:
    rounds = pyselect._ROUNDS
    chain = "a0 = eval\n" + "".join(f"a{i + 1} = a{i}\n" for i in range(rounds + 1))
    text = f"{chain}a{rounds + 1}(x)\n" + _PADDING
    assert _selected(text) is None
    assert _found(text) == [(rounds + 3, "python-eval")]
    short = _placements("a0 = eval\na1 = a0\na1(x)\n")[1]
    assert _selected(short) is not None
    assert _lines_of(short, _found(short)) == [("a1(x)", "python-eval")]


# --- when the selection declines ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ｅｖａｌ(x)\neval(y)\n", [(1, "python-eval"), (2, "python-eval")]),  # NFKC: ｅｖａｌ is eval
    ],
)
def test_what_the_selection_cannot_read_is_parsed_whole(text: str, expected: list[tuple[int, str]]) -> None:
    assert _selected(text) is None
    assert _found(text) == expected


def test_a_lone_carriage_return_makes_it_decline() -> None:
    """Python breaks a line at a lone carriage return, the diff does not: the selection declines,
    and the rule reads both of Python's lines, each call placed on the diff line holding it."""
    head = "eval(a)\reval(b)\n"
    assert _selected(head) is None
    change = change_with_texts(_diff({"m.py": "eval(a) eval(b)\n"}), {"m.py": FileTexts(None, head)})
    assert [(v.line, v.id) for v in _both(change)] == [(1, "python-eval"), (1, "python-eval")]


def test_an_unterminated_template_string_makes_it_decline() -> None:
    text = "eval(x)\nmsg = f'abc\n"
    assert _selected(text) is None
    assert _found(text) == [(1, "python-eval")]
    assert all(v.message.endswith("does not parse.)") for v in _both(_change({"m.py": text})))


# --- files that do not parse -------------------------------------------------------------------


def test_a_selection_that_does_not_parse_falls_back_to_each_statement_alone() -> None:
    """A statement that does not parse alone (Python 2's print) still has its calls read."""
    text = "import os\nprint 'python 2', eval(x)\nos.system(cmd)\n"
    assert _selected(text) is not None
    findings = _both(_change({"m.py": text}))
    assert [(v.line, v.id) for v in findings] == [(2, "python-eval"), (3, "python-os-system")]
    assert all(ALONE in v.message for v in findings)


def test_a_file_that_does_not_parse_outside_the_selection_is_judged_on_the_selection() -> None:
    text = "import os\nos.system(cmd)\ndef old():\n    print 'python 2'\n"
    source = _selected(text)
    assert source is not None and dangerous._parse(source) is not None
    findings = _both(_change({"m.py": text}))
    assert [(v.line, v.id) for v in findings] == [(2, "python-os-system")]
    assert all(ALONE not in v.message for v in findings)  # its statement's syntax tree says so
    assert all(ALONE in v.message for v in WHOLE.scan(_change({"m.py": text}), manifest()))


def test_a_file_that_does_not_parse_with_nothing_found_either_way() -> None:
    text = "x = 'eval(y)'\nprint 'python 2'\n"
    assert _found(text) == []


def test_a_call_in_a_string_of_a_file_that_does_not_parse_stays_quiet() -> None:
    """The added line alone reads as a call, but the file's statements say it sits in a string:
    both the selection and the statements read alone from the new text say so."""
    text = "doc = '''\neval(x)\n'''\nprint 'python 2'\n"
    change = _change({"m.py": text}, {"m.py": {2}})
    assert _both(change) == []
    assert list(WHOLE.scan(change, manifest())) == []


def test_a_module_too_deep_for_ast_parse_is_judged_on_its_selection() -> None:
    deep = "x = " + "-" * 100_000 + "a"
    assert dangerous._parse(deep) is None
    findings = _both(_change({"m.py": f"import os\nos.system(cmd)\n{deep}\n"}))
    assert [(v.line, v.id, ALONE in v.message) for v in findings] == [(2, "python-os-system", False)]


def test_no_head_text_means_each_line_alone() -> None:
    change = change_from_diff(_diff({"m.py": "import os\nos.system(cmd)\n"}, {"m.py": {2}}))
    findings = _both(change)
    assert [(v.line, v.id) for v in findings] == [(2, "python-os-system")]
    assert ALONE in findings[0].message


@pytest.mark.parametrize(
    "binding",
    [
        "print = log",
        "def print(f):\n    return f(input())",
        "class callable:\n    pass",
        "d[str(x)] = 1",  # a name in a target counts as bound (`_module_bindings`)
        "for hasattr in handlers:\n    pass",
    ],
)
def test_an_inspecting_builtin_the_module_rebinds_hands_on_what_it_is_given(binding: str) -> None:
    """`print(eval)` calls nothing, but a module that binds `print` itself may call what it gets:
    the statement binding it names none of the selection's words, yet decides the finding."""
    name = next(n for n in ("print", "callable", "str", "hasattr") if n in binding)
    for call in (f"{name}(eval, os.system)", f"globals()[{name!r}](eval, os.system)"):
        text = f"import os\n{binding}\n{call}\n"
        line = text.count("\n")
        assert _found(text) == [(line, "python-eval"), (line, "python-os-system")], call


def test_an_inspecting_builtin_left_alone_hands_on_nothing() -> None:
    assert _found("import os\nprint(eval, os.system)\ncallable(exec)\n") == []

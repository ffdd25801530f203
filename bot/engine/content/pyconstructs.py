"""Dangerous constructs in Python, decided on the syntax tree.

Calls are resolved as Python resolves them: identifiers are NFKC-normalized by the parser (`ｅｖａｌ`
is `eval`), parentheses and backslash continuations are not in the tree, and a function is followed
through the module's imports (`import os as o`, `from pickle import loads as lp`), through names
assigned it (`e = eval`, `run = os.system`, `(e := eval)(x)`, wherever the assignment is), through
attributes and containers given it (`self.m = os`, `mods = {"o": os}`: pystored.py), through
`getattr(module, "name")` (with the name a string constant, also one built by `+`), `builtins` and
`__builtins__`, `sys.modules["os"]`, and the modules `__import__("os")` and
`importlib.import_module("os")` return. A name the module defines itself (`def eval`) is not the
builtin. Strings and comments that merely mention `eval` are not calls, so they never match.

A dangerous function handed on as a value is reported where it is handed on, since whatever gets it
can call it: an argument (`map(eval, xs)`, `Thread(target=os.system)`, `partial(subprocess.run,
shell=True)`), an item of a container, a default, a return value, a name assigned it in a
class body, an attribute (all also followed to the calls made through them: a change may add only
the call). Not: the callee of a call (judged as
the call), a name a module or function assigns it (followed to its calls like any alias), a
comparison's operand, a bare expression statement, an argument of a builtin that only inspects it
(`print(eval)`, `callable(os.system)`).
"""

from __future__ import annotations

import ast
import builtins
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from enum import Enum, StrEnum
from functools import partial
from typing import TypeGuard

from bot.engine.content.pystored import (
    ANY_ATTRIBUTE,
    CHILDLESS,
    NO_CALLS,
    STORING,
    Defaulted,
    Kept,
    Looped,
    Parameters,
    Passed,
    Returned,
    assignments,
    fixed_key,
    items_of,
    keyword_arguments,
    made_in,
    parameters,
    passed,
    positional_arguments,
    stores,
)
from bot.engine.references.signature import dotted_name as spelled


class PyConstruct(StrEnum):
    EVAL = "python-eval"
    EXEC = "python-exec"
    OS_SYSTEM = "python-os-system"
    SHELL = "python-subprocess-shell"
    PICKLE = "python-pickle"
    YAML = "python-yaml-load"
    IMPORT = "python-import-variable"
    RUN_CODE = "python-run-code"
    CODE_OBJECT = "python-code-object"
    NATIVE = "python-native-code"
    ATTRIBUTE = "python-attribute-variable"


@dataclass(frozen=True, slots=True)
class Found:
    construct: PyConstruct
    call: str
    line: int
    end_line: int
    handed_on: bool = False  # the function handed on as a value, not called here
    exported: str = ""  # the module-level name it is bound to and never used by, when that is how


_BUILTINS = frozenset(dir(builtins))
_SUBPROCESS_SHELL_ARG = frozenset(
    f"subprocess.{f}" for f in ("Popen", "call", "check_call", "check_output", "run")
)
# Calls that run a program with arguments, which run a command through a shell when the program is
# one (`["sh", "-c", cmd]`, `os.execl("/bin/sh", "sh", "-c", cmd)`).
_EXEC_FAMILY = frozenset(
    {
        *(f"os.exec{s}" for s in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")),
        *(f"os.spawn{s}" for s in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")),
        "os.posix_spawn",
        "os.posix_spawnp",
        "pty.spawn",
        "asyncio.create_subprocess_exec",
    }
)
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "csh", "tcsh", "fish", "mksh"})
_ALWAYS_SHELL = frozenset(
    {"subprocess.getoutput", "subprocess.getstatusoutput", "asyncio.create_subprocess_shell"}
)
# Loaders of pickles: pickle's, those of the modules that extend it, and shelve's (a pickle per key).
_PICKLE = frozenset(
    {
        *(
            f"{m}.{f}"
            for m in ("pickle", "cPickle", "_pickle", "dill", "cloudpickle")
            for f in ("loads", "load", "Unpickler")
        ),
        *(f"shelve.{f}" for f in ("open", "Shelf", "DbfilenameShelf", "BsdDbShelf")),
        "joblib.load",
        "pandas.read_pickle",
    }
)
# Readers that unpickle only when a keyword says they may (numpy's `allow_pickle`, at this position),
# and those that do unless it is literally True (torch's `weights_only`: before PyTorch 2.6 they do).
_PICKLE_IF = {"numpy.load": ("allow_pickle", 2)}
_PICKLE_UNLESS = {"torch.load": "weights_only"}
# Calls judged by a keyword a `**name` can give them, from the mappings its scope fills.
_KEYWORDS_SPREAD = frozenset({*_SUBPROCESS_SHELL_ARG, *_PICKLE_IF, *_PICKLE_UNLESS})
_YAML_LOADS = frozenset({"yaml.load", "yaml.load_all"})
_YAML_UNSAFE = frozenset({"yaml.unsafe_load", "yaml.unsafe_load_all"})
_SAFE_LOADERS = frozenset({"SafeLoader", "CSafeLoader", "BaseLoader", "CBaseLoader"})
# A native library, however it is loaded (`CDLL(path)`, `cdll.LoadLibrary(path)`, `cdll.libc`,
# `cdll["libc.so.6"]`, a subclass of CDLL): its C functions are its attributes.
LIBRARY = "ctypes.CDLL"
_LIBRARIES = (LIBRARY, "ctypes.pythonapi")  # and the library of Python's own C API
_LIBRARY_CLASSES = frozenset(f"ctypes.{c}" for c in ("CDLL", "PyDLL", "WinDLL", "OleDLL"))
# What loads a library by the name of an attribute or a key (`cdll.libc`, `cdll[name]`).
LOADERS = frozenset({*(f"ctypes.{c}" for c in ("cdll", "pydll", "windll", "oledll")), "ctypes.LibraryLoader"})
_LIBRARY_MAKERS = _LIBRARY_CLASSES | {f"{loader}.LoadLibrary" for loader in LOADERS}
_LOADER_WORDS = frozenset(loader.rsplit(".", 1)[-1] for loader in LOADERS)
# A library's C functions that run a program, or find a function by its name (`dlsym`).
NATIVE_RUNS = frozenset(
    f"{LIBRARY}.{f}"
    for f in (
        *(f"exec{s}" for s in ("l", "le", "lp", "v", "ve", "vp", "vpe")),
        *("fexecve", "posix_spawn", "posix_spawnp", "dlsym"),
    )
)
# Loaders of a file's source or bytecode, whose methods that load run the file they were built on.
_FILE_LOADERS = frozenset(f"importlib.machinery.{c}FileLoader" for c in ("Source", "Sourceless"))
_SIMPLE = {
    "eval": PyConstruct.EVAL,
    "exec": PyConstruct.EXEC,
    "os.system": PyConstruct.OS_SYSTEM,
    "posix.system": PyConstruct.OS_SYSTEM,
    "nt.system": PyConstruct.OS_SYSTEM,
    "os.popen": PyConstruct.OS_SYSTEM,
    # An interactive interpreter runs the source it is given, or reads it from standard input.
    "code.interact": PyConstruct.RUN_CODE,
    **{
        f"code.{interpreter}.{method}": PyConstruct.RUN_CODE
        for interpreter in ("InteractiveInterpreter", "InteractiveConsole")
        for method in ("runsource", "runcode")
    },
    "code.InteractiveConsole.push": PyConstruct.RUN_CODE,
    **{
        f"{loader}.{m}": PyConstruct.RUN_CODE
        for loader in _FILE_LOADERS
        for m in ("load_module", "exec_module")
    },
    "code.InteractiveConsole.interact": PyConstruct.RUN_CODE,
    # Code objects from bytes, and functions from code objects, which run whatever the bytes hold.
    "marshal.loads": PyConstruct.CODE_OBJECT,
    "marshal.load": PyConstruct.CODE_OBJECT,
    "types.CodeType": PyConstruct.CODE_OBJECT,
    "types.FunctionType": PyConstruct.CODE_OBJECT,
    "types.LambdaType": PyConstruct.CODE_OBJECT,
    # C functions a native library holds that run a command through the shell, and those that run a
    # program or find a function by its name: os and subprocess without them.
    **{f"{LIBRARY}.{f}": PyConstruct.OS_SYSTEM for f in ("system", "_wsystem", "popen", "_popen", "_wpopen")},
    **dict.fromkeys(NATIVE_RUNS, PyConstruct.NATIVE),
    # Python's C API, which ctypes reaches as `pythonapi` or any library of the process: code it runs.
    **{
        f"{library}.{f}": PyConstruct.RUN_CODE
        for library in _LIBRARIES
        for f in (
            *(
                f"PyRun_{s}"
                for s in ("SimpleString", "String", "SimpleFile", "SimpleFileEx", "File", "FileEx")
            ),
            *(f"PyRun_{s}Flags" for s in ("SimpleString", "String", "SimpleFileEx", "File", "FileEx")),
            *(f"Py_CompileString{s}" for s in ("", "Flags", "ExFlags", "Object")),
            *("PyEval_EvalCode", "PyEval_EvalCodeEx"),
        )
    },
}
# The functions a library's attribute can be (its C functions of _SIMPLE), by their last word.
_LIBRARY_FUNCTIONS = frozenset(
    name.rsplit(".", 1)[-1] for name in _SIMPLE if name.rsplit(".", 1)[0] in _LIBRARIES
)
# Methods of the debuggers' and profilers' classes that run a code string (`Profile().run(cmd)`).
_CODE_METHODS = {"run": "cmd", "runctx": "cmd", "runeval": "expr"}
_CODE_RUNNERS = {
    "bdb.Bdb": ("run", "runeval", "runctx"),
    "pdb.Pdb": ("run", "runeval", "runctx"),
    "cProfile.Profile": ("run", "runctx"),
    "profile.Profile": ("run", "runctx"),
    "trace.Trace": ("run", "runctx"),
}
# Classes whose instances' methods are dangerous calls: an instance stands for its class
# (`code.InteractiveConsole().push` is `code.InteractiveConsole.push`), and so does a subclass the
# module defines (`class C(code.InteractiveConsole)`: `C().push`), a library class's too.
_INSTANCES = frozenset(
    {
        "code.InteractiveInterpreter",
        "code.InteractiveConsole",
        "ctypes.LibraryLoader",
        *_CODE_RUNNERS,
        *_FILE_LOADERS,
    }
)
_SUBCLASSED = _INSTANCES | _LIBRARY_CLASSES
# Calls that import, run or load what an argument names (at its position, or passed as its keyword):
# dangerous when that is computed at run time, not a string fixed in the source.
_Target = tuple[int, str]
_FIRST_NAME: tuple[_Target, ...] = ((0, "name"),)
# timeit's code strings (stmt, setup) may be callables instead, as benchmarks mostly pass them.
_TIMEIT = frozenset({"timeit.timeit", "timeit.repeat", "timeit.Timer"})
_NAMED_TARGET: dict[str, tuple[tuple[_Target, ...], PyConstruct]] = {
    "__import__": (_FIRST_NAME, PyConstruct.IMPORT),
    "importlib.__import__": (_FIRST_NAME, PyConstruct.IMPORT),
    "runpy.run_path": (((0, "path_name"),), PyConstruct.RUN_CODE),
    "runpy.run_module": (((0, "mod_name"),), PyConstruct.RUN_CODE),
    **{f"ctypes.{c}": (_FIRST_NAME, PyConstruct.NATIVE) for c in ("CDLL", "PyDLL", "WinDLL", "OleDLL")},
    **{
        f"ctypes.{loader}.LoadLibrary": (_FIRST_NAME, PyConstruct.NATIVE)
        for loader in ("cdll", "pydll", "windll", "oledll", "LibraryLoader")
    },
    "_ctypes.dlopen": (_FIRST_NAME, PyConstruct.NATIVE),
    "_ctypes.LoadLibrary": (_FIRST_NAME, PyConstruct.NATIVE),
    f"{LIBRARY}.dlopen": (_FIRST_NAME, PyConstruct.NATIVE),
    # Code strings the standard library runs.
    **dict.fromkeys(_TIMEIT, (((0, "stmt"), (1, "setup")), PyConstruct.RUN_CODE)),
    **{
        f"{module}.{function}": (((0, argument),), PyConstruct.RUN_CODE)
        for module in ("pdb", "cProfile", "profile")
        for function, argument in (("run", "statement"), ("runctx", "statement"), ("runeval", "expression"))
        if module == "pdb" or function != "runeval"
    },
    **{
        f"{cls}.{method}": (((0, _CODE_METHODS[method]),), PyConstruct.RUN_CODE)
        for cls, methods in _CODE_RUNNERS.items()
        for method in methods
    },
    # Modules loaded from a file, whose code runs (a native one's, for extension modules). A loader of
    # source or bytecode is judged when it loads (_FILE_LOADERS): tools build one to read or compile
    # a file (py_compile), which runs nothing.
    "importlib.util.spec_from_file_location": (((1, "location"),), PyConstruct.RUN_CODE),
    "importlib.machinery.ExtensionFileLoader": (((1, "path"),), PyConstruct.NATIVE),
    "zipimport.zipimporter": (((0, "path"),), PyConstruct.RUN_CODE),
    "imp.load_source": (((1, "pathname"),), PyConstruct.RUN_CODE),
    "imp.load_compiled": (((1, "pathname"),), PyConstruct.RUN_CODE),
    "imp.load_dynamic": (((1, "path"),), PyConstruct.NATIVE),
}
# The calls of _NAMED_TARGET given Python code as a string.
CODE_STRINGS = frozenset(
    {
        *_TIMEIT,
        *(f"{m}.{f}" for m in ("pdb", "cProfile", "profile") for f in ("run", "runctx", "runeval")),
        *(f"{cls}.{method}" for cls, methods in _CODE_RUNNERS.items() for method in methods),
    }
)
# Classes among the dangerous calls: handed on as a value, one is mostly a type to check or to
# subclass (`isinstance(f, (types.FunctionType, …))`, `f: types.CodeType`), so only a call is judged.
_CLASSES = frozenset(
    {
        "types.CodeType",
        "types.FunctionType",
        "types.LambdaType",
        *(f"shelve.{c}" for c in ("Shelf", "DbfilenameShelf", "BsdDbShelf")),
        *(f"ctypes.{c}" for c in ("CDLL", "PyDLL", "WinDLL", "OleDLL")),
        "timeit.Timer",
        "zipimport.zipimporter",
        "importlib.machinery.ExtensionFileLoader",
    }
)
# What a function handed on as a value is, whoever calls it: the functions whose danger does not
# depend on their arguments (the others are judged by what the call carrying them passes).
_HANDED_ON = {
    name: construct
    for name, construct in {
        **_SIMPLE,
        **dict.fromkeys(_ALWAYS_SHELL, PyConstruct.SHELL),
        **dict.fromkeys(_PICKLE, PyConstruct.PICKLE),
        **dict.fromkeys(_YAML_UNSAFE, PyConstruct.YAML),
        **{name: construct for name, (_, construct) in _NAMED_TARGET.items()},
    }.items()
    if name not in _CLASSES
}
# Builtins that only look at what they are given: handing them a function calls nothing.
_INSPECTORS = frozenset(
    {"print", "repr", "str", "ascii", "id", "type", "callable", "isinstance", "issubclass", "hash"}
    | {"getattr", "hasattr"}  # what getattr returns is resolved itself
)
# Names whose import decides a verdict other than by leading to a dangerous call: an inspecting
# builtin rebound hands on what it is given (`from log import print`), and a loader is safe by its
# name (`from yaml import SafeLoader as L`, `from x import Unsafe as SafeLoader`).
# `partial`: a call of it prepares a call of its first argument (`Resolver._partial`).
IMPORT_DECIDES = _INSPECTORS | _SAFE_LOADERS | {"partial", "functools"}
# Every name `_judge` can find a construct for: a call whose function resolves to none of these is
# never reported (pyselect.py relies on this to leave the rest of a file unparsed).
DANGEROUS_CALLS = frozenset(
    {
        *_SIMPLE,
        *_SUBPROCESS_SHELL_ARG,
        *_EXEC_FAMILY,
        *_ALWAYS_SHELL,
        *_PICKLE,
        *_PICKLE_IF,
        *_PICKLE_UNLESS,
        *_YAML_LOADS,
        *_YAML_UNSAFE,
        *_NAMED_TARGET,
    }
)
# Modules that hold a dangerous function: an attribute of one read by a name computed at run time
# (`getattr(os, name)`) may be that function, however the name is spelled or built. Not numpy's or
# torch's: their readers are dangerous only as told (`allow_pickle=True`), and their attributes are
# read by computed names all the time for what is no function at all (`getattr(torch, dtype)`).
ATTRIBUTE_HOLDERS = frozenset(
    {name.rsplit(".", 1)[0] for name in DANGEROUS_CALLS if "." in name} - {"numpy", "torch"} | {"builtins"}
)


def held_example(holder: str) -> str:
    """A dangerous function `holder` holds, to name in a report (`os.popen`, `eval`)."""
    if holder == "builtins":
        return "eval"
    held = sorted(name for name in DANGEROUS_CALLS if name.rsplit(".", 1)[0] == holder)
    return next((name for name in held if name in _SIMPLE), held[0])


# operator's functions that read an attribute or call a method by its name (`attrgetter("system")`).
STRING_GETTERS = ("operator.attrgetter", "operator.methodcaller")
# The words of the calls that read an attribute by a string, as getattr does (`_read_by_string`).
NAME_READERS = ("getattr", "__getattribute__", *(getter.rsplit(".", 1)[-1] for getter in STRING_GETTERS))
# A module found by name and made from its spec (`module_from_spec(find_spec("os"))`) is that module:
# the spec stands for it as `os.__spec__`.
_FIND_SPEC = "importlib.util.find_spec"
_FROM_SPEC = "importlib.util.module_from_spec"
_SPEC = ".__spec__"
# What a call resolves to that is dangerous, or returns a module or attribute (`getattr`, an importer).
LEADING_CALLS = (
    DANGEROUS_CALLS
    | {"importlib.import_module", "getattr", *STRING_GETTERS, _FIND_SPEC, _FROM_SPEC}
    | _INSTANCES
)
# Modules named like a common variable or attribute (`err.code`, `self.types`): such a name is the
# module only where the module itself is imported under it.
_COMMON_NAMES = frozenset({"code", "types", "profile", "trace", "timeit", "imp"})
# The modules dangerous calls are read from: one reached as another module's attribute (`helpers.os`,
# `six.moves.cPickle`) is taken to be that module.
REACHED_MODULES = frozenset(
    {name.split(".", 1)[0] for name in LEADING_CALLS if "." in name} - _COMMON_NAMES | {"builtins", "sys"}
)
# A name worth remembering when assigned: a dangerous call, or a module (or attribute) that leads to one.
_LEADS_TO = frozenset(
    ".".join(parts[:n])
    for name in (*LEADING_CALLS, "builtins.eval", "sys.modules.x")
    for parts in (name.split("."),)
    for n in range(1, len(parts) + 1)
)
LEADS_TO = _LEADS_TO
# What a subscript with a string reads a builtin from (`__builtins__["eval"]`, which is a dict
# outside `__main__`; a bare `__dict__`).
_BUILTIN_DICTS = ("builtins", "__dict__")
# The module's own names as a dict: `globals()`, `vars()`, `locals()` at the top, a function's
# `__globals__`; `globals()["run"]` is whatever `run` is.
GLOBALS = "<globals>"
NAMESPACE_WORDS = ("globals", "locals", "vars", "__globals__")


def needed_words(name: str) -> frozenset[str]:
    """The words a text names where an expression resolves to `name` (pywords.py): every part of it,
    but a library's function only ctypes and the function (`cdll.libc.system`, `CDLL(None).system`)."""
    parts = name.split(".")
    return frozenset((parts[0], parts[-1]) if name.startswith(f"{LIBRARY}.") else parts)


def _namespace(resolved: str) -> str | None:
    """The module whose names a resolved expression holds as a dict, if it is one: `os.__dict__`
    (also `vars(os)`) holds os's, so `os.__dict__["system"]` is `os.system`."""
    if resolved in _BUILTIN_DICTS:
        return "builtins"
    if resolved == GLOBALS:
        return GLOBALS
    return resolved.removesuffix(".__dict__") if resolved.endswith(".__dict__") else None


def _leads(resolved: str) -> bool:
    """Whether a name standing for `resolved` can lead to a dangerous call (a dangerous name, a
    module or attribute one can be read from, or such a module's dict or its `get`)."""
    read = _dict_get(resolved)
    base = resolved if read is None else read
    module = base.removesuffix(".__dict__").removesuffix(_SPEC).removeprefix("builtins.")
    return base == GLOBALS or module in _LEADS_TO


def _dict_get(resolved: str) -> str | None:
    """The dict whose `get` method `resolved` is (`os.__dict__.get` → `os.__dict__`), if it is one."""
    base = resolved.removesuffix(".get")
    return base if base != resolved and _namespace(base) is not None else None


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# What a name is read in: a function's, a lambda's or a class body's names, else the module's.
_SCOPES_OF_NAMES = (*_SCOPES, ast.Lambda)
_InnerScope = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
_Scope = ast.Module | _InnerScope
_BLOCKS = tuple(
    kind
    for kind in vars(ast).values()
    if isinstance(kind, type) and issubclass(kind, ast.stmt) and {"body", "cases"} & set(kind._fields)
)


def _statements(tree: ast.Module, *, into_scopes: bool) -> Iterator[ast.stmt]:
    """Every statement of the module in source order (only its own, without function and class
    bodies, when `into_scopes` is false): imports and bindings are statements, so expressions are
    not walked."""
    pending: list[ast.stmt] = list(reversed(tree.body))
    while pending:
        statement = pending.pop()
        yield statement
        if not isinstance(statement, _BLOCKS) or (isinstance(statement, _SCOPES) and not into_scopes):
            continue
        inner: list[ast.stmt] = list(getattr(statement, "body", ()))
        for part in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
            inner.extend(part.body)
        inner.extend((*getattr(statement, "orelse", ()), *getattr(statement, "finalbody", ())))
        pending.extend(reversed(inner))


def _imports(tree: ast.Module) -> dict[str, str]:
    """What each imported name stands for, wherever the import is (`import os` inside a function
    is as common as at the top)."""
    return _imports_in(_statements(tree, into_scopes=True))


def _imports_in(statements: Iterable[ast.stmt]) -> dict[str, str]:
    return dict(_imported(statements))


def _imported(statements: Iterable[ast.stmt]) -> Iterator[tuple[str, str]]:
    """(name, what it stands for) of each name the imports bind, in source order."""
    for node in statements:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    yield alias.asname, _reached(alias.name)
                else:
                    top = alias.name.split(".", 1)[0]
                    yield top, top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                yield alias.asname or alias.name, _reached(f"{node.module}.{alias.name}")
        elif isinstance(node, ast.ImportFrom):  # relative: `from . import os` is another module's os
            for alias in node.names:
                if alias.name in REACHED_MODULES:
                    yield alias.asname or alias.name, alias.name


def _reached(dotted: str) -> str:
    """A module a dangerous call is read from, reached through another module (`from helpers
    import os`, `import six.moves.cPickle as p`), is that module: what else would it be."""
    last = dotted.rsplit(".", 1)[-1]
    return last if last in REACHED_MODULES else dotted


def _targets(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.Assign):
        return list(statement.targets)
    if isinstance(statement, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
        return [statement.target]
    if isinstance(statement, ast.With | ast.AsyncWith):
        return [i.optional_vars for i in statement.items if i.optional_vars is not None]
    return []


def _module_bindings(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Names the module itself binds at its top level (a method named `eval` shadows nothing), and
    those of them a `def` or `class` binds."""
    bound: set[str] = set()
    defined: set[str] = set()
    for statement in _statements(tree, into_scopes=False):
        if isinstance(statement, _SCOPES):
            defined.add(statement.name)
        for target in _targets(statement):
            bound.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return bound | defined, defined


def spans_a_line(node: ast.AST, lines: Sequence[int]) -> bool:
    """Whether the node (a statement with its decorators, or an expression) spans one of `lines`
    (sorted); any other node is taken to."""
    if not isinstance(node, ast.stmt | ast.expr):
        return True
    decorators = getattr(node, "decorator_list", None)
    start = decorators[0].lineno if decorators else node.lineno
    first = bisect_left(lines, start)
    return first < len(lines) and lines[first] <= (node.end_lineno or node.lineno)


def _calls(tree: ast.Module, lines: Sequence[int] | None) -> Iterator[ast.Call]:
    """Every call, in no particular order; with `lines` (sorted), only calls in the subtrees that
    span one of those lines are looked for, so a small change to a large file walks little."""
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if lines is not None and not spans_a_line(node, lines):
            continue
        if isinstance(node, ast.Call):
            yield node
        for field in _KINDS[type(node)].fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                pending.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                pending.append(value)


def _string(node: ast.expr) -> str | None:
    """The value of a string constant, also one built by `+` of constants or an f-string without fields."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _string(node.left), _string(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        parts = [_string(v) for v in node.values]
        return None if None in parts else "".join(p for p in parts if p is not None)
    return None


class Resolver:
    """Names as the module's imports and assignments define them. Without the whole module
    (`whole=False`: one line judged alone), a name that is neither bound nor imported is taken to
    be the module it spells. With `calls`, a parameter of a function the module defines also holds
    what its calls pass it (`run(os, c)`), in that function."""

    def __init__(self, tree: ast.Module, *, whole: bool, calls: bool = False) -> None:
        statements = list(_statements(tree, into_scopes=True))  # walked once for both
        # Every value each name, attribute, item, return and parameter is given, when it is given
        # more than one (see `resolutions`): by what holds it, as the `_pick` that reads it keys it.
        self._values: dict[tuple[object, ...], list[str]] = {}
        self._choice: dict[tuple[object, ...], int] | None = None  # while enumerating
        self._consulted: list[tuple[tuple[object, ...], int]] = []
        # What each expression that is one of several (`x or os`, `[a, b][i]`) may stand for.
        self._eithers: dict[tuple[object, ...], list[str]] = {}
        self.aliases: dict[str, str] = {}
        for name, imported in _imported(statements):
            self.aliases[name] = imported
            self._also(("alias", name), imported)
        # Modules whose every public name `from m import *` binds, the last import first.
        self.stars = [
            _reached(s.module)
            for s in reversed(statements)
            if isinstance(s, ast.ImportFrom) and s.module and not s.level and s.names[0].name == "*"
        ]
        self.bound, self.defined = _module_bindings(tree)
        self.whole = whole
        self.assigned: dict[str, str] = {}
        # What attributes and containers hold that leads somewhere (pystored.py): by the attribute
        # as spelled (`self.m`), and by the container as spelled and the item's key.
        self.attributes: dict[str, str] = {}
        self.items: dict[str, dict[str | None, str]] = {}
        # What a function the module defines returns that leads somewhere, by its name (`def
        # get(): return os`, `get = lambda: os`; a method's too: `x.get()` is read so).
        self.returns: dict[str, str] = {}
        # The name an assignment binds, while its value is resolved: the value is read before the
        # name is bound, so `eval = eval` binds the builtin (a `def eval` before it is the module's).
        self._binding = ""
        # Names given a getter made by a call (`mc = operator.methodcaller("system", c)`): the call.
        self._getters: dict[str, ast.Call] = {}
        # Filled by `follow_calls`: the parameters of each function the module defines, by its
        # name, and its classes' names; the names of the functions called with a value that leads
        # somewhere; what calls pass each parameter, by the lines of the function it is one of.
        self._receivers: dict[str, list[Parameters]] = {}
        self._classes: set[str] = set()
        self.passing: set[str] = set()
        self.given: dict[str, dict[tuple[int, int], str]] = {}
        # The lines of the functions each name is local to (sorted): there the name is what that
        # function gives it, not what another scope assigns it.
        self._locals: dict[str, list[tuple[int, int]]] | None = None  # when first asked
        # The lines where each name is given a value that leads somewhere (assigned, looped over,
        # a parameter's default): a parameter so given one in its function is read as assigned.
        self._given_at: dict[str, set[int]] = {}
        self._given_sorted: dict[str, list[int]] = {}  # those lines in order, when first asked
        self._statements = statements
        # The names each statement binds with `:=` and in its comprehensions' loops, by the
        # statement, and the lambdas it writes, once calls are followed.
        self._walruses: dict[int, list[ast.NamedExpr]] = {}
        self._loops: dict[int, list[ast.comprehension]] = {}
        self._lambdas: list[ast.Lambda] = []
        self._read()
        self._tree = tree
        self._scopes: list[_InnerScope] | None = None  # read when first asked (`items_assigned`)
        if calls:
            self.follow_calls()
        else:
            self._stand()

    def _stand(self) -> None:
        # The plain names that may stand for a function handed on as a value (`_maybe_handed`).
        self.standing = {*_HANDED_WORDS, *self.assigned, *self.aliases}

    def follow_calls(self) -> None:
        """Give a parameter of a function the module defines what its calls pass it (`run(os, c)`),
        in that function; a value known only once a call is read, which may come after the
        function's body, so the statements are read again with it (`x = m`)."""
        statements = self._statements
        self._receivers, self._classes = _receivers(statements)
        calls: list[ast.Call] = []
        for statement in statements:
            if type(statement) not in _CALLLESS:
                made = made_in(statement)
                calls.extend(
                    call
                    for call in made.calls
                    if _called_name(call) not in _NOT_PASSED or isinstance(call.func, ast.Lambda)
                )
                if made.walruses:
                    self._walruses[id(statement)] = made.walruses
                if made.loops:
                    self._loops[id(statement)] = made.loops
                self._lambdas.extend(made.lambdas)
        if self._lambdas:  # a lambda's parameters are its own
            self._locals = None
        if self._walruses or self._loops:
            self._read()
        for _ in range(_PASSES):
            if not self._pass(calls):
                break
            self._read()
        self._stand()

    def _read(self) -> None:
        """Remember what the statements make names, attributes, items and returns stand for."""
        defining: list[ast.FunctionDef | ast.AsyncFunctionDef] = []  # the definitions a statement is in
        for statement in self._statements:
            kind = type(statement)
            while defining and (defining[-1].end_lineno or 0) < statement.lineno:
                defining.pop()
            if isinstance(statement, ast.Return):
                if defining and statement.value is not None:
                    self._keep(Returned(defining[-1].name, statement.value))
            elif isinstance(statement, ast.ClassDef):
                self._subclass(statement)
            elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                defining.append(statement)
            if kind is ast.Assign or kind is ast.AnnAssign:
                self._assign(statement)
            if kind in STORING:
                for stored in stores(statement):
                    self._keep(stored)
            for walrus in self._walruses.get(id(statement), ()) if self._walruses else ():
                for resolved in self._leading(walrus.value):
                    self._name(walrus.target.id, resolved, walrus.lineno)
            for loop in self._loops.get(id(statement), ()) if self._loops else ():
                if isinstance(loop.target, ast.Name):
                    for resolved in self._any_items(loop.iter):
                        self._name(loop.target.id, resolved, loop.iter.lineno)

    def _pass(self, calls: list[ast.Call]) -> bool:
        """Give each parameter every value the calls of the module's functions pass it that leads
        somewhere, and remember the name of a function any call passes such a value (`passing`);
        whether a parameter was given a value it did not have."""
        given = False
        for made in calls:
            call = self._partial(made) or made
            arguments = (*positional_arguments(call.args), *(v for _, v in keyword_arguments(call.keywords)))
            if not any(self._leading(a) for a in arguments if a is not None):
                continue
            function = call.func
            if isinstance(function, ast.Lambda):  # called where it is written
                receivers = [parameters(function, method=False)]
            else:
                name = _called_name(call)
                self.passing.add(name)
                receivers = self._receivers.get(name, [])
            for receiver in receivers:
                for value in passed(call, receiver, classes=self._classes):
                    for resolved in self._leading(value.value):
                        # A dangerous function passed is reported where it is handed on; what
                        # leads to one (a module, a namespace, getattr) is followed in.
                        if resolved.removeprefix("builtins.") not in DANGEROUS_CALLS:
                            given = self._give(value, receiver, resolved) or given
        return given

    def _give(self, value: Passed, receiver: Parameters, resolved: str) -> bool:
        """Give a parameter (or an item of the tuple or dict it holds) a value; whether it is new."""
        parameter = value.parameter
        if not value.item:
            self.given.setdefault(parameter, {})[receiver.span] = resolved
            return self._also(("given", parameter, receiver.span), resolved)
        # `*rest` and `**options` are containers, known by their spelling as others are.
        return self._store_item(parameter, value.key, resolved)

    def _store_item(self, holder: str, key: str | None, resolved: str) -> bool:
        """Remember an item the container `holder` is given under `key`; whether it is new."""
        self.items.setdefault(holder, {})[key] = resolved
        self._also(("item", holder, _ANY_KEY), resolved)
        return self._also(("item", holder, key), resolved)

    def _partial(self, call: ast.Call) -> ast.Call | None:
        """`functools.partial(run, os)` as the call of `run` it prepares (`run(os)`)."""
        if not call.args or _called_name(call) != "partial" or self.name(call.func) != "functools.partial":
            return None
        return ast.Call(func=call.args[0], args=call.args[1:], keywords=call.keywords)

    def _local(self, node: ast.Name) -> str | None:
        """What the name stands for where it reads a local of a function it is in (the innermost
        it is local to: a parameter, or a name the function binds) that the function gives no
        value leading somewhere: what a call passes it there, else what the name is without the
        module's other assignments (None where it is no such local: then it is any of those)."""
        name, line = node.id, node.lineno
        if name not in self.assigned and name not in self.given:
            return None
        if self._locals is None:
            self._locals = _locals(self._statements, self._lambdas)
        spans = self._locals.get(name)
        if not spans:
            return None
        at = bisect_right(spans, (line, _LAST_LINE))
        inner = next((s for s in reversed(spans[max(0, at - _NESTED) : at]) if s[0] <= line <= s[1]), None)
        if inner is None or self._given_in(name, inner):
            return None
        held = self.given.get(name, {}).get(inner)
        return self._named(name, flat=False) if held is None else self._pick(("given", name, inner), held)

    def _given_in(self, name: str, span: tuple[int, int]) -> bool:
        """Whether the name is given a value that leads somewhere on a line of `span`."""
        lines = self._given_sorted.get(name)
        if lines is None:
            lines = self._given_sorted[name] = sorted(self._given_at.get(name, ()))
        at = bisect_left(lines, span[0])
        return at < len(lines) and lines[at] <= span[1]

    def _leading(self, node: ast.expr) -> list[str]:
        """What an expression may stand for that leads somewhere (`resolutions`)."""
        if not isinstance(node, _RESOLVED):
            return []
        return [resolved for resolved in self.resolutions(node) if _leads(resolved)]

    def _assign(self, statement: ast.stmt) -> None:
        """Remember what each name the assignment binds leads to, and a getter it is made."""
        for target, value in assignments(statement):
            self._binding = target
            for resolved in self._leading(value):
                self._name(target, resolved, statement.lineno)
            if isinstance(value, ast.Call) and self._makes_getter(value):
                self._getters[target] = value
        self._binding = ""

    def _name(self, name: str, resolved: str, line: int) -> None:
        self.assigned[name] = resolved
        self._also(("name", name), resolved)
        lines = self._given_at.setdefault(name, set())
        if line not in lines:
            lines.add(line)
            self._given_sorted.pop(name, None)

    def _also(self, key: tuple[object, ...], value: str) -> bool:
        """Remember that what `key` names is given `value`; whether that is new."""
        values = self._values.setdefault(key, [])
        if value in values:
            return False
        values.append(value)
        if self._eithers:  # what an expression's candidates stand for may have changed
            self._eithers.clear()
        return True

    def _pick(self, key: tuple[object, ...], held: str) -> str:
        """What `key` names holds: `held` (the last value it is given), or while `resolutions`
        enumerates them, the value it chose for that key."""
        choice = self._choice
        if choice is None:
            return held
        values = self._values.get(key)
        if values is None or len(values) < 2:
            return held
        self._consulted.append((key, len(values)))
        index = choice.get(key)
        return held if index is None else values[index]

    def resolutions(self, node: ast.expr) -> list[str]:
        """Every dotted name the expression may stand for: a name, attribute, item, return or
        parameter given several values that lead somewhere (`m = os` … `m = sys`: whichever
        assignment ran last) stands for each in turn, and so does every one it is read through:
        each value of the first one read, and combinations with those read after it, up to
        _RUNS of them. (The values a holder can be given are few: modules and their functions.)"""
        found: list[str] = []
        queue: list[dict[tuple[object, ...], int]] = [{}]
        for choice in queue:  # breadth first: every value of the first holder read comes first
            self._choice, self._consulted = choice, []
            try:
                resolved = self._resolve(node)
            finally:
                self._choice = None
            if resolved is not None and resolved not in found:
                found.append(resolved)
            free = next(((key, size) for key, size in self._consulted if key not in choice), None)
            if free is not None and (not choice or len(queue) < _RUNS):
                queue.extend({**choice, free[0]: index} for index in range(free[1]))
        return found

    def _makes_getter(self, call: ast.Call) -> bool:
        """Whether the call makes a getter of STRING_GETTERS (its name's last word, or a name the
        module binds, read first: `from operator import methodcaller as mc`)."""
        func = call.func
        spelled = not _GETTER_WORDS.isdisjoint(_last_words(func))
        bound = isinstance(func, ast.Name) and (func.id in self.aliases or func.id in self.assigned)
        return (spelled or bound) and self.name(func) in STRING_GETTERS

    def getter(self, node: ast.expr) -> ast.Call | None:
        """The call that makes the function `node` is, when it is one (`operator.methodcaller(…)`)
        or a name assigned one; None otherwise."""
        if isinstance(node, ast.Call):
            return node
        return self._getters.get(node.id) if isinstance(node, ast.Name) and self._getters else None

    def _keep(self, stored: Kept) -> None:
        """Remember what an attribute, an item, a loop's name, a parameter or what a function
        returns is given, when it leads somewhere."""
        if isinstance(stored, Looped):
            for resolved in self._any_items(stored.items):
                self._name(stored.name, resolved, stored.items.lineno)
            return
        for resolved in self._leading(stored.value):
            if isinstance(stored, Returned):
                self.returns[stored.function] = resolved
                self._also(("returns", stored.function), resolved)
            elif isinstance(stored, Defaulted):
                self._name(stored.name, resolved, stored.value.lineno)
            elif stored.attribute:
                self.attributes[stored.holder] = resolved
                self._also(("attribute", stored.holder), resolved)
            else:
                self._store_item(stored.holder, stored.key, resolved)

    def _any_items(self, node: ast.expr) -> list[str]:
        """What the items of a display or of a container the module fills may be that leads
        somewhere (a loop's name is bound to each in turn)."""
        holder = spelled(node)
        held = self._values.get(("item", holder, _ANY_KEY), []) if holder is not None else []
        return [*held, *(r for _, value in items_of(node) for r in self._leading(value))]

    def _looked_up(self, holder: ast.expr, key: ast.expr | None) -> str | None:
        """What the item `key` of the container `holder` leads to, when the module fills it so: the
        item of that key, else one stored under a key not fixed; any item, for a key not fixed."""
        path = spelled(holder) or ""
        held = self.items.get(path) if self.items else None
        if not held:
            return None
        fixed = fixed_key(key)
        if fixed is None:
            return self._pick(("item", path, _ANY_KEY), next(iter(held.values())))
        if fixed in held:
            return self._pick(("item", path, fixed), held[fixed])
        return None if None not in held else self._pick(("item", path, None), held[None])

    def _function_returns(self, func: ast.expr) -> str | None:
        """What the function a call calls returns that leads somewhere, by its name."""
        name = _last_name(func)
        held = self.returns.get(name)
        return None if held is None else self._pick(("returns", name), held)

    def _attribute_held(self, node: ast.Attribute) -> str | None:
        """What the attribute as spelled (`self.m`) is given, when that leads somewhere (also by a
        `setattr` naming no fixed attribute of what holds it)."""
        path = spelled(node)
        if path is None:
            return None
        if path not in self.attributes:
            path = f"{path.rsplit('.', 1)[0]}.{ANY_ATTRIBUTE}"
        held = self.attributes.get(path)
        return None if held is None else self._pick(("attribute", path), held)

    def _subclass(self, statement: ast.ClassDef) -> None:
        """A class of _SUBCLASSED subclassed stands for it, its instances' methods for its own."""
        bases = (self._resolve(base) for base in statement.bases)
        subclassed = next((base for base in bases if base in _SUBCLASSED), None)
        if subclassed is not None:
            self._name(statement.name, subclassed, statement.lineno)

    def items_assigned(self, name: ast.Name, key: str) -> list[ast.expr]:
        """The values `key` is given, in source order, by the scope `name` is read in (the module, a
        class body, a function): assigned a dict display or `dict(...)` call holding the key
        (`_item`), the key assigned (`name["shell"] = True`), or filled in by a method or `|=`
        (`_filled`). None without the whole module: the scope is not known."""
        if not self.whole:
            return []
        values: list[ast.expr] = []
        for statement in self._statements_of(self._scope_of(name)):
            for bound, value in assignments(statement):
                item = _item(value, key, self) if bound == name.id else None
                values.extend(() if item is None else (item,))
            if isinstance(statement, ast.Assign) and any(_keyed(t, name.id, key) for t in statement.targets):
                values.append(statement.value)
            filled = _filled(statement, name.id, key, self)
            values.extend(() if filled is None else (filled,))
        return values

    def strings_assigned(self, name: ast.Name) -> list[str]:
        """The strings fixed in the source that the scope `name` is read in assigns it (none
        without the whole module: the scope is not known)."""
        if not self.whole:
            return []
        assigned = (
            _string(value)
            for statement in self._statements_of(self._scope_of(name))
            for bound, value in assignments(statement)
            if bound == name.id
        )
        return [text for text in assigned if text is not None]

    def _scope_of(self, node: ast.expr) -> _Scope:
        """The innermost function, lambda or class whose span holds `node`, else the module."""
        if self._scopes is None:
            self._scopes = [n for n in ast.walk(self._tree) if isinstance(n, _SCOPES_OF_NAMES)]
        start = (node.lineno, node.col_offset)
        end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
        inner: _Scope = self._tree
        for scope in self._scopes:
            spans = (scope.lineno, scope.col_offset), (scope.end_lineno or 0, scope.end_col_offset or 0)
            if spans[0] <= start and end <= spans[1]:
                inner = scope  # ast.walk is breadth-first: a scope found later is the inner one
        return inner

    @staticmethod
    def _statements_of(scope: _Scope) -> Iterator[ast.stmt]:
        body = [] if isinstance(scope, ast.Lambda) else scope.body
        return _statements(ast.Module(body=body, type_ignores=[]), into_scopes=False)

    def _named(self, name: str, *, flat: bool = True) -> str:
        """What a name stands for (`flat`: with what any scope of the module assigns it)."""
        if name in self.aliases:
            return self._pick(("alias", name), self.aliases[name])
        if flat and name in self.assigned:
            return self._pick(("name", name), self.assigned[name])
        if name == "__builtins__":
            return "builtins"
        being_bound = name == self._binding and name not in self.defined
        if name in self.bound and not being_bound:
            return f"<local>.{name}"
        starred = next((f"{m}.{name}" for m in self.stars if f"{m}.{name}" in _LEADS_TO), None)
        if starred is not None:
            return starred
        if self.whole and name not in _BUILTINS:
            return f"<local>.{name}"
        return name

    def name(self, node: ast.expr) -> str | None:
        """The dotted name an expression stands for (`o.system` → `os.system`, `builtins.eval` →
        `eval`), or None."""
        resolved = self._resolve(node)
        return None if resolved is None else resolved.removeprefix("builtins.")

    def every_value(self) -> Iterator[str]:
        """Every value a name, attribute, item, return or parameter is given, where it is given
        several (the others: `assigned`, `attributes`, `items`, `returns`, `given`)."""
        return (value for values in self._values.values() if len(values) > 1 for value in values)

    def names(self, node: ast.expr) -> list[str]:
        """Every dotted name the expression may stand for (`resolutions`), as `name` gives one."""
        return [resolved.removeprefix("builtins.") for resolved in self.resolutions(node)]

    def _resolve(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            local = self._local(node)
            return self._named(node.id) if local is None else local
        if isinstance(node, ast.Attribute):
            held = self._attribute_held(node) if self.attributes else None
            if held is not None:
                return held
            base = self._resolve(node.value)
            if base is None:
                return None
            if node.attr == "__globals__":
                return GLOBALS
            if node.attr in REACHED_MODULES:
                return node.attr
            return _attribute(base, node.attr) if base in LOADERS else f"{base}.{node.attr}"
        if isinstance(node, ast.NamedExpr):
            return self._resolve(node.value)
        if isinstance(node, ast.Subscript):
            return self._item(node)
        if isinstance(node, ast.Call):
            return self._returned(node)
        if isinstance(node, ast.IfExp):  # either branch
            return self._either(node, (node.body, node.orelse))
        if isinstance(node, ast.BoolOp):  # any operand may be the value (`x or os`)
            return self._either(node, node.values)
        return None

    def _either(self, node: ast.expr, candidates: Sequence[ast.expr]) -> str | None:
        """What the expression stands for when it is one of `candidates`: each value one of them
        leads to (once, however many candidates: `resolutions` tries each), else the first's."""
        key = ("either", id(node))
        values = self._eithers.get(key)
        if values is None:
            self._eithers[key] = []  # a candidate that reads the expression itself reads nothing
            outer = self._choice, self._consulted
            try:
                resolved = [found for candidate in candidates for found in self.resolutions(candidate)]
            finally:
                self._choice, self._consulted = outer
            values = list(dict.fromkeys(found for found in resolved if _leads(found))) or resolved[:1]
            self._eithers[key] = values
        if len(values) < 2:
            return values[0] if values else None
        choice = self._choice
        if choice is None:
            return values[0]
        self._consulted.append((key, len(values)))
        return values[choice.get(key, 0)]

    def _item(self, node: ast.Subscript) -> str | None:
        """`sys.modules["os"]` is `os`; `builtins.__dict__["eval"]` and `__builtins__["eval"]`, eval;
        `vars(os)["system"]`, `os.system`; `globals()["run"]`, what `run` is."""
        held = self._looked_up(node.value, node.slice) if self.items else None
        if held is not None:
            return held
        if isinstance(node.value, _DISPLAYS):  # `[os][0]`, `{"o": os}["o"]`
            return self._displayed(node)
        key = _string(node.slice)
        base = self._resolve(node.value)
        if base in LOADERS:  # `cdll["libc.so.6"]`, `cdll[name]`: a library
            return LIBRARY
        if key is None or base is None:
            return None
        if base == LIBRARY:  # a library's function by its name: `libc["system"]`
            return f"{LIBRARY}.{key}"
        return key if base == "sys.modules" else self._in_namespace(base, key)

    def _displayed(self, node: ast.Subscript) -> str | None:
        """The item of a display the key reads: the value of a dict's key fixed in the source, the
        element of a sequence's index fixed so, else any (`_either`)."""
        display, key = node.value, node.slice
        items = list(items_of(display))
        fixed = fixed_key(key)
        index = key.value if isinstance(key, ast.Constant) and type(key.value) is int else None
        if fixed is not None and isinstance(display, ast.Dict):
            items = [(k, value) for k, value in items if k == fixed]
        elif (
            index is not None
            and not isinstance(display, ast.Dict | ast.Set)
            and -len(items) <= index < len(items)
        ):
            items = [items[index]]
        return self._either(node, [value for _, value in items])

    def _in_namespace(self, base: str, key: str) -> str | None:
        namespace = _namespace(base)
        if namespace == GLOBALS:  # a module's own names; another module's `__globals__` too
            return key if key in REACHED_MODULES else self._named(key)
        return None if namespace is None else f"{namespace}.{key}"

    def _returned(self, call: ast.Call) -> str | None:
        """What a call returns, when it is a module or a module's attribute: `__import__("os")`,
        `importlib.import_module("os")`, `getattr(os, "system")`, `vars(os)` (os's dict) and
        `vars(os).get("system")` (also through a name or getattr bound to that `get`)."""
        func = call.func
        returned = self._function_returns(func) if self.returns else None
        if returned is not None:
            return returned
        if self.items and isinstance(func, ast.Attribute) and func.attr in _ITEM_GETTERS and call.args:
            held = self._looked_up(func.value, call.args[0])
            if held is not None:
                return held
        called = self._resolve(func)
        namespace = None if called is None else _dict_get(called)
        if namespace is not None and call.args:
            key = _string(call.args[0])
            return None if key is None else self._in_namespace(namespace, key)
        function = None if called is None else called.removeprefix("builtins.")
        if function in NAMESPACE_WORDS and not call.args and not call.keywords:
            return GLOBALS
        if function == "vars" and len(call.args) == 1:
            base = self._resolve(call.args[0])
            return None if base is None else f"{base}.__dict__"
        if function in _LIBRARY_MAKERS:
            return LIBRARY
        if function in _INSTANCES:
            return function
        if function in ("__import__", "importlib.__import__", "importlib.import_module") and call.args:
            module = _string(call.args[0])
            if module is None:
                return None
            return module.split(".", 1)[0] if function != "importlib.import_module" else module
        if function == _FIND_SPEC and call.args:  # the spec of the module it names, made one below
            module = _string(call.args[0])
            return None if module is None else f"{module}{_SPEC}"
        if function == _FROM_SPEC and call.args:
            spec = self._resolve(call.args[0])
            return spec.removesuffix(_SPEC) if spec is not None and spec.endswith(_SPEC) else None
        read = _read_by_string(call, function, self)
        if read is not None:
            base, attribute = self._resolve(read[0]), _string(read[1])
            if base in LOADERS and attribute is None:  # `getattr(cdll, name)`: a library
                return LIBRARY
            return None if base is None or attribute is None else _attribute(base, attribute)
        return None


# The expressions `_resolve` can resolve (a constant or an operation stands for no module or function).
_RESOLVED = (ast.Name, ast.Attribute, ast.NamedExpr, ast.Subscript, ast.Call, ast.IfExp, ast.BoolOp)
_DISPLAYS = (ast.List, ast.Tuple, ast.Set, ast.Dict)
# Statements that make no call.
_CALLLESS = frozenset(
    {ast.Import, ast.ImportFrom, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal}
)
# How many times a module's statements are read while calls give parameters new values: a value
# handed from parameter to parameter by calls written before the function that hands it on
# (`def a(m): b(m)` … `a(os)`) is known one reading later each time.
_PASSES = 4
# How many combinations of values `Resolver.resolutions` reads an expression with, at most.
_RUNS = 64
# The key of every item a container holds, whatever key it is stored under.
_ANY_KEY = "\0any"
_LAST_LINE = 1 << 62  # past any line: sorts a (line, _LAST_LINE) after every span starting there
# How many functions back from a line a parameter's innermost function is looked for: past them
# (more functions with that parameter nested, or beside, than this), the name is read as the
# module's other scopes assign it, which reports more.
_NESTED = 64


# Calls whose parameters are not the module's to give: a builtin's, and one not called by a name.
_NOT_PASSED = _BUILTINS | {""}


_Bound = tuple[ast.stmt | ast.Lambda, set[str], set[str]]  # a definition, the names it binds, declares


def _locals(
    statements: list[ast.stmt], lambdas: Sequence[ast.Lambda] = ()
) -> dict[str, list[tuple[int, int]]]:
    """The lines of the functions each name is local to, sorted: a function's parameters (a lambda
    a name is assigned too) and the plain names its own statements assign (`m = …`, `a, m = …`,
    `m += …`, `m: T`), loop over or bind with `with … as`, and the functions and classes it
    defines; not those it declares `global` or `nonlocal`, nor a class body's. (Names bound other
    ways, `import`, `except … as`, `:=`, are read as the module's other scopes give them, which
    reports more.)"""
    found: dict[str, list[tuple[int, int]]] = {}
    scopes: list[_Bound] = []  # definitions open: names bound, declared
    closed: list[_Bound] = []

    def close(scope: _Bound) -> None:
        if not isinstance(scope[0], ast.ClassDef):
            closed.append(scope)

    for statement in statements:
        while scopes and (scopes[-1][0].end_lineno or 0) < statement.lineno:
            close(scopes.pop())
        if scopes:
            _, bound, declared = scopes[-1]
            if isinstance(statement, ast.Global | ast.Nonlocal):
                declared.update(statement.names)
            for target in _targets(statement):
                bound.update(_bound_names(target))
            if isinstance(statement, _SCOPES):
                bound.add(statement.name)
        if isinstance(statement, _SCOPES):
            parameters = () if isinstance(statement, ast.ClassDef) else _parameter_names(statement.args)
            scopes.append((statement, set(parameters), set()))
        lambda_ = _assigned_lambda(statement)
        if lambda_ is not None:
            closed.append((lambda_, set(_parameter_names(lambda_.args)), set()))
    for scope in scopes:
        close(scope)
    closed.extend((lambda_, set(_parameter_names(lambda_.args)), set()) for lambda_ in lambdas)
    for definition, bound, declared in closed:
        span = (definition.lineno, definition.end_lineno or definition.lineno)
        for name in bound - declared:
            found.setdefault(name, []).append(span)
    for spans in found.values():
        spans.sort()
    return found


def _assigned_lambda(statement: ast.stmt) -> ast.Lambda | None:
    """The lambda an assignment gives a name (`run = lambda m: …`)."""
    kind = type(statement)
    if kind is not ast.Assign and kind is not ast.AnnAssign:
        return None
    value = getattr(statement, "value", None)
    return value if isinstance(value, ast.Lambda) else None


def _parameter_names(arguments: ast.arguments) -> Iterator[str]:
    every = (
        *arguments.posonlyargs,
        *arguments.args,
        arguments.vararg,
        *arguments.kwonlyargs,
        arguments.kwarg,
    )
    return (argument.arg for argument in every if argument is not None)


def _bound_names(target: ast.expr) -> Iterator[str]:
    """The plain names an assignment's target binds (`a, (b, *c)`; not `a` of `a.b` or `a[0]`)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _bound_names(element)
    elif isinstance(target, ast.Starred):
        yield from _bound_names(target.value)


def _called_name(call: ast.Call) -> str:
    """The name or the last attribute a call calls (`run`, `self.run`), else ""."""
    return _last_name(call.func)


def _last_name(node: ast.expr) -> str:
    """A name, or an attribute's last name (`run`, `self.run`), else ""."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""


def _receivers(statements: list[ast.stmt]) -> tuple[dict[str, list[Parameters]], set[str]]:
    """The parameters of every function the statements define (`def`, a lambda assigned a name), by
    its name, and the names of the classes they define."""
    receivers: dict[str, list[Parameters]] = {}
    classes: set[str] = set()
    methods: set[int] = set()
    for statement in statements:
        if isinstance(statement, ast.ClassDef):
            classes.add(statement.name)
            methods.update(
                id(s) for s in statement.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
            )
            # A call of the class calls its `__init__` (`A(os)`: the instance first).
            for inner in statement.body:
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef) and inner.name == "__init__":
                    receivers.setdefault(statement.name, []).append(parameters(inner, method=True))
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            found = parameters(statement, method=id(statement) in methods)
            receivers.setdefault(statement.name, []).append(found)
        lambda_ = _assigned_lambda(statement)
        for name, value in assignments(statement) if type(statement) is ast.Assign else ():
            if value is lambda_ and lambda_ is not None:
                receivers.setdefault(name, []).append(parameters(lambda_, method=False))
            elif isinstance(value, ast.Name) and value.id in receivers:  # `g = run`
                receivers.setdefault(name, []).extend(receivers[value.id])
    return receivers, classes


# The last word of a getter's name (`methodcaller`), or a name bound to one.
_GETTER_WORDS = frozenset(getter.rsplit(".", 1)[-1] for getter in STRING_GETTERS)


def _last_words(node: ast.expr) -> tuple[str, ...]:
    """The name or attribute a called expression ends in (`operator.methodcaller` → `methodcaller`)."""
    if isinstance(node, ast.Name):
        return (node.id,)
    return (node.attr,) if isinstance(node, ast.Attribute) else ()


# A container's methods that return the item of the key they are given.
_ITEM_GETTERS = frozenset({"get", "pop", "setdefault", "__getitem__"})


def _read_by_string(
    call: ast.Call, function: str | None, resolver: Resolver
) -> tuple[ast.expr, ast.expr] | None:
    """What a call reads an attribute from and the expression naming it, when it reads one by a
    string as getattr does: `getattr(os, n)`, `os.__getattribute__(n)`, `object.__getattribute__(os,
    n)` (also `type(os)`'s), `operator.attrgetter(n)(os)`."""
    func, args = call.func, call.args
    if function == "getattr":
        return (args[0], args[1]) if len(args) >= 2 else None
    if isinstance(func, ast.Attribute) and func.attr == "__getattribute__":
        owner = func.value
        unbound = resolver.name(owner) in ("object", "type") or (
            isinstance(owner, ast.Call) and resolver.name(owner.func) == "type"
        )
        if unbound:
            return (args[0], args[1]) if len(args) == 2 else None
        return (owner, args[0]) if len(args) == 1 else None
    maker = resolver.getter(func)
    if maker is not None and len(maker.args) == 1 and len(args) == 1:
        return (args[0], maker.args[0]) if resolver.name(maker.func) == "operator.attrgetter" else None
    return None


def _invoked(call: ast.Call, resolver: Resolver) -> ast.Call:
    """The call a call makes: `operator.methodcaller("system", cmd)(os)` makes `os.system(cmd)`
    (placed where it is), also through a name given the getter; any other call, itself."""
    maker = resolver.getter(call.func)
    if maker is None or len(call.args) != 1 or call.keywords or not maker.args:
        return call
    method = _string(maker.args[0])
    if method is None or resolver.name(maker.func) != "operator.methodcaller":
        return call
    function = ast.copy_location(ast.Attribute(value=call.args[0], attr=method, ctx=ast.Load()), call)
    made = ast.Call(func=function, args=maker.args[1:], keywords=maker.keywords)
    return ast.copy_location(made, call)


def _attribute(base: str, attribute: str) -> str:
    """What `base.attribute` stands for: a loader's attribute other than its own (`cdll.libc`, not
    `cdll.LoadLibrary`) loads the library it names; its `_dlltype` is the class it loads them with."""
    if (
        base in LOADERS
        and attribute != "LoadLibrary"
        and (attribute == "_dlltype" or not attribute.startswith("_"))
    ):
        return LIBRARY
    return f"{base}.{attribute}"


def argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    """The call's argument at `position` or named `keyword`; None when absent or behind a `*args`."""
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    return None


# How `python_constructs` notes, in what it cannot answer for, a name whose assignments in its scope
# decide a call: a mapping a subprocess call spreads, a string of code timeit is given.
SPREAD = "**"


def _spread(call: ast.Call, keyword: str, resolver: Resolver) -> ast.expr | None:
    """The value a `**` argument of the call gives `keyword`, when the source spells it: a dict
    display's (`**{"shell": True}`, the last such key) or `dict(shell=True)`'s, also through a name
    (`**options`) its scope assigns such a mapping or that key (`options["shell"] = True`): of
    those, one that may be true."""
    given = None
    for spread in (kw.value for kw in call.keywords if kw.arg is None):
        if isinstance(spread, ast.Name):
            values = resolver.items_assigned(spread, keyword)
            given = next((v for v in values if _may_be_true(v)), values[-1] if values else given)
        else:
            given = _item(spread, keyword, resolver) or given
    return given


def _keyed(target: ast.expr, name: str, key: str) -> bool:
    """Whether an assignment's target is `name[key]`."""
    return (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Name)
        and target.value.id == name
        and _string(target.slice) == key
    )


def _filled(statement: ast.stmt, name: str, key: str, resolver: Resolver) -> ast.expr | None:
    """The value a statement gives `key` of the mapping `name` holds without assigning it:
    `name.update(key=v)`, `name.update({key: v})`, `name.setdefault(key, v)`, `name |= {key: v}`."""
    if isinstance(statement, ast.AugAssign):
        target = statement.target
        merged = isinstance(statement.op, ast.BitOr) and isinstance(target, ast.Name) and target.id == name
        return _item(statement.value, key, resolver) if merged else None
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return None
    method, owner = call.func.attr, call.func.value
    if not isinstance(owner, ast.Name) or owner.id != name:
        return None
    if method == "update":
        given = [_keyword(call, key), *(_item(mapping, key, resolver) for mapping in call.args[:1])]
        return next((value for value in given if value is not None), None)
    if method == "setdefault" and len(call.args) == 2 and _string(call.args[0]) == key:
        return call.args[1]
    return None


def _item(mapping: ast.expr, key: str, resolver: Resolver) -> ast.expr | None:
    """The value a dict display (the last such key) or a `dict(...)` call's keyword gives `key`."""
    if isinstance(mapping, ast.Dict):
        pairs = list(zip(mapping.keys, mapping.values, strict=True))
        return next((v for k, v in reversed(pairs) if k is not None and _string(k) == key), None)
    if isinstance(mapping, ast.Call) and resolver.name(mapping.func) == "dict":
        return next((kw.value for kw in reversed(mapping.keywords) if kw.arg == key), None)
    return None


def _literal(node: ast.expr) -> bool:
    """A command fixed in the source: a string, or a list or tuple of strings, with no interpolation."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str | bytes)
    if isinstance(node, ast.JoinedStr):
        return all(isinstance(v, ast.Constant) for v in node.values)
    if isinstance(node, ast.List | ast.Tuple):
        return all(_literal(e) for e in node.elts)
    return False


def _may_be_true(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return bool(node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys)
    return True


def _safe_loader(loader: ast.expr | None, resolver: Resolver) -> bool:
    if loader is None:
        return False
    name = resolver.name(loader)
    return name is not None and name.rsplit(".", 1)[-1] in _SAFE_LOADERS


def _argv(call: ast.Call) -> list[ast.expr]:
    """A call's positional arguments with lists and tuples spread out, then its `args=`."""
    out: list[ast.expr] = []
    for argument in (*call.args, *(kw.value for kw in call.keywords if kw.arg == "args")):
        out.extend(argument.elts if isinstance(argument, ast.List | ast.Tuple) else (argument,))
    return out


def _shell_command(call: ast.Call) -> bool:
    """Whether a call runs a shell with `-c` and a command that is not fixed in the source:
    `["sh", "-c", cmd]`, `("/bin/bash", "-ec", cmd)`."""
    argv = _argv(call)
    for index, argument in enumerate(argv):
        program = _string(argument)
        if program is None or program.rsplit("/", 1)[-1] not in _SHELLS:
            continue
        for after in range(index + 1, len(argv)):
            option = _string(argv[after])
            if option is None or not option.startswith("-") or option.startswith("--"):
                break
            if "c" in option:
                command = argv[after + 1] if after + 1 < len(argv) else None
                return command is None or not _literal(command)
    return False


def _judge(call: ast.Call, name: str, resolver: Resolver) -> PyConstruct | None:
    if name in _SIMPLE:
        return _SIMPLE[name]
    if name in _SUBPROCESS_SHELL_ARG:
        shell = argument(call, 8, "shell") or _spread(call, "shell", resolver)
        command = argument(call, 0, "args")
        if shell is not None and _may_be_true(shell) and command is not None and not _literal(command):
            return PyConstruct.SHELL
        return PyConstruct.SHELL if _shell_command(call) else None
    if name in _EXEC_FAMILY:
        return PyConstruct.SHELL if _shell_command(call) else None
    if name in _ALWAYS_SHELL:
        command = argument(call, 0, "cmd")
        return PyConstruct.SHELL if command is not None and not _literal(command) else None
    if name in _PICKLE:
        return PyConstruct.PICKLE
    if name in _PICKLE_IF:
        keyword, position = _PICKLE_IF[name]
        allowed = argument(call, position, keyword) or _spread(call, keyword, resolver)
        return PyConstruct.PICKLE if allowed is not None and _may_be_true(allowed) else None
    if name in _PICKLE_UNLESS:
        keyword = _PICKLE_UNLESS[name]
        told = _keyword(call, keyword) or _spread(call, keyword, resolver)
        return None if _literally_true(told) else PyConstruct.PICKLE
    if name in _YAML_UNSAFE or (
        name in _YAML_LOADS and not _safe_loader(argument(call, 1, "Loader"), resolver)
    ):
        return PyConstruct.YAML
    if name in _NAMED_TARGET:
        runs = _computed_targets(call, name) or _runs_dangerous_code(call, name, resolver)
        return _NAMED_TARGET[name][1] if runs else None
    return None


def _runs_dangerous_code(call: ast.Call, name: str, resolver: Resolver) -> bool:
    """Whether a runner of code strings (CODE_STRINGS) is given one fixed in the source that holds
    a dangerous call, names what the module makes lead to one, or does not parse: the string hides
    from the reader what a call in the code would show. timeit is also judged by the strings its
    scope assigns a name it is given (a callable otherwise)."""
    if name not in CODE_STRINGS:
        return False
    for target in _targets_of(call, name):
        fixed = _string(target)
        if fixed is not None:
            texts = [fixed]
        elif isinstance(target, ast.Name) and name in _TIMEIT:
            texts = resolver.strings_assigned(target)
        else:
            continue
        if any(_dangerous_code(text, resolver) for text in texts):
            return True
    return False


def _targets_of(call: ast.Call, name: str) -> list[ast.expr]:
    """The arguments of a call of _NAMED_TARGET that name what it runs, imports or loads."""
    targets = (argument(call, position, keyword) for position, keyword in _NAMED_TARGET[name][0])
    return [target for target in targets if target is not None]


def _dangerous_code(text: str, resolver: Resolver) -> bool:
    """Whether Python code in a string holds a dangerous call (its names read as the modules they
    spell where it does not import them), names a name the module makes lead to one (the runner
    may run it in the module's namespace: `globals=globals()`), or does not parse here."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    if python_constructs(tree, whole=False):
        return True
    named = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return not named.isdisjoint(leading_names(resolver))


def _computed_targets(call: ast.Call, name: str) -> list[ast.expr]:
    """The arguments of a call of _NAMED_TARGET that name its target and are not fixed in the
    source; for timeit, neither is a callable it may be given instead (a name, an attribute, a
    lambda: benchmarks mostly pass a function they define or import)."""
    computed = [t for t in _targets_of(call, name) if not _fixed_name(t) and _string(t) is None]
    if name in _TIMEIT:
        return [t for t in computed if not isinstance(t, ast.Name | ast.Attribute | ast.Lambda)]
    return computed


def _keyword(call: ast.Call, keyword: str) -> ast.expr | None:
    """The value the call passes as `keyword` (the last, as Python rejects a repeated one)."""
    return next((kw.value for kw in reversed(call.keywords) if kw.arg == keyword), None)


def _literally_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _fixed_name(node: ast.expr) -> bool:
    """A module, file or library named in the source: a string (`None`, for ctypes, the program)."""
    return isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str | bytes))


Fixed = Callable[[], Container[tuple[int, int]]]
"""(line, column) of the names that can only hold a string fixed in the source (pyfixed.py)."""


def _fixed_argument(call: ast.Call, name: str | None, fixed: Fixed) -> bool:
    """Whether the call is one of _NAMED_TARGET given only `fixed` names where its targets are
    computed (not a runner of code strings: what a string holds is judged, not that it is fixed)."""
    if name is None or name not in _NAMED_TARGET or name in CODE_STRINGS:
        return False
    return all(
        isinstance(target, ast.Name) and (target.lineno, target.col_offset) in fixed()
        for target in _computed_targets(call, name)
    )


def _carried_shell(carrier: ast.Call) -> bool:
    """Whether a call handing on a subprocess or exec function gives it a shell: a `shell` that may
    be true (as a keyword, or a `shell` key of a dict it passes), a `**mapping` or `kwargs=` that
    may hold one, or a shell's `-c` with a command not fixed in the source."""
    for kw in carrier.keywords:
        if kw.arg is None or (kw.arg == "shell" and _may_be_true(kw.value)):
            return True
        if kw.arg == "kwargs" and not isinstance(kw.value, ast.Dict):
            return True  # `Thread(target=..., kwargs=options)`: the options are not known
        if isinstance(kw.value, ast.Dict) and _shell_key(kw.value):
            return True
    return any(isinstance(a, ast.Dict) and _shell_key(a) for a in carrier.args) or _shell_command(carrier)


def _shell_key(mapping: ast.Dict) -> bool:
    return any(
        key is None or (_string(key) == "shell" and _may_be_true(value))
        for key, value in zip(mapping.keys, mapping.values, strict=True)
    )


def _handed_on(name: str, carrier: ast.Call | None, resolver: Resolver) -> PyConstruct | None:
    """What a dangerous function handed on as a value is, when `carrier` (the call it is an argument
    of, if any) passes it what makes it dangerous."""
    if name in _HANDED_ON:
        return _HANDED_ON[name]
    if name in _PICKLE_UNLESS:  # whoever calls it unpickles unless the carrier tells it not to
        told = None if carrier is None else _keyword(carrier, _PICKLE_UNLESS[name])
        return None if _literally_true(told) else PyConstruct.PICKLE
    if carrier is None:
        return None
    if name in _SUBPROCESS_SHELL_ARG or name in _EXEC_FAMILY:
        return PyConstruct.SHELL if _carried_shell(carrier) else None
    if name in _YAML_LOADS:
        loader = next((kw.value for kw in carrier.keywords if kw.arg == "Loader"), None)
        return None if _safe_loader(loader, resolver) else PyConstruct.YAML
    if name in _PICKLE_IF:
        allowed = _keyword(carrier, _PICKLE_IF[name][0])
        return PyConstruct.PICKLE if allowed is not None and _may_be_true(allowed) else None
    return None


# The last word of every name a value can be handed on as (an attribute's, to skip the rest cheaply).
_HANDED_WORDS = frozenset(
    name.rsplit(".", 1)[-1]
    for name in (
        *_HANDED_ON,
        *_SUBPROCESS_SHELL_ARG,
        *_EXEC_FAMILY,
        *_YAML_LOADS,
        *_PICKLE_IF,
        *_PICKLE_UNLESS,
    )
) | {"__call__"}
_REFERENCES = (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.NamedExpr)
_Pending = tuple[ast.AST, "ast.Call | None", bool, bool]  # node, carrier, as a value, in a class body


def _maybe_handed(node: ast.expr, resolver: Resolver) -> bool:
    """Whether a node in a value's place is worth resolving: only these can stand for a function."""
    if isinstance(node, ast.Name | ast.Attribute | ast.Subscript) and not isinstance(node.ctx, ast.Load):
        return False  # bound or deleted, not read
    if isinstance(node, ast.Name):
        return node.id in resolver.standing
    if isinstance(node, ast.Attribute):
        return node.attr in _HANDED_WORDS
    return isinstance(node, _REFERENCES)


def python_constructs(
    tree: ast.Module,
    *,
    whole: bool = True,
    lines: Sequence[int] | None = None,
    resolver: Resolver | None = None,
    fixed: Fixed | None = None,
    inspected: set[str] | None = None,
) -> list[Found]:
    """Dangerous calls of a parsed module (or, `whole=False`, of a piece of one), and dangerous
    functions it hands on as values, in source order; with `lines` (sorted), only those whose span
    holds one of those lines. `resolver`: the whole module's, when already built (`resolver_of`).
    An importer (or another call of _NAMED_TARGET) given one of the `fixed` names (asked for only
    then) is judged as if given the literals it can hold. `inspected` collects what a piece of the
    module that may lack some of its statements cannot answer for: a builtin of _INSPECTORS called
    with a dangerous function to hand on (were the module to bind that name itself, `def print(f)`,
    the call would hand it on), a subprocess call or a pickle reader judged by a keyword spreading
    a name (`**options`), which the assignments of its scope fill, and timeit given a name, judged by
    the strings its scope assigns it (each as SPREAD and the name)."""
    resolver = Resolver(tree, whole=whole, calls=True) if resolver is None else resolver
    # A constant, and a name that is not handed on as one that can stand for a function, can find
    # nothing and have no children: they are never walked (most of a tree's nodes).
    named = resolver.standing
    found: list[Found] = []
    pending: list[_Pending] = [(tree, None, False, False)]
    pop, push = pending.pop, pending.append
    while pending:
        node, carrier, as_value, in_class = pop()
        if lines is not None and not spans_a_line(node, lines):
            continue
        if as_value and isinstance(node, ast.expr) and _maybe_handed(node, resolver):
            handed = _first_judged(
                resolver.names(node), partial(_handed_on, carrier=carrier, resolver=resolver)
            )
            if handed is not None:
                found.append(_found(handed[1], handed[0], node, handed_on=True))
                continue
        if isinstance(node, ast.Call):
            call = node
            invoked = _invoked(call, resolver)
            names = resolver.names(invoked.func)
            judged = _first_judged(names, partial(_judge, invoked, resolver=resolver))
            name, construct = judged if judged is not None else (_called(names[0] if names else None), None)
            if construct is not None and fixed is not None and _fixed_argument(invoked, name, fixed):
                construct = None
            by_string = _read_by_string(call, name, resolver)
            computed = _computed_read(call, name, by_string, resolver)
            if computed is not None:
                found.append(computed)
            if name is not None and construct is not None:
                found.append(_found(construct, name, call))
            if inspected is not None and name in _KEYWORDS_SPREAD:
                inspected.update(SPREAD + spread for spread in _spread_names(call))
            if inspected is not None and name in _TIMEIT:
                given = (t for t in _targets_of(invoked, name) if isinstance(t, ast.Name))
                inspected.update(SPREAD + target.id for target in given)
            passed = name not in _INSPECTORS
            if not passed and inspected is not None and _hands_on_any(call, resolver):
                inspected.add(name or "")
            if _walked(call.func, False, named):
                push((call.func, None, False, in_class))
            for child in (*call.args, *call.keywords):
                if _walked(child, passed, named):
                    push((child, call, passed, in_class))
            continue
        kind = _KINDS[type(node)]
        if kind.reads:
            read = _read_native(node, resolver)
            if read is not None:
                found.append(read)
        if kind.passes is not _Passes.AS_IT_IS:
            carrier = None
            as_value = kind.passes is _Passes.VALUE or (
                kind.passes is _Passes.BINDING
                and isinstance(node, ast.stmt)
                and (in_class or not all(isinstance(t, ast.Name) for t in _targets(node)))
            )
        if kind.scope is not None:
            in_class = kind.scope
        for field in kind.fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for child in value:
                    if _walked(child, as_value, named):
                        push((child, carrier, as_value, in_class))
            elif _walked(value, as_value, named):
                push((value, carrier, as_value, in_class))
    if whole:
        found.extend(_exports(tree, resolver, lines))
    # A function handed on where it is also called (`[eval][0](x)`) is the call's, said once.
    called = {(f.line, f.construct) for f in found if not f.handed_on}
    kept = (f for f in found if not f.handed_on or (f.line, f.construct) not in called)
    return sorted(kept, key=lambda f: (f.line, f.end_line, f.construct.value))


def _first_judged(
    names: list[str], judge: Callable[[str], PyConstruct | None]
) -> tuple[str, PyConstruct] | None:
    """The first of the names an expression may stand for (`Resolver.names`) that `judge` finds
    dangerous, with what it is."""
    for candidate in names:
        name = _called(candidate)
        construct = None if name is None else judge(name)
        if name is not None and construct is not None:
            return name, construct
    return None


def _spread_names(call: ast.Call) -> list[str]:
    """The names the call spreads (`**options`)."""
    return [kw.value.id for kw in call.keywords if kw.arg is None and isinstance(kw.value, ast.Name)]


def _loads_computed(loader: ast.expr, name: ast.expr, resolver: Resolver) -> str | None:
    """The `LoadLibrary` of the loader that a key or an attribute of it (`cdll[name]`, `getattr(cdll,
    name)`) calls with a library's name computed at run time; None for a name fixed in the source."""
    if _fixed_name(name) or not _may_be_loader(loader, resolver):
        return None
    resolved = resolver.name(loader)
    return f"{resolved}.LoadLibrary" if resolved in LOADERS else None


def _reads_computed(owner: ast.expr, name: ast.expr, resolver: Resolver) -> str | None:
    """The module holding a dangerous function (ATTRIBUTE_HOLDERS) whose attribute a call reads by
    a name that is not a string the source spells (`getattr(os, name)`, `getattr(os, "".join(p))`,
    `getattr(builtins, chr(101) + "val")`); None otherwise. Whatever builds the name, it may be the
    dangerous one: the read is reported, not the string guessed."""
    if _string(name) is not None:
        return None
    module = resolver.name(owner)
    return module if module in ATTRIBUTE_HOLDERS else None


def _computed_read(
    call: ast.Call, name: str | None, by_string: tuple[ast.expr, ast.expr] | None, resolver: Resolver
) -> Found | None:
    """What a call reading an attribute or a namespace's key by a name computed at run time finds: a
    library loaded (`getattr(cdll, name)`), or any function of a module holding a dangerous one
    (`getattr(os, name)`, `vars(os).get(name)`)."""
    if by_string is not None:
        loader = _loads_computed(*by_string, resolver)
        if loader is not None:
            return _found(PyConstruct.NATIVE, loader, call)
        holder = _reads_computed(*by_string, resolver)
    elif name is not None and call.args and isinstance(call.func, ast.Attribute) and _dict_get(name):
        holder = _keyed_computed(call.func.value, call.args[0], resolver)
    elif len(call.args) == 1 and (maker := resolver.getter(call.func)) is not None and maker.args:
        # `operator.methodcaller(name, c)(os)` calls the method it names
        method = resolver.name(maker.func) == "operator.methodcaller"
        holder = _reads_computed(call.args[0], maker.args[0], resolver) if method else None
    else:
        return None
    return None if holder is None else _found(PyConstruct.ATTRIBUTE, holder, call)


def _keyed_computed(namespace: ast.expr, key: ast.expr, resolver: Resolver) -> str | None:
    """The module holding a dangerous function whose namespace is read by a key that is not a string
    the source spells (`vars(os)[name]`, `os.__dict__.get(name)`, `__builtins__[name]`); None
    otherwise (a module's own `globals()` holds no builtin)."""
    if _string(key) is not None or not _may_be_namespace(namespace, resolver):
        return None
    resolved = resolver.name(namespace)
    module = None if resolved is None else _namespace(resolved)
    return module if module in ATTRIBUTE_HOLDERS else None


def _may_be_namespace(node: ast.expr, resolver: Resolver) -> bool:
    """Whether `node` is worth resolving as a module's namespace (most subscripts are of other
    things): a name that stands for something, a `__dict__`, a call (`vars(os)`) or an item of one
    (`globals()["__builtins__"]`)."""
    if isinstance(node, ast.Name):
        return node.id in resolver.standing or node.id == "__builtins__"
    if isinstance(node, ast.Attribute):
        return node.attr in ("__dict__", "__builtins__")
    return isinstance(node, ast.Call | ast.Subscript)


def _may_be_loader(node: ast.expr, resolver: Resolver) -> bool:
    """Whether `node` is worth resolving as a loader (most subscripts are of other things): a name
    that stands for something, an attribute named like a loader, or a call returning one."""
    if isinstance(node, ast.Name):
        return node.id in resolver.standing or bool(resolver.stars)
    if isinstance(node, ast.Attribute):
        return node.attr in _LOADER_WORDS
    return isinstance(node, ast.Call)


def _read_native(node: ast.AST, resolver: Resolver) -> Found | None:
    """What a subscript or an attribute that is not called finds: a library loaded by a computed
    name (`cdll[name]`), or a library's C function of _SIMPLE readied for a call (`libc.system.argtypes`)."""
    if isinstance(node, ast.Subscript):
        read = isinstance(node.ctx, ast.Load)
        loaded = _loads_computed(node.value, node.slice, resolver) if read else None
        if loaded is not None:
            return _found(PyConstruct.NATIVE, loaded, node)
        holder = _keyed_computed(node.value, node.slice, resolver) if read else None
        return None if holder is None else _found(PyConstruct.ATTRIBUTE, holder, node)
    if not isinstance(node, ast.Attribute) or node.attr == "__call__":
        return None
    function = _library_function(node.value, resolver)
    return None if function is None else _found(_SIMPLE[function], function, node.value)


def _library_function(node: ast.expr, resolver: Resolver) -> str | None:
    """The C function of _SIMPLE that `node` reads from a library, when it does (`libc.system`): its
    attributes read (`argtypes`, `restype`) ready it for a call however that is made."""
    if type(node) is not ast.Attribute or node.attr not in _LIBRARY_FUNCTIONS:
        return None
    name = resolver.name(node)
    return name if name in _SIMPLE and name.rsplit(".", 1)[0] in _LIBRARIES else None


def _hands_on_any(call: ast.Call, resolver: Resolver) -> bool:
    """Whether an argument of the call would be a dangerous function handed on, were it passed."""
    for argument in (*call.args, *(k.value for k in call.keywords)):
        value = argument.value if isinstance(argument, ast.Starred) else argument
        name = _called(resolver.name(value)) if _maybe_handed(value, resolver) else None
        if name is not None and _handed_on(name, call, resolver) is not None:
            return True
    return False


def _walked(node: object, as_value: bool, named: Container[str]) -> TypeGuard[ast.AST]:
    """Whether a child is worth walking: a node, but not a constant, nor a name unless it is handed
    on as a value and may stand for a function (`_maybe_handed` decides)."""
    if type(node) is ast.Name:
        return as_value and node.id in named
    return type(node) is not ast.Constant and isinstance(node, ast.AST)


def _exports(tree: ast.Module, resolver: Resolver, lines: Sequence[int] | None) -> list[Found]:
    """Dangerous functions the module binds to a name at its top level (`from os import system as
    run`, `run = os.system`) and never uses itself: another module imports it from here to call it,
    which judging each file alone would not see. A use is the name read other than by an attribute
    (as the selection keeps statements: pyselect.py)."""
    bound: list[tuple[str, str, ast.stmt]] = []
    for statement in _statements(tree, into_scopes=False):
        if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
            for alias in statement.names:
                target = _reached(f"{statement.module}.{alias.name}").removeprefix("builtins.")
                bound.append((alias.asname or alias.name, target, statement))
        else:
            # What the resolver remembers, in source order, as the selection does (`a = b` before
            # `b = eval` binds nothing dangerous to `a`).
            bound.extend(
                (name, resolver.assigned.get(name, ""), statement) for name, _ in assignments(statement)
            )
    bound = [
        (name, target, statement)
        for name, target, statement in bound
        if target in _HANDED_ON and (lines is None or spans_a_line(statement, lines))
    ]
    if not bound:
        return []
    nodes = [node for node in ast.walk(tree) if isinstance(node, ast.Name | ast.Attribute)]
    read_from = {id(node.value) for node in nodes if isinstance(node, ast.Attribute)}
    used = {
        node.id
        for node in nodes
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in read_from
    }
    return [
        replace(_found(_HANDED_ON[target], target, statement, handed_on=True), exported=name)
        for name, target, statement in bound
        if name not in used
    ]


def _called(name: str | None) -> str | None:
    """The function a call runs: `eval.__call__(x)` runs eval."""
    while name is not None and name.endswith(".__call__"):
        name = name.removesuffix(".__call__")
    return name


def _found(construct: PyConstruct, name: str, node: ast.AST, *, handed_on: bool = False) -> Found:
    line: int = getattr(node, "lineno")  # noqa: B009  # calls and references carry positions
    end = getattr(node, "end_lineno", None)
    return Found(construct, name, line, line if end is None else end, handed_on)


class _Passes(Enum):
    """What a node that is not a call makes of its children's place: whether a child's value is
    handed on from there. Not a comparison's operand, a bare expression statement, what an
    attribute is read from (QUIET), nor the value a module or function binds to plain names (an
    alias the resolver follows: BINDING); an argument's or a walrus's value is handed on as the
    node is, with its carrier (AS_IT_IS); any other node's children are values (VALUE)."""

    AS_IT_IS = 1
    QUIET = 2
    BINDING = 3
    VALUE = 4


@dataclass(frozen=True, slots=True)
class _Kind:
    """How the walk treats the nodes of one `ast` class."""

    fields: tuple[str, ...]
    passes: _Passes
    scope: bool | None  # children are in a class body (True), a function's (False), or as the node
    reads: bool  # a subscript or an attribute, which `_read_native` looks at


def _kind_of(node_type: type) -> _Kind:
    if issubclass(node_type, ast.keyword | ast.Starred | ast.NamedExpr):
        passes = _Passes.AS_IT_IS
    elif issubclass(node_type, ast.Compare | ast.Expr | ast.Attribute):
        passes = _Passes.QUIET
    elif issubclass(node_type, ast.Assign | ast.AnnAssign):
        passes = _Passes.BINDING
    else:
        passes = _Passes.VALUE
    scope = None
    if issubclass(node_type, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        scope = issubclass(node_type, ast.ClassDef)
    fields: tuple[str, ...] = () if node_type in CHILDLESS else getattr(node_type, "_fields", ())
    fields = tuple(f for f in fields if f not in NO_CALLS)
    return _Kind(fields, passes, scope, issubclass(node_type, ast.Subscript | ast.Attribute))


class _Kinds(dict[type, _Kind]):
    def __missing__(self, node_type: type) -> _Kind:
        self[node_type] = kind = _kind_of(node_type)
        return kind


_KINDS = _Kinds()


def resolver_of(tree: ast.Module, *, calls: bool = False) -> Resolver:
    """How the names of a whole module resolve (`calls`: see Resolver)."""
    return Resolver(tree, whole=True, calls=calls)


def leading_names(resolver: Resolver) -> dict[str, str]:
    """The names a module's imports and assignments (`resolver_of`) make stand for what can lead to
    a dangerous call (`o` → `os` after `import os as o`, `e` → `eval` after `e = eval`, `system`
    → `os.system` after `from os import *`), and what each stands for (with `builtins.` where the
    name reaches a builtin through that module)."""
    starred = {
        name.removeprefix(f"{module}."): name
        for module in reversed(resolver.stars)
        for name in _LEADS_TO
        if name.startswith(f"{module}.") and "." not in name.removeprefix(f"{module}.")
    }
    imported = {
        name: target
        for name, target in resolver.aliases.items()
        if _leads(target) or target in _BUILTIN_DICTS
    }
    return starred | imported | resolver.assigned


@dataclass(frozen=True, slots=True)
class StoredNames:
    """The words of what a module keeps values that lead somewhere in other than a name (pystored.py),
    and what they hold. The last word of an attribute (`m` after `self.m = os`) and the name of a
    function returning one (`get` after `def get(): return os`) lead somewhere read other than by
    an attribute, as a name does (`bare`); a container's last word (`handlers`) also through a
    method (`handlers.get("run")`), and so does the holder of an attribute set by a name the source
    does not fix (`self` after `setattr(self, name, os)`): `words`. A parameter a call passes such
    a value (`m` after `def run(m, c)` and `run(os, c)`) is `bare` too."""

    bare: frozenset[str]
    words: frozenset[str]
    targets: frozenset[str]


def stored_names(resolver: Resolver) -> StoredNames:
    bare: set[str] = {*resolver.returns, *resolver.given}
    words: set[str] = set()
    for path in resolver.attributes:
        holder, last = path.rsplit(".", 1)
        if last == ANY_ATTRIBUTE:
            words.add(holder.rsplit(".", 1)[-1])
        else:
            bare.add(last)
    words.update(path.rsplit(".", 1)[-1] for path in resolver.items)
    targets = {
        *resolver.every_value(),
        *resolver.attributes.values(),
        *resolver.returns.values(),
        *(target for held in resolver.items.values() for target in held.values()),
    }
    return StoredNames(frozenset(bare), frozenset(words), frozenset(targets))


def every_statement(tree: ast.Module) -> Iterator[ast.stmt]:
    """Every statement of the module, in function and class bodies too, in source order."""
    return _statements(tree, into_scopes=True)


def calls_on_lines(tree: ast.Module, lines: Sequence[int]) -> Iterator[ast.Call]:
    """Every call in the subtrees that span one of `lines` (sorted), in no particular order."""
    return _calls(tree, lines)

"""Dangerous constructs on added lines (`content.dangerous`), per language.

Python is decided on the syntax tree of the file's new text (`pyconstructs.py`), and only
constructs that occupy an added line are reported. Only the statements that can hold or change a
construct are parsed (`pyselect.py`: the rest become empty lines, so the findings are the whole
file's); when the selection cannot say, the whole file is parsed. When the new text is unknown, or
neither it nor its selection parses, each statement that could hold a construct on an added line is
parsed alone with the file's imports, statements found across brackets and continuations
(`pystatements.py`), and a statement that does not parse alone has its calls parsed one by one:
without the syntax tree, receipt says less rather than something false. A declared source encoding
other than UTF-8 is a finding of its own (`python-source-encoding`). JavaScript/TypeScript (also
markup's script blocks) is read by its lexer (`jslex.py`) and shell matched line by line
(`textconstructs.py`).
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Container, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import ClassVar

from bot.engine.change import Change
from bot.engine.content.added import AddedFile, added_files
from bot.engine.content.exclude import read_files
from bot.engine.content.filekinds import Kind
from bot.engine.content.limits import capped
from bot.engine.content.prefilter import Prefilter
from bot.engine.content.pyconstructs import (
    CODE_STRINGS,
    LEADING_CALLS,
    NATIVE_RUNS,
    SPREAD,
    Found,
    PyConstruct,
    Resolver,
    every_statement,
    held_example,
    leading_names,
    python_constructs,
)
from bot.engine.content.pyfixed import fixed_loop_names
from bot.engine.content.pyselect import parse_module as _parse
from bot.engine.content.pyselect import selected
from bot.engine.content.pystatements import calls_alone, in_class_bodies, parsed_alone, statements
from bot.engine.content.pywords import PATTERNS, may_hold, normalized_words, words_in
from bot.engine.diff import FileStatus
from bot.engine.findings import RuleId, Violation
from bot.engine.lazyre import lazy
from bot.engine.manifest import Manifest

# A Python file is parsed only when its text names the words a dangerous call needs (pywords.py).
TRIGGER = "dangerous-words"
PREFILTER_GROUPS = {TRIGGER: PATTERNS}
# The words a call found without the parser is named by (`pystatements.calls_in` finds its extent):
# the last of each call that leads to a dangerous one, or a module that reads one from a string.
_CALL_WORDS = lazy(
    r"\b(?:{})\b".format(
        "|".join(sorted({name.rsplit(".", 1)[-1] for name in LEADING_CALLS} | {"builtins", "__builtins__"}))
    )
)
SOURCE_ENCODING = "python-source-encoding"

_OVERRIDE = (
    "If it is deliberate, that is a maintainer's call: merge with admin approval, or set "
    "content.dangerous: false in the base branch's manifest."
)
_PYTHON_ADVICE = {
    PyConstruct.EVAL: "runs a string as Python code: code injection if any part of it comes from "
    "outside. Parse data with ast.literal_eval or json.loads, or call the code directly.",
    PyConstruct.EXEC: "runs a string as Python code: code injection if any part of it comes from "
    "outside. Call the code directly.",
    PyConstruct.OS_SYSTEM: "runs its argument through the shell: shell injection if any part of it "
    "comes from outside. Use subprocess.run with a list of arguments and no shell.",
    PyConstruct.SHELL: "runs a command built at run time through the shell: shell injection. Pass "
    "subprocess.run a list of arguments, without shell=True or a shell's -c.",
    PyConstruct.PICKLE: "runs code chosen by whoever wrote the data it loads. Never unpickle data you "
    "did not produce; use json or another data-only format.",
    PyConstruct.YAML: "without a safe Loader builds arbitrary Python objects from the document. Use "
    "yaml.safe_load, or Loader=yaml.SafeLoader.",
    PyConstruct.IMPORT: "imports whichever module a run-time value names. Map the allowed names to "
    "modules explicitly.",
    PyConstruct.RUN_CODE: "runs Python code it is given, or that a file or module a run-time value names "
    "holds: code injection if any part of it comes from outside. Import the module and call the code "
    "directly.",
    PyConstruct.CODE_OBJECT: "builds code objects or functions from bytes or code objects, and whatever "
    "they hold runs when called: code injection if any part of them comes from outside. Call the code "
    "directly; never unmarshal data you did not produce.",
    PyConstruct.NATIVE: "loads the native library a run-time value names, whose code runs in this "
    "process: anyone who chooses the path chooses the code. Load a library named in the source.",
    PyConstruct.ATTRIBUTE: "anyone who chooses the name chooses what runs. Name the attribute in the "
    "source, or map the allowed names to functions explicitly.",
}
# A C function that runs a program or finds a function by its name is native code of its own kind.
_NATIVE_RUN_ADVICE = (
    "runs the program, or finds the function, its arguments name, past os and subprocess: anyone who "
    "chooses them chooses the code. Run programs with subprocess.run and a list of arguments."
)
# Readers that unpickle only as told: how to tell them.
_CALL_ADVICE = {
    "torch.load": " Pass weights_only=True: PyTorch before 2.6 unpickles by default.",
    "numpy.load": " Leave allow_pickle False, numpy's default.",
}
_CODE_STRING_ADVICE = (
    " A string written in the source is reported too when it holds a dangerous call, names one the "
    "module binds, or does not parse: the call hides in the string."
)
_ALONE = " (Judged from this statement alone: the file's new text was not available or does not parse.)"


def _python_message(found: Found, *, alone: bool) -> str:
    if found.exported:
        what = (
            f"{found.call} is bound to `{found.exported}` at the module's top level and not used here: "
            "whatever imports it from this module and calls it"
        )
    elif found.construct is PyConstruct.ATTRIBUTE:
        what = (
            f"Reads an attribute of {found.call} by a name computed at run time, which can be any of its "
            f"functions ({held_example(found.call)} among them):"
        )
    elif found.handed_on:
        what = f"{found.call} is handed on as a value, and whatever calls it"
    else:
        what = f"{found.call}()"
    if found.call in NATIVE_RUNS:
        advice = _NATIVE_RUN_ADVICE
    else:
        advice = _PYTHON_ADVICE[found.construct] + _CALL_ADVICE.get(found.call, "")
        advice += _CODE_STRING_ADVICE if found.call in CODE_STRINGS else ""
    return f"{what} {advice} {_OVERRIDE}" + (_ALONE if alone else "")


@cache
def _own_prefilter() -> Prefilter:
    return Prefilter(PREFILTER_GROUPS)


def worth_parsing(file: AddedFile, prefilter: Prefilter | None = None) -> bool:
    """Whether a Python file's text can hold a construct (pywords.py): its new text, when known and
    the file is not new, else its added text (a new file's added text is all of it). `prefilter`
    must hold PREFILTER_GROUPS (by default, one of its own)."""
    if file.head is not None and file.file.status is not FileStatus.ADDED:
        return may_hold(words_in(file.head))
    trigger = prefilter or _own_prefilter()
    present: set[int] = set()
    for fragment in file.fragments:
        present.update(trigger.present(fragment, TRIGGER))  # `words_of` the fragment's bytes
        if not fragment.data.isascii():
            present.update(normalized_words(fragment.text))
    return may_hold(present)


def _whole_file(
    file: AddedFile,
    tree: ast.Module,
    elsewhere: Callable[[str], bool],
    resolver: Resolver | None = None,
    inspected: set[str] | None = None,
) -> Iterator[Violation]:
    numbers = file.fragments[0].numbers
    head = file.head
    fixed = None if head is None else cache(lambda: fixed_loop_names(tree, head, elsewhere))
    if len(file.fragments) == 1 and isinstance(numbers, range) and file.head_lines is None:
        added: Container[int] = numbers  # a new file: every line is added
        found_on = python_constructs(tree, resolver=resolver, fixed=fixed, inspected=inspected)
    else:
        added = file.added_numbers()
        lines = file.head_lines
        on = sorted(added) if lines is None else [i for i, n in enumerate(lines, start=1) if n in added]
        found_on = python_constructs(tree, lines=on, resolver=resolver, fixed=fixed, inspected=inspected)
    for found in found_on:
        spanned = (file.diff_line(n) for n in range(found.line, found.end_line + 1))
        on_added = next((n for n in spanned if n in added), None)
        if on_added is not None:
            message = _python_message(found, alone=False)
            yield Violation(RuleId.DANGEROUS, file.path, on_added, message, found.construct.value)


# A statement that can bind a name: an import, or an assignment (not a comparison's `=`).
_IMPORTS = lazy(r"\bimport\b")
_BINDS = lazy(r"\bimport\b|(?<![=!<>])=(?!=)")
_BINDINGS = (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.ClassDef)


def _calls_alone(statement: str, first_line: int, leading: frozenset[str]) -> ast.Module | None:
    """The calls of a statement that does not parse alone whose called expression names a trigger
    word or a leading name, each parsed alone."""
    body = calls_alone(statement, first_line, lambda called: _names_a_call(called, leading))
    return ast.Module(body=body, type_ignores=[]) if body else None


def _names_a_call(called: str, leading: frozenset[str]) -> bool:
    return _CALL_WORDS().search(called) is not None or not leading.isdisjoint(_WORD.findall(called))


@dataclass(frozen=True, slots=True)
class _Statement:
    line: int  # its first line's number in the text
    text: str
    holds: bool  # names the words a dangerous call needs (pywords.py)
    names: frozenset[str]  # every word, as Python reads names
    in_class: str | None  # the class whose body it is a statement of (`pystatements.in_class_bodies`)


def _statements_of(text: str) -> list[_Statement]:
    numbered = statements(text)
    return [
        _Statement(line, statement, may_hold(words_in(statement)), _names_of(statement), in_class)
        for (line, statement), in_class in zip(numbered, in_class_bodies(numbered), strict=True)
    ]


def _names_of(statement: str) -> frozenset[str]:
    return frozenset(_WORD.findall(unicodedata.normalize("NFKC", statement)))


def _could_hold(statement: _Statement, leading: frozenset[str]) -> bool:
    return statement.holds or not leading.isdisjoint(statement.names)


def _resolver_alone(statements: Sequence[_Statement]) -> Resolver:
    """How names resolve through the imports and assignments of statements parsed alone, read in
    source order as Python binds them: every import, and each assignment naming a word that leads
    to a dangerous call or a name bound before by one (`b = builtins`, then `f = b.exec`)."""
    bindings: list[ast.stmt] = []
    bound: set[str] = set()  # names that may lead somewhere: those imports make lead, every other read
    for statement in statements:
        imports = _IMPORTS().search(statement.text) is not None
        if not _BINDS().search(statement.text) or not (imports or _could_hold(statement, frozenset(bound))):
            continue
        # A class body's binding is its class's attribute too (`A.run`, `self.run`), as in the whole file.
        tree = parsed_alone(statement.text, statement.line, in_class=statement.in_class)
        read: list[ast.stmt] = []
        if tree is not None:
            read.extend(s for s in every_statement(tree) if isinstance(s, _BINDINGS))
        bindings.extend(read)
        bound.update(_may_lead(read))
    return Resolver(ast.Module(body=bindings, type_ignores=[]), whole=False)


def _may_lead(read: list[ast.stmt]) -> Iterator[str]:
    """The names imports make lead to a dangerous call, and every name an assignment binds (what
    its value names may have been bound to lead somewhere before)."""
    yield from leading_names(Resolver(ast.Module(body=read, type_ignores=[]), whole=False))
    for statement in read:
        yield from (
            n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        )


def _statements_alone(file: AddedFile, text: str, diff_line: Callable[[int], int]) -> Iterator[Violation]:
    """Each statement of `text` (its lines numbered in the diff by `diff_line`) that could hold a
    construct on an added line, parsed alone, its names resolved through the text's imports and
    assignments parsed alone (`pystatements.py`)."""
    statements = _statements_of(text)
    resolver = _resolver_alone(statements)
    # A statement naming what the bindings make lead to a dangerous call is read whatever else it
    # names (`run(cmd)` after `from os import system as run`).
    leading = frozenset(leading_names(resolver))
    added = file.added_numbers()
    for statement in statements:
        line = statement.line
        lines = range(line, line + statement.text.count("\n") + 1)
        if not any(diff_line(n) in added for n in lines) or not _could_hold(statement, leading):
            continue
        # A class body's binding is an attribute, handed on as a value, as in the whole file.
        alone = parsed_alone(statement.text, line, in_class=statement.in_class)
        tree = alone or _calls_alone(statement.text, line, leading)
        if tree is None:
            continue
        for found in python_constructs(tree, whole=False, resolver=resolver):
            spanned = (diff_line(n) for n in range(found.line, found.end_line + 1))
            on_added = next((n for n in spanned if n in added), None)
            if on_added is not None:
                message = _python_message(found, alone=True)
                yield Violation(RuleId.DANGEROUS, file.path, on_added, message, found.construct.value)


def _alone(file: AddedFile) -> Iterator[Violation]:
    """Without a syntax tree of the file: its statements alone, read from its new text when known
    (brackets opened on lines the change keeps count), else from each hunk's added lines."""
    if file.head is not None:
        yield from _statements_alone(file, file.head, file.diff_line)
        return
    for fragment in file.fragments:
        yield from _statements_alone(file, fragment.text, _numbered(fragment.numbers))


def _numbered(numbers: Sequence[int]) -> Callable[[int], int]:
    return lambda line: numbers[line - 1]


_WORD = re.compile(r"\w+")


class _AddedNames:
    """Which files of the change add a line naming each word (as Python reads names), read once for
    the whole change when first asked: another module may rebind a module's constant
    (`module.NAMES = …`), which no reading of one file sees. Every changed file counts, those
    excluded from the rule too."""

    def __init__(self, added: Sequence[AddedFile]) -> None:
        self._added = added
        self._paths: dict[str, set[str]] | None = None

    def elsewhere(self, path: str, name: str) -> bool:
        """Whether a file other than `path` adds a line naming `name`."""
        if self._paths is None:
            self._paths = defaultdict(set)
            for file in self._added:
                for fragment in file.fragments:
                    for word in set(_WORD.findall(unicodedata.normalize("NFKC", fragment.text))):
                        self._paths[word].add(file.path)
        return any(other != path for other in self._paths.get(name, ()))


def _selected(file: AddedFile, head: str, elsewhere: Callable[[str], bool]) -> list[Violation] | None:
    """The findings of the file, from its statements that can matter (pyselect.py); None when the
    selection cannot say or does not parse (the caller parses the whole file). Where the whole file
    parses, these are exactly its findings. Where it does not (a syntax error elsewhere, or syntax
    newer than this Python's), the statements that can hold a construct did parse, so their syntax
    tree says more than judging each added line alone would. A builtin that only inspects what it
    is given (`print(eval)`) hands it on where the module binds that name itself, which the
    selection does not follow: such a file is parsed whole. A subprocess call spreading a name
    (`**options`) is judged by the mappings its scope assigns that name (a dict display, or a call
    of what `dict` is): every statement that assigns it, or the key, names it, and every one that
    binds `dict` names that, so the selection made again with those words keeps them all, in order,
    and judges the call as the whole file does."""
    found = selected(head)
    if found is None or found.tree is None:
        return None
    inspected: set[str] = set()
    violations = list(_whole_file(file, found.tree, elsewhere, found.resolver, inspected))
    spread = frozenset(entry.removeprefix(SPREAD) for entry in inspected if entry.startswith(SPREAD))
    if not spread or len(spread) < len(inspected):
        return None if inspected else violations
    found = selected(head, also=spread | {"dict"})
    if found is None or found.tree is None:
        return None
    inspected.clear()
    violations = list(_whole_file(file, found.tree, elsewhere, found.resolver, inspected))
    return None if inspected - {SPREAD + name for name in spread} else violations


def _encoding(file: AddedFile) -> Iterator[Violation]:
    """A declared source encoding other than UTF-8, on the added line that declares it."""
    declared = file.encoding
    if declared is None or declared.utf8 or declared.line not in file.added_numbers():
        return
    read = "with that codec" if declared.codec is not None else "with a codec Python does not know"
    message = (
        f"Declares its source encoding as {declared.name!r} (PEP 263): Python decodes the file {read}, "
        "so the code it runs is not the text reviewers, editors and most tools show (under UTF-7, "
        "`+AGUAdgBhAGw-(x)` is eval(x)). Save the file as UTF-8 and remove the declaration, or "
        f"declare utf-8. {_OVERRIDE}"
    )
    yield Violation(RuleId.DANGEROUS, file.path, declared.line, message, SOURCE_ENCODING)


def _python(
    file: AddedFile, *, select: bool, prefilter: Prefilter | None, elsewhere: Callable[[str], bool]
) -> Iterator[Violation]:
    yield from _encoding(file)
    if not worth_parsing(file, prefilter):
        return
    if select and file.head is not None:
        found = _selected(file, file.head, elsewhere)
        if found is not None:
            yield from found
            return
    tree = _parse(file.head) if file.head is not None else None
    if tree is not None:
        yield from _whole_file(file, tree, elsewhere)
        return
    yield from _alone(file)


def _text(file: AddedFile) -> Iterator[Violation]:
    from bot.engine.content.textconstructs import text_constructs  # a change of Python only needs none

    for finding in text_constructs(file):
        message = f"{finding.construct.message} {_OVERRIDE}"
        yield Violation(RuleId.DANGEROUS, file.path, finding.line, message, finding.construct.id)


@dataclass(frozen=True, slots=True)
class DangerousRule:
    """`content.dangerous`: eval, shell injection, unsafe deserialisation and the like.

    `parse_whole_files` parses every candidate Python file whole instead of its statements that can
    matter: the reference the selection is tested against, with the same findings. `prefilter`, the
    registry's shared one, must hold PREFILTER_GROUPS."""

    parse_whole_files: bool = False
    prefilter: Prefilter | None = None

    one_pass: ClassVar[bool] = False

    def scan(
        self,
        change: Change,
        manifest: Manifest,
        files: Sequence[AddedFile] | None = None,
        added: Sequence[AddedFile] | None = None,
    ) -> Iterator[Violation]:
        if not manifest.content.dangerous:
            return
        names = _AddedNames(added_files(change) if added is None else added)
        for file in read_files(change, manifest, "dangerous", files):
            if file.kind is Kind.DOCUMENT:
                continue
            python = file.kind is Kind.PYTHON
            elsewhere = partial(names.elsewhere, file.path)
            select = not self.parse_whole_files
            found = list(
                _python(file, select=select, prefilter=self.prefilter, elsewhere=elsewhere)
                if python
                else _text(file)
            )
            yield from capped(
                found, rule=RuleId.DANGEROUS, path=file.path, what="dangerous construct(s)", more_id="more"
            )

"""The statements of a Python module that can hold or change a dangerous call, found in one pass over
its text, so that `dangerous` parses those instead of the whole file.

What `python_constructs` finds in a whole module depends on three things only:
- its calls whose function resolves to one of DANGEROUS_CALLS (`m.f`, or a builtin `f`);
- its imports, wherever they are (what each name stands for; the last import of a name wins);
- the names it assigns something that leads to such a call (`e = eval`, `o = os`, `m =
  sys.modules["os"]`, `g = getattr`: LEADS_TO), wherever the assignment is, and the names it binds
  at its top level, of which only those of builtins it judges (eval, exec, __import__, getattr)
  change a verdict, and binding one names it (and those of builtins that only inspect what they
  are given, `print(eval)`, which `dangerous` does not leave to the selection).
A call or an assignment that leads somewhere names, in its code, a word of a call that
leads somewhere (`eval`, `getattr`; `system` when `os`, `posix` or `nt` is named, `modules` when
`sys` is: the attribute after a module), or a name that stands for a module or such a call used
other than by an attribute (`o = os`, `run(cmd)`, `m["os"]`; an attribute of it reaches somewhere
only through one of those words). So a statement matters when its code names one of those; but a
call of `getattr` reaches somewhere only through what its arguments name (`getattr(os, "system")`:
`os`), which makes its statement matter anyway, so the call alone makes one matter only in
module-level code outside a definition, where it can stand in a binding's target and bind the name
`getattr` for the module (`d[getattr(k)] = v`). An
import binds names to what it spells: one that names none of those words (an attribute's included:
`import os.path` binds `os`), no word of WORDS and no name of IMPORT_DECIDES (a builtin or loader
whose verdict goes by its name: `from log import print`, `from x import SafeLoader as L`) binds
names that lead nowhere, whether it is there or not, so it matters only when it names one. The
names imports and assignments make stand for something that leads somewhere are read from the
syntax tree of the selection (`leading_names`), and the selection is made again with them until it
learns no name and no module it did not know: then every assignment the whole file's tree
remembers is in the selection, resolved the same (by induction in source order: what its value
names is a known name, so it was kept), and so is every call it reports. A chain that needs more
than _ROUNDS rounds is left to the caller, which parses the whole file. Code that does not name
the words a dangerous call needs (pywords.py; the trigger read them in strings or comments too)
keeps nothing: its syntax tree, whole, holds no such call.
A top-level statement that does not matter is replaced by empty lines; one that does is kept,
and so is each header of a compound statement (with its decorators and its `else`/`except`/...
clauses), whose body is selected the same way, a statement that does not matter becoming `pass`
(a run of them in one block, one `pass` and empty lines: the parser's time goes by the text it reads).
Every kept line keeps its number and its columns, so the calls it holds are the nodes the whole
file's syntax tree would give, resolved through the same imports and bindings.

Statements are told apart the way the tokenizer does: a line starts a statement at a block's
indentation when it starts outside a string, at bracket depth 0, after a line that does not end in a
backslash; `else`, `elif`, `except` and `finally` continue the statement before, and so does the
line after a decorator. Blocks are entered only in a file whose code holds no tab or form feed, and
never a `match` statement (its cases cannot become `pass`); a statement shorter than _WHOLE_BELOW
is kept whole, as parsing it costs less than reading it. This holds for a file that parses. Of one
that does not (a syntax error elsewhere, or syntax newer than this Python's) the selection keeps the
statements that can matter as this reading finds them, and the caller judges each added line alone
if they do not parse either. Where a reading could be wrong the answer is None: code (outside
strings and comments) that is not ASCII (an identifier is NFKC-normalized, so `ｅｖａｌ` is `eval`),
a lone carriage return (a line break to Python, not to the diff), and a template string (f-string,
t-string) whose fields hold a quote (but in a nested one-line string), a `#` (but in the format spec
of a name or call), a backslash, a line break or braces two deep: Python 3.12 can read those
differently from 3.11. A template string's fields are code: their words count as the statement's.

The string-and-comment pattern matches at every quote or `#` it starts on (an unterminated string
runs to the end of its line, or of the text) and its loops are possessive, so that pass is linear
in the text; the word patterns run on RE2.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache
from typing import Any

from bot.engine.content.pyconstructs import (
    IMPORT_DECIDES,
    LEADING_CALLS,
    LEADS_TO,
    NAME_READERS,
    NAMESPACE_WORDS,
    REACHED_MODULES,
    Resolver,
    leading_names,
    resolver_of,
    stored_names,
)
from bot.engine.content.pywords import WORDS, may_hold, words_of
from bot.engine.lazyre import lazy
from bot.engine.regex import compile_named

_ESCAPE = r"\\(?:\r\n|.)"
STRING_OR_COMMENT = re.compile(
    r"(#[^\r\n]*+"
    rf"|'''[^'\\]*+(?:(?:{_ESCAPE}|'(?!''))[^'\\]*+)*+(?:'''|.*)"
    rf'|"""[^"\\]*+(?:(?:{_ESCAPE}|"(?!""))[^"\\]*+)*+(?:"""|.*)'
    rf"|'[^\n'\\]*+(?:{_ESCAPE}[^\n'\\]*+)*+'?"
    rf'|"[^\n"\\]*+(?:{_ESCAPE}[^\n"\\]*+)*+"?)',
    re.DOTALL,
)
_TEMPLATE_PREFIX = frozenset("fFtT")
_RAW_PREFIX = frozenset("rR")
_PREFIX_ENDS = _TEMPLATE_PREFIX | _RAW_PREFIX
# Fields of a template string whose extent every Python version agrees on: no quote but inside a
# nested one-line string, no backslash, no line break, no `#` (3.12 reads a comment there) but in the
# format spec of a dotted name or call without a colon before it (`{id(self):#x}`); braces nested one
# level deep (`{x:>{width}}`, `{ {1: 2}[k] }`).
_NESTED_STRING = r"'[^'\\\r\n]*+'" + "|" + r'"[^"\\\r\n]*+"'
_FIELD_PART = r"""[^{}'"#\\\r\n]|""" + _NESTED_STRING
_FIELD = (
    r"""\{[\w.]++(?:\([^(){}\[\]:'"#\\\r\n]*+\)[\w.]*+)*+(?:![rsa])?:[^{}'"\\\r\n]*+\}"""
    rf"|\{{(?:{_FIELD_PART}|\{{(?:{_FIELD_PART})*+\}})*+\}}"
)
_FIELDS = lazy(_FIELD)
_TEMPLATE_BODY = lazy(rf"(?:[^{{}}\\]|\\[^{{}}]|\\(?=[{{}}])|\{{\{{|\}}\}}|{_FIELD})*+", re.DOTALL)
_WORD = lazy(r"\w+")
# Before each word of a template string's fields: a blank to the statement reader, and a mark that
# the word's punctuation is gone (so `{os.system(c)}` is no bare `os`).
_FIELD_WORD = "\x02"
_LONE_CR = lazy(r"\r(?!\n)")
# A line break inside a string: the next line starts with \x01, so it never starts a statement.
_BREAK = "\n\x01"

_CONTINUED = ("\\\n", "\\\r\n")  # a line that ends in a backslash continues on the next
_CLAUSE = re.compile(r"(?:else|elif|except|finally)\b")
_MATCH = lazy(r"match\b")


def _opens_template(before: str) -> bool:
    """Whether a string after the code `before` is a template string: its prefix (`f`, `rf`, `fR`,
    `t`...) ends `before`. A name that merely ends so (`if'x'`) is read as one too, which is safe."""
    last = before[-1:]
    return last in _TEMPLATE_PREFIX or (last in _RAW_PREFIX and before[-2:-1] in _TEMPLATE_PREFIX)


def _template_words(span: str) -> str | None:
    """The words of a template string's fields, each after a blank; None if unsure (see above)."""
    quote = span[:3] if span[:3] in ("'''", '"""') else span[0]
    if len(span) < 2 * len(quote) or not span.endswith(quote):
        return None  # unterminated: the file does not parse
    body = span[len(quote) : -len(quote)]
    if _TEMPLATE_BODY().fullmatch(body) is None:
        return None
    return "".join(_FIELD_WORD + word for word in _WORD().findall("".join(_FIELDS().findall(body))))


def _code(text: str) -> str | None:
    """A line break, then `text` line for line, with comments removed and each string replaced by
    `S` (a template string: `S` and the words of its fields) and its line breaks; None if unsure
    (see above)."""
    if "\r" in text and _LONE_CR().search(text):
        return None
    pieces = STRING_OR_COMMENT.split(text)
    spans = pieces[1::2]
    # Tens of thousands of strings and comments in a large module: replaced in comprehensions, and
    # only the few strings after a prefix letter looked at again.
    pieces[1::2] = ["" if span[0] == "#" else "S" + _BREAK * span.count("\n") for span in spans]
    for index in range(1, len(pieces), 2):
        if pieces[index - 1][-1:] not in _PREFIX_ENDS or spans[index // 2][0] == "#":
            continue
        if _opens_template(pieces[index - 1]):
            words = _template_words(spans[index // 2])
            if words is None:
                return None
            pieces[index] = pieces[index][:1] + words + pieces[index][1:]
    code = "".join(["\n", *pieces])  # a line break before every line, the first one too
    return code if code.isascii() else None


def _words_by_module() -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """The words a call that can lead to a dangerous one names whatever the module holds (`eval`,
    `getattr`), and those it names only when a module is named too (`system` needs `os`, `posix` or
    `nt`; `modules`, `sys`): the attribute after each module that leads somewhere."""
    always: set[str] = set()
    gated: defaultdict[str, set[str]] = defaultdict(set)
    for name in (*LEADING_CALLS, *LEADS_TO):
        parts = name.split(".")
        if len(parts) == 1 and name in LEADING_CALLS:
            always.add(name)
        elif len(parts) > 1:
            gated[parts[0]].add(parts[1] if name in LEADS_TO and name not in LEADING_CALLS else parts[-1])
    always.update(NAMESPACE_WORDS)  # `globals()["run"]` is `run`, whatever the module makes it
    always.update(NAME_READERS)  # `os.__getattribute__("system")` names `system` in a string only
    gated["__builtins__"] = set(gated["builtins"])
    for words in gated.values():  # a name read from the module's dict: `vars(os)["system"]`
        words.update(("__dict__", "vars"))
    return frozenset(always), {module: frozenset(words) for module, words in gated.items()}


_ALWAYS, _GATED = _words_by_module()


def modules_named(present: set[int]) -> set[str]:
    """The modules of `_GATED` among the words of WORDS at the indexes `present` (`words_of` of the
    code: one RE2 set pass, in which a thousand `os` in a large module are not each a match to hand
    back)."""
    return {WORDS[index] for index in present}.intersection(_GATED)


# Names that lead somewhere when used other than by an attribute (`o = os`, `m = sys.modules`,
# `b["eval"]`), as the modules are spelled, also as another module's attribute (`c = helpers.os`:
# REACHED_MODULES); an import under another name adds its own, and so does an import of a module
# not reached that way (`import code`: `code` is a common variable's name, bare only once imported).
_BARE = frozenset(_GATED).intersection(REACHED_MODULES | {"__builtins__"})


def _words_pattern(words: frozenset[str]) -> Any:
    """What makes a statement matter wherever it stands: one of `words` (RE2); the definition of
    `_CALLED`, when it is one of them, from its `def` or `class`."""
    defined = rf"|\b(?:def|class)[ \t]+{_CALLED}\b" if _CALLED in words else ""
    return compile_named(rf"\b(?:{'|'.join(sorted(words))})\b{defined}")


# `getattr` called leads somewhere only through what its arguments name (`getattr(os, "system")`:
# `os`), which makes its statement matter by itself; the call alone matters only in module-level
# code outside a definition, where it can stand in a binding's target (`d[getattr(k)] = v` binds
# `getattr` for the module, as `_module_bindings` reads targets). Not called (`g = getattr`,
# `def getattr`, `global getattr`), it matters wherever it stands.
_CALLED = "getattr"
_CALL_AFTER = re.compile(rb"[ \t]*\(")
_DEFINITION = re.compile(r"@|(?:async[ \t]+)?def\b|class\b")


def _bare_pattern(names: frozenset[str]) -> Any:
    """One of `names` not followed by an attribute (RE2). (An attribute of what a name stands for
    leads somewhere only through a word of `_GATED`, which matters wherever it stands.)"""
    return compile_named(rf"\b(?:{'|'.join(sorted(names))})\b[ \t]*(?:[^ \t.]|\z)")


# `import`, as a literal first (a search ten times faster than after `\b`): a name ending in it
# (`reimport`) only has its statement looked at.
_IMPORT = lazy(rb"import(?!\w)")
# What follows an `import` up to the end of its line or its closing bracket, and in it a name
# imported under another (`os as _os`), read off the code before anything is parsed.
_IMPORTED = lazy(r"import(?!\w)[ \t]*(?:\([^)]*+\)|[^\n;]*+)")
_AS = lazy(r"(\w+)[ \t]+as[ \t]+(\w+)")
# The words of the names that lead somewhere (`os`, `system`, `Popen`): imported under another
# name, one makes that name lead somewhere too.
_LEADING_PARTS = frozenset(part for name in LEADS_TO for part in name.split("."))
# The modules named like a common variable (`code`, `types`), bare only where imported as such.
_IMPORTED_BARE = frozenset(_GATED) - _BARE
_IMPORTED_BARE_NAME = lazy(rf"\b(?:{'|'.join(sorted(_IMPORTED_BARE))})\b")
# What else an import can bind that changes a finding (see above).
_IMPORTS_MATTER = frozenset(WORDS) | IMPORT_DECIDES


@cache
def _line_at(indent: str, *, deeper: bool = False) -> re.Pattern[str]:
    """A line break, then a line whose first character is at `indent` (or, `deeper`, after it) and
    outside a string. (A literal line break first is much faster than `^`.)"""
    return re.compile(f"\\n{indent}{' +' if deeper else ''}[^\\s\\x01]")


# Opening brackets become `(`, closing ones `)`, anything else a blank: two counts give a depth.
_BRACKETS = bytes(
    ord("(") if byte in b"([{" else ord(")") if byte in b")]}" else ord(" ") for byte in range(256)
)
# A statement this small is kept whole rather than read block by block: parsing it costs less.
_WHOLE_BELOW = 256


def _within(offsets: list[int], start: int, end: int) -> bool:
    """Whether one of `offsets` (ascending) is in [start, end)."""
    index = bisect_left(offsets, start)
    return index < len(offsets) and offsets[index] < end


class _Selection:
    """Which lines of one module's code to keep (`spans`, in text order) and which become `pass`."""

    def __init__(
        self,
        code: str,
        data: bytes,
        words: list[int],
        *,
        calls: list[int],
        imports: list[int],
        imported: frozenset[str],
        enter_blocks: bool,
    ) -> None:
        self.code = code
        self.brackets = data.translate(_BRACKETS)
        self.words = words  # offsets of the words that make a statement matter, ascending
        self.calls = calls  # offsets of the calls that matter in module-level code (`_CALLED`)
        self.imports = imports  # offsets of `import`, ascending
        self.hits = sorted(words + calls + imports)  # where a statement may matter
        self.imported = imported  # the names that make an import matter
        self.enter_blocks = enter_blocks
        self.spans: list[tuple[int, int, str | None]] = []  # (start, end, None) kept; (start, 0, indent) pass

    def matters(self, start: int, end: int, indent: str, *, module: bool) -> bool:
        """Whether the statement [start, end) at `indent` names a word, or (`module`: it stands in
        module-level code) is no definition and holds a call of `_CALLED`."""
        if _within(self.words, start, end):
            return True
        return module and _within(self.calls, start, end) and not self.defines(start, indent)

    def defines(self, start: int, indent: str) -> bool:
        """Whether the statement or part at `start` is a definition (or its decorator)."""
        return _DEFINITION.match(self.code, start + len(indent)) is not None

    def imports_that_matter(self, start: int, end: int, indent: str) -> bool:
        """Whether [start, end), which names none of the words, holds an import naming one of the
        names that make it matter: looked for in a statement kept whole or without a body; one read
        block by block holds the import in its block, where it is looked for."""
        if not _within(self.imports, start, end):
            return False
        if self.whole(start, end, indent) or self.body(start, end, indent) is None:
            return not self.imported.isdisjoint(_WORD().findall(self.code, start, end))
        return True

    def body(self, start: int, end: int, indent: str) -> tuple[int, int] | None:
        """The first line of the body of the statement [start, end) at `indent`, if it has one."""
        return next(self.logical_lines(start, end, _line_at(indent, deeper=True)), None)

    def whole(self, start: int, end: int, indent: str) -> bool:
        """Whether the statement [start, end) at `indent` is kept whole, if kept, rather than read
        block by block."""
        if not self.enter_blocks or end - start < _WHOLE_BELOW:
            return True
        return _MATCH().match(self.code, start + len(indent)) is not None

    def logical_lines(self, start: int, end: int, line: re.Pattern[str]) -> Iterator[tuple[int, int]]:
        """Each line in [start, end) that `line` matches and that starts a logical line (bracket depth
        0, no backslash before its line break), as (offset, offset of its first character). `start`
        must itself start a logical line."""
        code = self.code
        count = self.brackets.count
        depth = 0
        done = start
        for match in line.finditer(code, start - 1, end):
            at = match.start() + 1
            depth += count(b"(", done, at) - count(b")", done, at)
            done = at
            if depth == 0 and not code.endswith(_CONTINUED, start, at):
                yield at, match.end() - 1

    def statements(self, start: int, end: int, indent: str) -> list[list[int]]:
        """The statements in [start, end) at `indent`, each as the offsets of its parts: its first
        line, then each clause (`else:`, `except ...:`) and, after decorators, the definition."""
        statements: list[list[int]] = []
        after_decorator = False
        code = self.code
        for at, first in self.logical_lines(start, end, _line_at(indent)):
            opening = code[first]
            if statements and (after_decorator or (opening in "ef" and _CLAUSE.match(code, first))):
                statements[-1].append(at)
            else:
                statements.append([at])
            after_decorator = opening == "@"
        return statements

    def block(self, start: int, end: int, indent: str, *, module: bool) -> None:
        """Select among the statements of the block [start, end), at `indent` (`module`: in
        module-level code, outside any definition)."""
        hits = self.hits
        hit = bisect_left(hits, start)  # the first hit not before the statement read
        if hit == len(hits) or hits[hit] >= end:  # no statement matters: one `pass`
            if indent:
                self.spans.append((start, 0, indent))
            return
        statements = self.statements(start, end, indent)
        passed = False  # the statement before became `pass`, which stands for this one too
        for index, parts in enumerate(statements):
            stop = statements[index + 1][0] if index + 1 < len(statements) else end
            while hit < len(hits) and hits[hit] < parts[0]:
                hit += 1
            held = hit < len(hits) and hits[hit] < stop  # a word, call or import: it may matter
            if not held or (
                not self.matters(parts[0], stop, indent, module=module)
                and not self.imports_that_matter(parts[0], stop, indent)
            ):
                if indent and not passed:
                    self.spans.append((parts[0], 0, indent))
                passed = True
                continue
            passed = False
            if self.whole(parts[0], stop, indent):
                self.spans.append((parts[0], stop, None))
                continue
            for part, part_stop in zip(parts, [*parts[1:], stop], strict=True):
                self.part(part, part_stop, indent, module=module)

    def part(self, start: int, end: int, indent: str, *, module: bool) -> None:
        """A header with its body (selected in turn), or a line without one (kept whole)."""
        body = self.body(start, end, indent)
        if body is None:
            self.spans.append((start, end, None))
            return
        self.spans.append((start, body[0], None))
        inner = module and not self.defines(start, indent)
        self.block(body[0], end, self.code[body[0] : body[1]], module=inner)


# A file whose names lead to one another in a long chain (`a = eval`, `b = a`, ...) learns one link
# a round: past this many, the caller parses it whole. So it does past this many names, which would
# make the patterns that look for them large, and when the selection keeps half the text.
_ROUNDS = 4
_MOST_NAMES = 512


def parse_module(source: str) -> ast.Module | None:
    """The syntax tree of `source`, or None where this Python cannot build it."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@dataclass(frozen=True, slots=True)
class Selected:
    """The selected statements (`source`, every line keeping its number), their syntax tree (None
    when that does not parse) and how its names resolve."""

    source: str
    tree: ast.Module | None = None
    resolver: Resolver | None = None


def selected(text: str, also: frozenset[str] = frozenset()) -> Selected | None:
    """`text` with every statement that cannot hold or change a dangerous call blanked (see above);
    None when unsure. The names its imports and assignments make lead somewhere are learnt from the
    syntax tree of the selection, and the selection made again with them until it learns nothing
    new. A statement naming one of `also` is kept too (a word more only keeps more)."""
    code = _code(text)
    if code is None:
        return None
    data = code.encode("ascii")
    present = words_of(data)
    if not may_hold(present):
        # The code names none of the words a dangerous call needs (the trigger found them in its
        # strings or comments): nothing can be found, nothing is kept (pywords.py).
        empty = ast.Module(body=[], type_ignores=[])
        return Selected("\n" * text.count("\n"), empty, resolver_of(empty))
    modules = modules_named(present)
    words = _ALWAYS.union(also, *(_GATED[m] for m in modules))
    bare = _BARE | _imported_names(code, words)
    kept: Selected | None = None  # the round before's
    calls = False  # whether the resolvers follow values passed to parameters yet (see below)
    definitions: set[str] | None = None  # the functions the code defines, when first asked
    for _ in range(_ROUNDS):
        source = _source(text, code, data, words, bare)
        if kept is None or source != kept.source:
            # (Else what the round before learnt keeps nothing more: the same tree teaches the
            # same names, all now known.)
            tree = parse_module(source)
            if tree is None:
                return Selected(source)
            kept = Selected(source, tree, resolver_of(tree, calls=calls))
        resolver = kept.resolver
        assert resolver is not None  # a tree that parsed has one
        learnt = _learnt(resolver, modules, words, bare)
        if not any(learnt) and not calls:
            # Values passed to parameters are followed once the rounds know every other name:
            # reading every call costs a walk of the tree, which most rounds would only repeat.
            resolver.follow_calls()
            calls = True
            passing = resolver.passing - bare
            if passing and definitions is None:
                definitions = _definitions(code)
            learnt = _learnt(resolver, modules, words, bare, passing & (definitions or set()))
        roots, more, dicts = learnt
        if not roots and not more and not dicts:
            return kept
        if len(bare) + len(more) > _MOST_NAMES or 2 * len(source) > len(text):
            return None  # another round would cost more than parsing the whole file
        modules |= roots
        words = words.union(dicts, *(_GATED.get(m, ()) for m in roots))
        bare = bare | more
    return None


def _learnt(
    resolver: Resolver,
    modules: set[str],
    words: frozenset[str],
    bare: frozenset[str],
    called: AbstractSet[str] = frozenset(),
) -> tuple[set[str], set[str], set[str]]:
    """What the selection's syntax tree teaches beyond what it was made with: the modules its
    names stand for, the names that lead somewhere read other than by an attribute (`called`
    too: functions the code defines that a call passes such a value, whose definitions name the
    parameters given it), and the names read through `.get` or a container's methods."""
    names = leading_names(resolver)
    held = stored_names(resolver)
    roots = {target.split(".", 1)[0] for target in (*names.values(), *held.targets)} - modules
    more = (names.keys() | held.bare | called) - words - bare
    # A name for a module's dict leads somewhere through its `.get` too (`ns.get("system")`), and
    # so does a container through its methods.
    dicts = ({name for name, target in names.items() if target.endswith(".__dict__")} | held.words) - words
    return roots, more, dicts


def _definitions(code: str) -> set[str]:
    """The names the code defines as functions or assigns (`def run`, `run = lambda …`, `g = run`:
    a call of `g` is one of `run`)."""
    return {*_DEF().findall(code), *_ASSIGNED().findall(code)}


_DEF = lazy(r"def[ \t]+(\w+)")  # (`undef x` would add a name: it only keeps more)
_ASSIGNED = lazy(r"\b(\w+)[ \t]*=(?!=)")  # (`a.b = …`, `x == y` aside: only keeps more)


def _imported_names(code: str, words: frozenset[str]) -> frozenset[str]:
    """The names the imports of `code` seem to bind to what leads somewhere, beyond `words` (`_os`
    after `import os as _os`, `types` after `import types`), read off the code; none past
    _MOST_NAMES. The rounds would learn them from the syntax tree, one round later: any name
    given here only keeps more statements (whatever binds or uses it), and the rounds still stop
    only once the selection's own tree teaches them nothing new."""
    names: set[str] = set()
    for clause in _IMPORTED().findall(code):
        names.update(alias for name, alias in _AS().findall(clause) if name in _LEADING_PARTS)
        names.update(_IMPORTED_BARE_NAME().findall(clause))
    names -= words
    return frozenset(names) if len(names) <= _MOST_NAMES else frozenset()


def selected_source(text: str) -> str | None:
    """The text `selected` keeps, or None."""
    found = selected(text)
    return None if found is None else found.source


def _source(text: str, code: str, data: bytes, words: frozenset[str], bare: frozenset[str]) -> str:
    """`text` with the statements that name none of `words` (nor `bare` but by an attribute) blanked."""
    words_at: list[int] = []
    calls: list[int] = []  # `_CALLED` called (see there)
    called = _CALLED.encode()
    for at in [m.start() for m in _words_pattern(words).finditer(data)]:
        if data.startswith(called, at) and _CALL_AFTER.match(data, at + len(called)):
            calls.append(at)
        else:
            words_at.append(at)
    words_at = sorted(words_at + [m.start() for m in _bare_pattern(bare).finditer(data)])
    imports = [m.start() for m in _IMPORT().finditer(data)]
    imported = words | bare | _IMPORTS_MATTER
    enter = "\t" not in code and "\f" not in code
    selection = _Selection(
        code, data, words_at, calls=calls, imports=imports, imported=imported, enter_blocks=enter
    )
    selection.block(1, len(code), "", module=True)
    lines = text.split("\n")
    kept = [""] * len(lines)
    line = 0
    counted = 1
    for start, end, indent in selection.spans:
        line += code.count("\n", counted, start)
        counted = start
        if indent is not None:
            kept[line] = indent + "pass"
            continue
        last = line + code.count("\n", start, end) if end < len(code) else len(lines)
        kept[line:last] = lines[line:last]
        line, counted = last, end
    return "\n".join(kept)

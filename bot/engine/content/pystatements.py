r"""The statements of Python source that does not parse, found without the parser, so that a call
split over lines is still read whole (`eval(` then `x)`, `os.system(\` then `cmd)`).

The source is read as Python 3.12's tokenizer reads it (`pieces`): a template string (f-string,
t-string) is literal text and fields, and a field is code up to the brace that closes it, with
strings of any quote in it (PEP 701: `f"{"("}"` is a string holding a string, not an open bracket),
brackets, line breaks and comments; a format spec after a field's top-level colon is literal text
again, which may hold fields. A source that parses under 3.11 is read alike (3.11 forbade the quote
and the backslash these readings differ on). Other strings and comments are those pyselect.py
finds (an unterminated one-line string ends with its line; an unterminated triple-quoted one runs
on).

A logical line ends at a line break outside brackets and strings, and not after a backslash. A
bracket closed more often than opened counts as none, so one stray `)` cannot join the rest of the
file; one left open joins what follows it up to a line that only a statement can start (`def`,
`import`, `pass`...: no expression continues with one), and `calls_in` reads that a call at a time.
"""

from __future__ import annotations

import ast
import keyword
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from bot.engine.content.pyselect import STRING_OR_COMMENT, parse_module
from bot.engine.lazyre import lazy

# Where code can change what follows: a comment, a string's quote, a bracket, a line break, a
# continuation, and (in a template's field) the colon that starts a format spec.
_CODE = lazy(r"""#[^\r\n]*+|'''|\"\"\"|['"]|[(\[{)\]}:]|\\\r?\n|\n""")
_PREFIX = lazy(r"[A-Za-z]{1,2}\Z")
_TEMPLATE = frozenset("ft")
_PREFIXES = frozenset({"r", "u", "b", "br", "rb", "f", "fr", "rf", "t", "tr", "rt"})
# A template string's literal text up to a brace, a quote or a line break (an escaped one is text;
# a backslash before a brace is text and leaves the brace, which `\N{...}` is not, to open a field).
_LITERAL = lazy(r"""(?:[^{}\\'"\r\n]++|\\N\{[^{}\r\n]*+\}|\\(?:\r\n|[^{}])|\\(?=[{}]))*+""")
_RAW_LITERAL = lazy(r"""(?:[^{}\\'"\r\n]++|\\(?:\r\n|[^{}])|\\(?=[{}]))*+""")
_BREAKS = ("\r", "\n")
# A line that only a statement can start (no expression continued inside brackets does): a
# bracket still open before it was never closed, so what follows is read as Python recovers.
_STATEMENT_ONLY = lazy(
    r"[ \t\f]*(?:(?:def|class|import|return|pass|raise|try|while|with|del|assert|global|nonlocal"
    r"|break|continue|except|finally|elif)\b|from[ \t]+[\w.]+[ \t]+import\b)"
)
_DEFINED = lazy(r"\b(?:def|class)[ \t\f]+\Z")

OPEN, CLOSE, BREAK, STRING = "(", ")", "\n", "s"
Piece = tuple[int, int, str]
"""(start, end, kind): an opening or closing bracket, a line break, or a string's or comment's text."""


@dataclass(slots=True)
class _Frame:
    """A template string entered (`quote`), one of its fields (code, `depth` brackets deep), or a
    field's format spec (literal text again)."""

    kind: str  # "template", "field" or "spec"
    quote: str
    raw: bool
    depth: int = 0


def _prefix(text: str, quote: int) -> str:
    """A string's prefix, lower case: the word before its quote, when the whole word is one."""
    word = _PREFIX().search(text, max(0, quote - 2), quote)
    if word is None or (word.start() > 0 and _in_word(text[word.start() - 1])):
        return ""
    prefix = word.group().lower()
    return prefix if prefix in _PREFIXES else ""


def pieces(text: str) -> list[Piece]:
    """The brackets, line breaks, and strings and comments of `text`, in order, as Python 3.12
    reads them (a template string's fields are code; the field's braces are brackets)."""
    out: list[Piece] = []
    frames: list[_Frame] = []
    at = 0
    while at < len(text):
        top = frames[-1] if frames else None
        if top is not None and top.kind != "field":
            at = _literal(text, at, frames, out)
            continue
        found = _CODE().search(text, at)
        if found is None:
            break
        start, at = found.span()
        first = text[start]
        if first == "#":
            out.append((start, at, STRING))
        elif first in "'\"":
            at = _string(text, start, found.group(), frames, out)
        elif first in "([{":
            if top is not None:
                top.depth += 1
            out.append((start, at, OPEN))
        elif first in ")]}":
            if top is None or top.depth > 0:
                if top is not None:
                    top.depth -= 1
                out.append((start, at, CLOSE))
            elif first == "}":  # the field's end (a stray `)` or `]` in it closes nothing)
                frames.pop()
                out.append((start, at, CLOSE))
        elif first == ":":
            if top is not None and top.depth == 0:
                frames.append(_Frame("spec", top.quote, top.raw))
        elif first == "\n":
            out.append((start, at, BREAK))
    return out


def _string(text: str, quote: int, opening: str, frames: list[_Frame], out: list[Piece]) -> int:
    """Enter the string opening at `quote`: a template's literal text is read next; any other
    string is read whole. The offset reading goes on from."""
    prefix = _prefix(text, quote)
    if _TEMPLATE.isdisjoint(prefix):
        end = STRING_OR_COMMENT.match(text, quote)
        stop = len(text) if end is None else end.end()
        out.append((quote, stop, STRING))
        return stop
    frames.append(_Frame("template", opening, "r" in prefix))
    out.append((quote, quote + len(opening), STRING))
    return quote + len(opening)


def _literal(text: str, at: int, frames: list[_Frame], out: list[Piece]) -> int:
    """Read a template's literal text (or a format spec's) from `at`, up to what ends it: a field
    opening (`{`), a spec's or a field's end (`}`), the closing quote, or a line break in a one-line
    string (unterminated: the string ends with its line). The offset reading goes on from."""
    top = frames[-1]
    run = (_RAW_LITERAL if top.raw else _LITERAL)().match(text, at)
    end = at if run is None else run.end()
    if end > at:
        out.append((at, end, STRING))
    if end >= len(text):
        return len(text)
    char = text[end]
    if char in "'\"":
        if not text.startswith(top.quote, end):
            out.append((end, end + 1, STRING))
            return end + 1
        _leave_template(frames, end, out)
        out.append((end, end + len(top.quote), STRING))
        return end + len(top.quote)
    if char in "\r\n":
        if len(top.quote) == 3:
            out.append((end, end + 1, STRING))
            return end + 1
        _leave_template(frames, end, out)
        return end
    doubled = top.kind == "template" and text.startswith(char * 2, end)
    if doubled or (char == "}" and top.kind == "template"):  # `{{`, `}}`, or a stray `}`: text
        step = 2 if doubled else 1
        out.append((end, end + step, STRING))
        return end + step
    if char == "{":
        frames.append(_Frame("field", top.quote, top.raw))
        out.append((end, end + 1, OPEN))
    else:  # `}` ends a spec and its field
        del frames[-2:]
        out.append((end, end + 1, CLOSE))
    return end + 1


def _leave_template(frames: list[_Frame], at: int, out: list[Piece]) -> None:
    """End the innermost template string at `at`, closing the fields left open in it (a format
    spec's line break or quote ends the string, and so the fields around it)."""
    while (left := frames.pop()).kind != "template":
        if left.kind == "field":
            out.append((at, at, CLOSE))


def logical_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each logical line of `text`, without the line break that ends it."""
    spans: list[tuple[int, int]] = []
    depth = 0
    start = 0
    for at, end, kind in pieces(text):
        if kind == OPEN:
            depth += 1
        elif kind == CLOSE:
            depth = max(depth - 1, 0)
        elif kind == BREAK and (depth == 0 or _STATEMENT_ONLY().match(text, end)):
            spans.append((start, at))
            start = end
            depth = 0
    spans.append((start, len(text)))
    return spans


def calls_in(text: str) -> list[tuple[int, int, int]]:
    """(start, opening, end) of each call in `text` whose brackets close: from the start of the
    expression called (`os.system`, `(eval)`, `getattr(b, "exec")`, `__import__("os").popen`) to
    its opening bracket, and just past its closing one. A call after something that is not read
    here (`"text".eval(x)`, `1 .real()`) is left out, and so is a definition's parameter list."""
    calls: list[tuple[int, int, int]] = []
    starts: dict[int, int | None] = {}  # each opening bracket: where the expression it continues starts
    opened: dict[int, int] = {}  # each closing bracket: its opening one
    hidden_ends: set[int] = set()
    stack: list[int] = []
    for at, end, kind in pieces(text):
        if kind == OPEN:
            starts[at] = _continued(text, at, opened, starts, hidden_ends)
            stack.append(at)
        elif kind == CLOSE and stack:
            opening = stack.pop()
            opened[at] = opening
            start = starts[opening]
            if text[opening] == "(" and start is not None and start != opening:
                calls.append((start, opening, end))
        elif kind == STRING:
            hidden_ends.add(end)
    return calls


def _continued(
    text: str, bracket: int, opened: dict[int, int], starts: dict[int, int | None], hidden: set[int]
) -> int | None:
    """Where the expression the bracket at `bracket` continues (a call or subscript) starts: its
    dotted name, or the start of the bracket before it; `bracket` itself when it continues none (a
    parenthesized expression, a list); None when what it continues is not read here."""
    at, after_dot = bracket, False
    while True:
        end = _before_space(text, at)
        if end in hidden or end == 0:
            return None if after_dot else bracket
        if text[end - 1] in ")]}" and end - 1 in opened:
            return starts[opened[end - 1]]
        start = end
        while start > 0 and _in_word(text[start - 1]):
            start -= 1
        word = unicodedata.normalize("NFKC", text[start:end])
        if not word or keyword.iskeyword(word):
            return None if after_dot else bracket
        if word[0].isdigit():
            return None
        dot = _before_space(text, start)
        if dot > 0 and text[dot - 1] == "." and dot not in hidden:
            at, after_dot = dot - 1, True
            continue
        if not after_dot and _DEFINED().search(text, max(0, start - 16), start):
            return None
        return start


def _before_space(text: str, at: int) -> int:
    """The offset just past the last character before `at` that is not a blank, a line break or a
    continuation's backslash."""
    while at > 0 and (text[at - 1] in " \t\f\r\n" or (text[at - 1] == "\\" and text[at : at + 1] in _BREAKS)):
        at -= 1
    return at


def _in_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def statements(text: str) -> list[tuple[int, str]]:
    """Each logical line of `text` with the number of its first line."""
    numbered: list[tuple[int, str]] = []
    line = 1
    counted = 0
    for start, end in logical_lines(text):
        line += text.count("\n", counted, start)
        counted = start
        numbered.append((line, text[start:end]))
    return numbered


def in_class_bodies(numbered: list[tuple[int, str]]) -> list[str | None]:
    """For each of `statements`' logical lines, the name of the class whose body it is a statement
    of, else None: the nearest `class` or `def` header before it that is indented less (through
    `if`, `try`... blocks) is that class's header. (Blank lines and comments stand in no block.)"""
    enclosing: list[tuple[int, str | None]] = []  # each open block: its header's indentation, a class
    out: list[str | None] = []
    for _, statement in numbered:
        text = statement.lstrip(" \t\f")
        if not text.strip() or text.startswith("#"):
            out.append(None)
            continue
        indent = len(statement) - len(text)
        while enclosing and enclosing[-1][0] >= indent:
            enclosing.pop()
        in_class = enclosing[-1][1] if enclosing else None
        out.append(in_class)
        scope = _SCOPE().match(text)
        enclosing.append((indent, in_class if scope is None else scope.group(1)))
    return out


_SCOPE = lazy(r"class[ \t]+(\w+)|(?:async[ \t]+)?def\b")


def parsed_alone(statement: str, first_line: int, *, in_class: str | None = None) -> ast.Module | None:
    """One statement parsed alone at its place: as it is, as the header of a block (`if
    eval(x):`), or as a decorator (of a function), its line numbers those of the text it comes from;
    `in_class`, as a statement of the body of the class of that name (where a name bound is an
    attribute)."""
    text = statement.lstrip(" \t\f")
    indent, wrapped = (" ", f"class {in_class}:\n ") if in_class is not None else ("", "")
    tree = parse_module(wrapped + text)
    if tree is None and text.rstrip().endswith(":"):
        tree = parse_module(wrapped + text + " pass")
    elif tree is None and text.startswith("@"):
        tree = parse_module(f"{wrapped}{text}\n{indent}def _(): pass")
    if tree is not None:
        ast.increment_lineno(tree, first_line - 1 - wrapped.count("\n"))
    return tree


def calls_alone(statement: str, first_line: int, named: Callable[[str], bool]) -> list[ast.stmt]:
    """The calls of a statement that does not parse alone, each parsed alone (`calls_in`: from the
    start of the expression called to its closing bracket), those whose called expression `named`
    accepts (NFKC-normalized, as Python reads names). A call inside one read already is not read
    again."""
    body: list[ast.stmt] = []
    read_to = -1
    for start, opening, end in sorted(calls_in(statement), key=lambda call: (call[0], -call[2])):
        if end <= read_to or not named(unicodedata.normalize("NFKC", statement[start:opening])):
            continue
        tree = parse_module("(" + statement[start:end] + ")")
        if tree is not None:
            ast.increment_lineno(tree, first_line + statement.count("\n", 0, start) - 1)
            body.extend(tree.body)
            read_to = end
    return body

"""The paper's normalized Python tokens read off the source's own tokens, where `ast.unparse` writes
them alike.

The normalized view is `tokenize(ast.unparse(ast.parse(src)))` without comments and layout
(tokens.py). For most statements that is the source's significant tokens, each string and number
written as `repr` of its value, as unparse writes it. Unparsing walks the whole tree in Python and
costs more than the parse; this reads the tokens the written view scans anyway (pyscan.py) and
accepts them only where nothing that unparse rewrites can occur (`normalized_tokens` lists it):
grouping parentheses (dropped, or kept, by precedence), tuples it parenthesizes, trailing commas
it drops or keeps, `;` and one-line bodies, `else: if` (elif), docstrings, `class A():`,
arguments it reorders or parenthesizes, generator arguments, non-ASCII names (NFKC), `yield` and
`:=` (parenthesized by context), a slice's empty step, relative-import dots, f-strings, implicit
concatenation and escapes it does not decode here. Anything else returns None and the caller
unparses; tests compare both on every top-level statement of the standard library.

The source must parse (the caller checks): a valid program is what makes the local reading safe,
brackets matched and every keyword where the grammar puts it.
"""

from __future__ import annotations

import keyword
import sys
from token import EXACT_TOKEN_TYPES

from bot.engine.pyscan import indent_width

Tokens = tuple[str, ...]

_KEYWORDS = frozenset(keyword.kwlist)
_CONSTANTS = frozenset({"True", "False", "None"})
# A logical line opening a block; its line must end with the block's colon (no one-line body).
_COMPOUND = frozenset(
    {"if", "elif", "else", "while", "for", "try", "except", "finally", "with", "def", "class"}
)
# Statements whose commas at depth 0 unparse writes as commas too (not a tuple it parenthesizes).
_LISTS = frozenset({"import", "from", "global", "nonlocal", "del", "assert", "with"})
_REFUSED = frozenset({";", ":=", "<>", "yield", "\r\n"})  # CRLF: unparse's line breaks are LF
# Operators binding looser than a starred call argument's operand: unparse parenthesizes it.
_LOW = frozenset({"or", "and", "not", "if", "else", "lambda", "in", "is", "<", ">", "==", ">=", "<=", "!="})
_UNARY = frozenset({"-", "+", "~"})
_OPENERS = frozenset("([{")
_CLOSERS = frozenset(")]}")
_QUOTES = frozenset("'\"")
_INFINITY = "1e" + repr(sys.float_info.max_10_exp + 1)  # how unparse writes an infinite literal

# What a bracket holds; the statement itself is the outermost level.
_STATEMENT = 0
_CALL = 1  # a call's arguments
_CLASS = 2  # a class's bases
_PARAMS = 3  # a def's parameters
_SUBSCRIPT = 4
_DISPLAY = 5  # a list, set or dict display, or a comprehension
_IMPORTED = 6  # `from m import (a, b)`: unparse writes the names without the parentheses
_ARGUMENTS = frozenset({_CALL, _CLASS})

# `ast._Precedence` of 3.11, for the operators whose operands unparse may parenthesize.
_OR, _AND, _NOT, _CMP, _ATOM = 5, 6, 7, 8, 18
_PRECEDENCE = {
    "|": 9, "^": 10, "&": 11, "<<": 12, ">>": 12, "+": 13, "-": 13, "*": 14, "/": 14, "//": 14,
    "%": 14, "@": 14, "~": 15, "**": 16, "await": 17, "not": _NOT,
    **dict.fromkeys(("<", ">", "==", ">=", "<=", "!=", "in", "is"), _CMP),
}  # fmt: skip
# Where one expression ends and the next begins, at one level: unparse writes them apart.
_APART = frozenset(
    {",", ":", "=", "->", "+=", "-=", "*=", "/=", "//=", "%=", "@=", "&=", "|=", "^=", ">>=", "<<=", "**="}
)

# `ast.unparse` recurses: about 3 frames per operator on a path through the tree, 6 per bracket, 4
# per block. A statement is accepted only while that estimate stays far below the default recursion
# limit, so that unparse could not have failed where this succeeds.
_FRAMES = 300


class _Refused(Exception):
    """A construct unparse may write differently: the caller unparses."""


class _Level:
    """One level of brackets (or the statement), and the element being read in it."""

    __slots__ = (
        "ands",
        "colons",
        "generator",
        "keyword",
        "kind",
        "lowest",
        "ors",
        "starred",
        "start",
        "targets",
    )

    def __init__(self, kind: int, start: int) -> None:
        self.kind = kind
        self.start = start  # where its contents begin in the output
        self.keyword = False  # a keyword argument was read (a call)
        self.starred = False  # the element is `*x` (a call)
        self.colons = 0  # colons in the element (a subscript)
        self.generator = False  # a call's sole argument is a generator expression
        self.targets = False  # a `for`'s targets are being read: its `in` is no comparison
        self.lowest = _ATOM  # the loosest operator of the operand being read
        self.ands = 0  # operands of the `and` chain so far
        self.ors = 0  # operands of the `or` chain so far

    def boolean(self, word: str) -> None:
        """An `and` or `or` ends an operand. unparse (3.11) gives the k-th operand of a chain the
        precedence of the operator plus k, so later operands are parenthesized where the grammar
        needs nothing: `a and b and c == d` is written `a and b and (c == d)`."""
        if word == "and":
            _needs(self.lowest, _AND + self.ands + 1)
            self.ands += 1
        else:
            self._chained()
            _needs(self.lowest, _OR + self.ors + 1)
            self.ors += 1
        self.lowest = _ATOM

    def apart(self) -> None:
        """The expression being read ends."""
        if not (self.ands or self.ors):  # the common case, a loop's worth of calls spared
            self.lowest = _ATOM
            return
        self._chained()
        if self.ors:
            _needs(self.lowest, _OR + self.ors + 1)
        self.lowest, self.ors = _ATOM, 0

    def _chained(self) -> None:
        """The `and` chain being read (if any) ends: it is one operand of an `or`."""
        if self.ands:
            _needs(self.lowest, _AND + self.ands + 1)
            self.lowest, self.ands = _AND, 0


def _needs(precedence: int, required: int) -> None:
    if precedence < min(required, _ATOM):
        raise _Refused


def _string_value(token: str) -> tuple[str | bytes, str]:
    """A string token's value and the `u` unparse keeps (or ""). Raises _Refused for an f-string or
    an escape (its value is not read here)."""
    quote = token[-1]
    start = token.index(quote)
    prefix = token[:start].lower()
    if "f" in prefix:
        raise _Refused
    width = 3 if len(token) - start >= 6 and token[start : start + 3] == quote * 3 else 1
    body = token[start + width : len(token) - width]
    if ("\\" in body and "r" not in prefix) or "\r" in body:
        raise _Refused  # the value differs from the text: escapes, line breaks read as LF
    return (body.encode("ascii") if "b" in prefix else body), ("u" if "u" in prefix else "")


def string_literal(token: str) -> str:
    """How unparse writes the value of a string token: `repr`, with `u` kept."""
    value, kind = _string_value(token)
    return kind + repr(value)


def docstring_literal(token: str) -> str:
    """How unparse writes a def's or class's docstring: triple-quoted, the quotes it holds not, a
    final quote of that kind escaped (`ast._Unparser._write_docstring`). Raises _Refused where it
    would escape characters (a backslash, anything not printable but line breaks and tabs)."""
    value, kind = _string_value(token)
    if isinstance(value, bytes):
        return repr(value)  # no docstring: an expression statement
    if "\\" in value or not value.replace("\n", "").replace("\t", "").isprintable():
        raise _Refused
    # Written without escapes, the value holds at most one kind of triple quote, and ends in a quote
    # only if its own delimiter is the other kind (`'a"'`): unparse needs to escape nothing.
    quote = min((q for q in ('"""', "'''") if q not in value), key=lambda q: q[0] == value[-1:])
    return kind + quote + value + quote


def number_literal(token: str) -> str:
    """How unparse writes the value of a number token (`repr`, infinities as 1e309)."""
    if token.isdigit():
        return str(int(token))
    text = token.lower().replace("_", "")
    if text.startswith(("0x", "0o", "0b")):
        return repr(int(text, 0))
    if text.endswith("j"):
        written = repr(complex(0.0, float(text[:-1])))
    elif "." in text or "e" in text:
        written = repr(float(text))
    else:
        return repr(int(text))
    return written.replace("inf", _INFINITY)


def normalized_tokens(gaps: Tokens, tokens: Tokens) -> Tokens | None:
    """The normalized tokens of a Python text that parses, from its tokens as written and the
    whitespace before each (pyscan.raw_pieces); None where unparse may write them otherwise."""
    try:
        return _read(gaps, tokens)
    except (_Refused, ValueError):  # ValueError: a number too long to write in decimal
        return None


# What a token is, as `_read` dispatches on it; `_kind` decides once per distinct token of a text.
_COMMENT, _NEWLINE, _END, _STRING, _NUMBER, _NAME, _CONSTANT, _OPEN, _CLOSE, _OTHER = range(10)


def _kind(tok: str) -> int:
    """A token's kind; raises _Refused for a name that is not ASCII (the parser NFKC-normalizes names)."""
    first = tok[:1]
    if first == "#":
        return _COMMENT
    if tok == "\n":
        return _NEWLINE
    if not tok:
        return _END
    if tok[-1] in _QUOTES:
        return _STRING
    if first.isdigit() or (first == "." and tok[1:2].isdigit()):
        return _NUMBER
    if (first.isalpha() or first == "_" or not first.isascii()) and tok not in _KEYWORDS:
        if not tok.isascii():
            raise _Refused
        return _NAME
    if tok in _CONSTANTS or tok == "...":
        return _CONSTANT
    if tok in _OPENERS:
        return _OPEN
    return _CLOSE if tok in _CLOSERS else _OTHER


# The kinds of the tokens every program uses, so that a text classifies only its own names and literals.
_KINDS = {t: _kind(t) for t in (*_KEYWORDS, *EXACT_TOKEN_TYPES, "\n", "")}


def _read(gaps: Tokens, tokens: Tokens) -> Tokens:
    out: list[str] = []
    stack = [_Level(_STATEMENT, 0)]
    prev = "\n"  # the last token read, comments skipped; a line break starts a logical line
    prev2 = ""
    atom = False  # `prev` ends an operand: a `(` after it is a call, a `[` a subscript
    head = ""  # the logical line's first token (its second after `async`)
    length = 0  # tokens of the logical line so far
    pending = False  # a comma at depth 0 that only a later assignment `=` makes a target list
    lambdas = 0  # lambdas at depth 0 whose parameters are being read
    after_else = False  # the line before was `else:`, which unparse joins with an `if` as `elif`
    after_def = docstring = False  # the line before opened a def or class; this one is its docstring
    operators = deepest = 0
    indents = [0]
    kinds = _KINDS.copy()
    literals: dict[str, str] = {}  # each string's and number's text as unparse writes it
    for gap, tok in zip(gaps, tokens, strict=True):
        kind = kinds.get(tok)
        if kind is None:
            kind = kinds[tok] = _kind(tok)
        if kind == _COMMENT:
            continue
        if prev == "\n" and kind != _END:
            column = indent_width(gap.rsplit("\n", 1)[-1])
            while column < indents[-1]:
                indents.pop()
            if column > indents[-1]:
                indents.append(column)
            docstring = after_def and kind == _STRING
            if (kind == _STRING and not docstring) or (after_else and tok == "if"):
                raise _Refused  # a module's docstring, or a string statement; `elif`
            head, length, pending, lambdas = tok, 0, False, 0
            operators = deepest = 0
        length += 1
        if length == 2 and head == "async":
            head = tok
        level = stack[-1]
        if kind == _NEWLINE or (kind == _END and prev != "\n"):  # a logical line ends
            level.apart()
            if prev == "," or pending or (prev == ":") != (head in _COMPOUND):
                raise _Refused
            if 3 * operators + 6 * deepest + 4 * len(indents) > _FRAMES:
                raise _Refused
            if docstring and length != 2:
                raise _Refused  # an expression that begins with a string
            after_else = head == "else" and length == 3
            after_def = head in ("def", "class")
            level.targets = False
            if kind == _NEWLINE:
                out.append("\n")
            prev2, prev, atom = prev, "\n", False
            continue
        if kind == _NAME:
            out.append(tok)
            atom = True
        elif kind == _OTHER:
            if tok == "." and prev != ".":
                operators += 1  # nothing else to check: a dot joins an attribute to its object
            else:
                lambdas = _operator(tok, prev, prev2, stack, after_operand=atom, lambdas=lambdas)
                operators += tok != "," and tok not in _APART
                if tok == "," and len(stack) == 1:
                    if not (lambdas or head in _LISTS or (head == "for" and level.targets)):
                        pending = True  # a tuple, unless an assignment's `=` follows
                elif tok == "=" and len(stack) == 1 and not lambdas:
                    pending = False
            atom = False
            out.append(tok)
        elif kind in (_NUMBER, _STRING):
            if kind == _STRING and prev[-1:] in _QUOTES:
                raise _Refused  # implicit concatenation
            if kind == _STRING and docstring and length == 1:
                out.append(docstring_literal(tok))
            else:
                written = literals.get(tok)
                if written is None:
                    written = literals[tok] = string_literal(tok) if kind == _STRING else number_literal(tok)
                out.append(written)
            atom = True
        elif kind == _OPEN:
            if tok == "(":
                if atom:
                    holds = _PARAMS if prev2 == "def" else _CLASS if prev2 == "class" else _CALL
                elif prev == "import" and head == "from":
                    holds = _IMPORTED
                else:
                    raise _Refused  # grouping: unparse keeps or drops it by precedence
            else:
                holds = _SUBSCRIPT if tok == "[" and atom else _DISPLAY
            if holds != _IMPORTED:
                out.append(tok)
            stack.append(_Level(holds, len(out)))
            deepest = max(deepest, len(stack))
            atom = False
        elif kind == _CLOSE:
            level.apart()
            stack.pop()
            if prev == ",":
                if level.kind == _SUBSCRIPT:
                    raise _Refused  # `x[a,]` keeps it, `x[a, b,]` drops it
                out.pop()
            if level.kind == _SUBSCRIPT and prev == ":" and level.colons > 1:
                raise _Refused  # an empty step: `x[a::]` is written `x[a:]`
            if level.kind == _CLASS and prev == "(":
                raise _Refused  # `class A():` is written `class A:`
            if level.generator:
                out.insert(level.start, "(")
                out.append(")")
            if level.kind != _IMPORTED:
                out.append(tok)
            atom = True
        elif kind == _CONSTANT:
            out.append(tok)
            atom = True
        else:  # _END after a line break
            break
        prev2, prev = prev, tok
    if out:
        if out[-1] == "\n":
            out.pop()
        out.append("")  # tokenize ends the last line of unparse's output with an empty NEWLINE
    return tuple(out)


def _operator(
    tok: str, prev: str, prev2: str, stack: list[_Level], *, after_operand: bool, lambdas: int
) -> int:
    """Read an operator or keyword into its level; refuse it where unparse may write its
    neighbourhood otherwise. Returns the lambdas at depth 0 whose parameters are being read."""
    level = stack[-1]
    if tok in _REFUSED or (level.starred and tok in _LOW):
        raise _Refused
    if prev == "**" and tok in _UNARY:
        raise _Refused  # `a ** -b` is written `a ** (-b)`
    if prev == "," and (tok in ("=", "in") or (tok == ":" and level.kind != _SUBSCRIPT)):
        raise _Refused  # `a, = b`, `for a, in b`, `lambda a,: 0`: a trailing comma
    if (tok == "..." and prev in (".", "...")) or (tok == "." and prev == prev2 == "."):
        raise _Refused  # `from . .. import`: the dots are tokenized as written together
    if tok in ("and", "or"):
        level.boolean(tok)
        return lambdas
    if tok == "in" and level.targets:
        level.targets = False
        level.apart()
        return lambdas
    precedence = _PRECEDENCE.get(tok)
    if precedence is not None:
        if tok == "not" and (after_operand or prev == "is"):
            precedence = _CMP  # `not in`, `is not`
        if tok == "*" and prev in ("(", "[", ","):
            if level.kind == _SUBSCRIPT or (level.kind in _ARGUMENTS and level.keyword):
                raise _Refused  # `x[*a]` gains a comma; `f(a=1, *b)` is reordered
            level.starred = level.kind in _ARGUMENTS
        level.lowest = min(level.lowest, precedence)
        return lambdas
    if tok == ".":
        return lambdas
    level.apart()  # a keyword other than those, or `,` `:` `=` `->`: another expression begins
    if tok == ",":
        if level.kind == _SUBSCRIPT and prev == ":" and level.colons > 1:
            raise _Refused
        level.starred, level.colons = False, 0
    elif tok == "=":
        level.keyword = level.keyword or level.kind in _ARGUMENTS
    elif tok == ":":
        level.colons += 1
        if len(stack) == 1 and lambdas:
            lambdas -= 1
    elif tok == "lambda" and len(stack) == 1:
        lambdas += 1
    elif tok == "for":
        level.generator = level.kind in _ARGUMENTS
        level.targets = True
    return lambdas

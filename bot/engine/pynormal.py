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


def string_literal(token: str) -> str:
    """How unparse writes the value of a string token: `repr`, with `u` kept. Raises _Refused for
    an f-string or an escape (its value is not read here)."""
    quote = token[-1]
    start = token.index(quote)
    prefix = token[:start].lower()
    if "f" in prefix:
        raise _Refused
    width = 3 if len(token) - start >= 6 and token[start : start + 3] == quote * 3 else 1
    body = token[start + width : len(token) - width]
    if ("\\" in body and "r" not in prefix) or "\r" in body:
        raise _Refused  # the value differs from the text: escapes, line breaks read as LF
    value: str | bytes = body.encode("ascii") if "b" in prefix else body
    return ("u" if "u" in prefix else "") + repr(value)


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
    operators = deepest = 0
    indents = [0]
    for gap, tok in zip(gaps, tokens, strict=True):
        first = tok[:1]
        if first == "#":
            continue
        if prev == "\n" and tok:
            column = indent_width(gap.rsplit("\n", 1)[-1])
            while column < indents[-1]:
                indents.pop()
            if column > indents[-1]:
                indents.append(column)
            if first in _QUOTES or tok[-1] in _QUOTES or (after_else and tok == "if"):
                raise _Refused  # a docstring, or a string statement; `elif`
            head, length, pending, lambdas = tok, 0, False, 0
            operators = deepest = 0
        length += 1
        if length == 2 and head == "async":
            head = tok
        level = stack[-1]
        if tok == "\n" or (not tok and prev != "\n"):  # a logical line ends
            level.apart()
            if prev == "," or pending or (prev == ":") != (head in _COMPOUND):
                raise _Refused
            if 3 * operators + 6 * deepest + 4 * len(indents) > _FRAMES:
                raise _Refused
            after_else = head == "else" and length == 3
            level.targets = False
            if tok:
                out.append("\n")
            prev2, prev, atom = prev, "\n", False
            continue
        if not tok:
            break
        if tok[-1] in _QUOTES:
            if prev[-1:] in _QUOTES:
                raise _Refused  # implicit concatenation
            out.append(string_literal(tok))
            atom = True
        elif first.isdigit() or (first == "." and tok[1:2].isdigit()):
            out.append(number_literal(tok))
            atom = True
        elif (first.isalpha() or first == "_" or not first.isascii()) and tok not in _KEYWORDS:
            if not tok.isascii():
                raise _Refused  # the parser NFKC-normalizes names
            out.append(tok)
            atom = True
        elif tok in _OPENERS:
            if tok == "(":
                if atom:
                    kind = _PARAMS if prev2 == "def" else _CLASS if prev2 == "class" else _CALL
                elif prev == "import" and head == "from":
                    kind = _IMPORTED
                else:
                    raise _Refused  # grouping: unparse keeps or drops it by precedence
            else:
                kind = _SUBSCRIPT if tok == "[" and atom else _DISPLAY
            if kind != _IMPORTED:
                out.append(tok)
            stack.append(_Level(kind, len(out)))
            deepest = max(deepest, len(stack))
            atom = False
        elif tok in _CLOSERS:
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
        else:
            operand = tok in _CONSTANTS or tok == "..."
            if not operand:
                lambdas = _operator(tok, prev, prev2, stack, after_operand=atom, lambdas=lambdas)
                operators += tok != "," and tok not in _APART
                if tok == "," and len(stack) == 1:
                    if not (lambdas or head in _LISTS or (head == "for" and level.targets)):
                        pending = True  # a tuple, unless an assignment's `=` follows
                elif tok == "=" and len(stack) == 1 and not lambdas:
                    pending = False
            atom = operand
            out.append(tok)
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

"""Python token strings exactly as stdlib `tokenize` gives them, in one regex pass.

The paper's scorer tokenizes `ast.unparse` output with stdlib `tokenize`, whose pure-Python loop costs
a few microseconds a token: most of a receipt's time on an ordinary change. Unparsed source is
canonical (no comments, no backslash continuations, no tabs, one statement per line), so its token
strings (NAME, NUMBER, STRING, OP, and NEWLINE at the end of each logical line) come out of one
`findall` over `tokenize`'s own regular expressions. Anything this reader does not expect (a
character no token pattern matches) returns None, and the caller falls back to `tokenize` itself;
tests compare both on every module of the standard library. The raw view of source as written
(`raw_pieces`: each token and the blanks before it) is read the same way, with comments, line
breaks and backslash continuations.
"""

from __future__ import annotations

import re
import tokenize

from bot.engine.lazyre import lazy


def _plain(pattern: str) -> str:
    """`tokenize`'s patterns with their groups made non-capturing, so `findall` yields whole tokens."""
    return re.sub(r"(?<!\\)\((?!\?)", "(?:", pattern)


def _any(*choices: str) -> str:
    return "(?:" + "|".join(choices) + ")"


_PREFIX = _plain(tokenize.StringPrefix)
# A string's text after its prefix, triple-quoted first (pychunks.py finds strings with these too).
QUOTED = (
    "'''" + _plain(tokenize.Single3),
    '"""' + _plain(tokenize.Double3),
    r"'[^\n'\\]*(?:\\.[^\n'\\]*)*'",
    r'"[^\n"\\]*(?:\\.[^\n"\\]*)*"',
)
_TRIPLE = _any(_PREFIX + QUOTED[0], _PREFIX + QUOTED[1])
_SINGLE = _any(_PREFIX + QUOTED[2], _PREFIX + QUOTED[3])
# Names first, as the commonest token: one that runs into a quote is a string prefix (b'x'), so the
# name pattern is atomic and refuses it, and the string patterns take it. Numbers come before
# operators (.5 is a number); operators are tokenize's, longest first.
_NAME = r"(?!\d)\w++(?!['\"])"
# Compiled on first use (milliseconds): only text unparsed where pynormal.py cannot read it needs it.
# The last alternative matches once, at the end: without it the blanks that end a text would be
# matched and given up again from each of their positions (quadratic in their length).
_TOKEN = lazy(
    r"[ \f\t]*+(?:(\n)|("
    + _any(_NAME, _plain(tokenize.Number), _plain(tokenize.Special), _TRIPLE, _SINGLE)
    + r")|(.)|\Z)"
)
_OPEN = frozenset("([{")
_CLOSE = frozenset(")]}")


def unparsed_tokens(text: str) -> tuple[str, ...] | None:
    """Token strings of `text` (ast.unparse output) without NL/INDENT/DEDENT/ENDMARKER; None if unsure."""
    out: list[str] = []
    depth = 0
    line_has_tokens = False
    for newline, token, stray in _TOKEN().findall(text):
        if stray:
            return None
        if newline:
            if line_has_tokens and depth == 0:
                out.append("\n")
                line_has_tokens = False
            continue
        if not token:  # the end of the text
            continue
        if token in _OPEN:
            depth += 1
        elif token in _CLOSE:
            depth -= 1
        out.append(token)
        line_has_tokens = True
    if line_has_tokens:
        out.append("")  # tokenize ends an unterminated last line with an empty NEWLINE
    return tuple(out)


# Source as written: each piece is a token with the blanks (and backslash continuations) before it.
_RAW = re.compile(
    r"((?:[ \f\t]|\\\r?\n)*+)(?:("
    + _any(r"\r?\n", r"#[^\r\n]*", _NAME, _plain(tokenize.Number), _plain(tokenize.Special), _TRIPLE, _SINGLE)
    + r")|(.)|\Z)",
    re.DOTALL,
)


def indent_width(piece: str) -> int:
    """tokenize's column of a line's first token: tabs to the next multiple of 8, form feeds reset."""
    column = 0
    for char in piece:  # only blanks: the text between a line break and the line's first token
        if char == " ":
            column += 1
        elif char == "\t":
            column = (column // 8 + 1) * 8
        else:
            column = 0  # a form feed
    return column


def raw_pieces(text: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """Tokens of `text` as written and the whitespace before each, `(gaps, tokens)`, ending with an
    empty token after the whitespace that ends the text; None if unsure (see above). A line break
    that ends a logical line is a token (NEWLINE); any other (blank lines, breaks inside brackets or
    after a comment-only line: tokenize's NL) is whitespace.

    Where `tokenize` raises (a bracket still open at the end, a dedent to no enclosing level) this
    returns None too, so both views agree on which files cannot be tokenized."""
    gaps: list[str] = []
    out: list[str] = []
    pending = ""  # whitespace (and NL line breaks) since the last token
    done = 0  # matches follow each other: only the blanks that end the text are left unmatched
    depth = 0
    indents = [0]
    at_line_start = True
    for blanks, token, stray in _RAW.findall(text):
        if stray:
            return None
        if not token:  # the end of the text, after the blanks that end it
            if "\\" in blanks:
                return None  # a continuation before the end: tokenize may raise, or end the line itself
            continue
        done += len(blanks) + len(token)
        if token[-1] == "\n":
            ends_a_line = not at_line_start and depth == 0
            at_line_start = at_line_start or depth == 0
            if not ends_a_line:
                pending += blanks + token  # NL: whitespace, part of the gap before the next token
                continue
        elif token[0] != "#":  # a comment-only line does not indent
            if at_line_start and depth == 0:
                column = indent_width(blanks.rsplit("\n", 1)[-1])
                if column > indents[-1]:
                    indents.append(column)
                while column < indents[-1]:
                    indents.pop()
                if column != indents[-1]:
                    return None
            at_line_start = False
            if token in _OPEN:
                depth += 1
            elif token in _CLOSE:
                depth -= 1  # below zero too: tokenize then reads every later line as a continuation
        gaps.append(pending + blanks)
        out.append(token)
        pending = ""
    gaps.append(pending + text[done:])  # blanks after the last token, kept as tokenize keeps them
    out.append("")
    return (tuple(gaps), tuple(out)) if depth == 0 else None

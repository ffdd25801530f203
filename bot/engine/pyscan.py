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
from itertools import repeat
from token import EXACT_TOKEN_TYPES

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
# Where three quotes open a string that never closes, tokenize raises: no single-quoted string
# (`''` then a quote) is read there instead.
_SINGLE = _any(_PREFIX + "'(?!'')" + QUOTED[2][1:], _PREFIX + '"(?!"")' + QUOTED[3][1:])
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
_DEPTH = dict.fromkeys(_OPEN, 1) | dict.fromkeys(_CLOSE, -1)  # what each token does to the depth


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


def _operators() -> tuple[str, str]:
    """`tokenize.Special` (every operator, the longest that matches) as a choice by the first
    character, so an operator is not tried against each of the 40-odd before it: the operators
    that begin no longer one, as one character class, and the rest."""
    by_first: dict[str, list[str]] = {}
    for operator in EXACT_TOKEN_TYPES:
        by_first.setdefault(operator[0], []).append(operator[1:])
    alone = "".join(re.escape(first) for first, rests in sorted(by_first.items()) if rests == [""])
    # Longest first among the operators one character begins, as `tokenize` sorts them.
    longer = _any(
        *(
            re.escape(first) + _any(*(re.escape(rest) for rest in sorted(rests, reverse=True)))
            for first, rests in sorted(by_first.items())
            if rests != [""]
        )
    )
    return f"[{alone}]", longer


# Brackets and commas, the commonest operators, are tried before everything else.
_LONE, OPERATORS = _operators()
# A decimal integer that no longer number continues (a digit, `_`, a point, an exponent, `j`, a
# base's letter): what `tokenize.Number` matches there, without trying its float and imaginary
# forms first.
_DECIMAL = r"(?:[1-9](?:_?[0-9])*+|0(?:_?0)*+)(?![_0-9.eEjJxXoObB])"


# Source as written: the text split at each token and the blanks before it, so the pieces run
# (skipped, blanks, token, None)… then what follows the last token; blanks before no token are a
# match of their own, (skipped, None, None, blanks), so a run of them is tried once, not from each
# of its positions. Nothing is skipped but a character no token pattern matches. A backslash
# continuation is split off as a token, then joined to the whitespace around it. The token patterns
# begin with different characters but where a name refuses a string's prefix, a number comes before
# the operator `.` and `_DECIMAL` before `Number` (matching the same), so their order chooses what is
# tried first, not what matches.
_SPLIT = re.compile(
    r"([ \f\t]*+)("
    + _any(
        _LONE,
        _NAME,
        r"\r?\n",
        r"\\\r?\n",
        r"#[^\r\n]*",
        _DECIMAL,
        "(?=[0-9.])" + _plain(tokenize.Number),  # the guard spares the other tokens its alternatives
        OPERATORS,
        _TRIPLE,
        _SINGLE,
    )
    + r")|([ \f\t]++)",
    re.DOTALL,
)
_CONTINUATIONS = ("\\\n", "\\\r\n")


def _found(tokens: list[str], kinds: tuple[str, ...]) -> list[int]:
    """Where tokens of the given kinds are, in order."""
    found: list[int] = []
    for kind in kinds:
        at = -1
        try:
            while True:
                at = tokens.index(kind, at + 1)
                found.append(at)
        except ValueError:
            pass
    return sorted(found) if len(kinds) > 1 else found


def _continued(gaps: list[str], tokens: list[str], at: list[int]) -> tuple[list[str], list[str]]:
    """The gaps and tokens with each continuation (at `at`) joined to the whitespace around it."""
    out_gaps: list[str] = []
    out_tokens: list[str] = []
    carry = ""
    start = 0
    for i in [*at, len(tokens)]:
        if i > start:
            out_gaps.append(carry + gaps[start])
            out_gaps.extend(gaps[start + 1 : i])
            out_tokens.extend(tokens[start:i])
            carry = ""
        carry += gaps[i] + (tokens[i] if i < len(tokens) else "")
        start = i + 1
    out_gaps.append(carry)
    return out_gaps, out_tokens


def indent_width(piece: str) -> int:
    """tokenize's column of a line's first token: tabs to the next multiple of 8, form feeds reset."""
    if not piece.strip(" "):
        return len(piece)  # spaces alone, as nearly every line is indented
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
    parts = _SPLIT.split(text)
    if "".join(parts[0::4]):
        return None  # a character no token pattern matches
    ends_in_blanks = len(parts) > 1 and parts[-2] is not None  # a last match of blanks alone
    gaps: list[str] = parts[1:-4:4] if ends_in_blanks else parts[1::4]
    tokens: list[str] = parts[2:-4:4] if ends_in_blanks else parts[2::4]
    gaps.append(parts[-2] if ends_in_blanks else "")
    if "\\" in text:
        at = _found(tokens, _CONTINUATIONS)
        if at:
            gaps, tokens = _continued(gaps, tokens, at)
            if "\\" in gaps[-1]:
                return None  # a continuation before the end: tokenize may raise, or end the line itself
    out_gaps: list[str] = []
    out: list[str] = []
    pending = ""  # whitespace (and NL line breaks) since the last token
    depth = 0
    indents = [0]
    at_line_start = True
    start = 0
    # A physical line at a time: its tokens, then its line break. A comment runs to the line break,
    # so it is a line's last token; the line's first token is the one that may indent.
    ended = len(tokens)
    for end in [*_found(tokens, ("\n", "\r\n") if "\r" in text else ("\n",)), ended]:
        if at_line_start and "\\" in gaps[start]:
            return None  # tokenize reads the line after a continuation as no line's start
        if end > start:
            out_gaps.append(pending + gaps[start])
            out_gaps.extend(gaps[start + 1 : end])
            out.extend(tokens[start:end])
            pending = ""
            if tokens[start][0] != "#":  # a comment-only line does not indent
                if at_line_start and depth == 0:
                    column = indent_width(gaps[start].rsplit("\n", 1)[-1])
                    if column > indents[-1]:
                        indents.append(column)
                    while column < indents[-1]:
                        indents.pop()
                    if column != indents[-1]:
                        return None
                at_line_start = False
                depth += sum(map(_DEPTH.get, tokens[start:end], repeat(0)))
                if depth < 0:
                    return None  # tokenize ends a line there, then reads every line as a continuation
        if end < ended:
            if not at_line_start and depth == 0:  # NEWLINE: a logical line ends
                out_gaps.append(pending + gaps[end])
                out.append(tokens[end])
                pending = ""
            else:  # NL: whitespace, part of the gap before the next token
                pending += gaps[end] + tokens[end]
            at_line_start = at_line_start or depth == 0
        start = end + 1
    out_gaps.append(pending + gaps[-1])  # blanks after the last token, kept as tokenize keeps them
    out.append("")
    return (tuple(out_gaps), tuple(out)) if depth == 0 else None

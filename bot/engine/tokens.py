"""Token streams for edit distance: the paper's Python normalization, a lexer per language, words.

Two views of a file. The *significant* view is what `nd` counts: for Python it is exactly the scorer
of "When Models Edit Too Much" (`ast.unparse(ast.parse(src))`, then stdlib `tokenize` without
COMMENT, NL, ENCODING, ENDMARKER, INDENT, DEDENT); for other files the line lexer of their language
(lexing.py: words, strings, punctuation, comments dropped); for files it does not know, words.
Every reader is linear in the text: Pygments' regex lexers, read before, backtrack on hostile input
(its Makefile lexer took 69 s on one 40 KB line, its C# lexer seconds on 4 KB of short lines, some
exponentially), and a pull request chooses what its files hold.
The *raw* view keeps everything as written — comments, blank lines, quote style — with each token
carrying the whitespace before it, so a change of spacing, wrapping or comments shows up there and
not in the significant view. `formatting_share` is built from the gap between the two.

The two texts of a pair are always read the same way: if either side of a Python file does not
parse, both are read by the tokenizer alone (and if either cannot be tokenized, by the line lexer),
so a syntax error never makes the whole file look rewritten.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum

from bot.engine.lexing import Lexicon, lexicon_for, tokenize_line
from bot.engine.pyscan import raw_pieces, unparsed_tokens

PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")

Tokens = tuple[str, ...]


class TokenMode(StrEnum):
    """How a pair of texts was read, best first."""

    NORMALIZED = "normalized"  # Python: ast.unparse, then tokenize (the paper's scorer)
    TOKENIZED = "tokenized"  # Python that does not parse: tokenize of the text as written
    LEXED = "lexed"  # the line lexer of the file's language (lexing.py)
    WORDS = "words"  # no lexer for this file name: whitespace-separated words


@dataclass(frozen=True, slots=True)
class TokenPair:
    mode: TokenMode
    left: Tokens
    right: Tokens


_DROPPED = frozenset(
    {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}
)
# Indentation belongs to the whitespace before the next token in the raw view, like any other.
_RAW_SKIPPED = frozenset({tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT})
_PYTHON_FAILURES = (SyntaxError, ValueError, RecursionError, tokenize.TokenError)


def is_python(path: str) -> bool:
    return path.lower().endswith(PYTHON_SUFFIXES)


def _stdlib_tokens(text: str) -> Iterator[tokenize.TokenInfo]:
    return tokenize.generate_tokens(io.StringIO(text).readline)


def _significant_python(text: str) -> Tokens:
    return tuple(t.string for t in _stdlib_tokens(text) if t.type not in _DROPPED)


def parse_python(text: str) -> ast.Module | None:
    """The module's AST, or None when it does not parse.

    Compiling someone else's code makes CPython warn about it (invalid escapes, `is` with a
    literal); those warnings are about the pull request, not for this process's stderr.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            return None


def python_normalized(text: str, parse: Callable[[str], ast.Module | None] = parse_python) -> Tokens | None:
    """The paper's token list for Python source; None when the source does not parse.

    `parse` is `parse_python` or a memo of it (complexity reads the same tree)."""
    tree = parse(text)
    if tree is None:
        return None
    try:
        unparsed = ast.unparse(tree)
    except _PYTHON_FAILURES:  # ast.unparse recurses: a sum of a few hundred terms is too deep for it
        return None
    fast = unparsed_tokens(unparsed)
    return fast if fast is not None else _significant_python(unparsed)


def python_tokens(text: str) -> Tokens | None:
    """Significant tokens of Python source as written (no normalization); None if it cannot be tokenized."""
    try:
        return _significant_python(text)
    except _PYTHON_FAILURES:
        return None


def _line_starts(text: str) -> list[int]:
    """Offsets where the lines `io.StringIO.readline` yields begin (tokenize's rows, 1-based)."""
    starts = [0, 0]
    for match in re.finditer("\n", text):
        starts.append(match.end())
    return starts


def python_raw(text: str) -> Tokens | None:
    """Python tokens as written, comments and line breaks included, each with the whitespace before it."""
    fast = raw_pieces(text)
    return fast if fast is not None else _stdlib_raw(text)


def _stdlib_raw(text: str) -> Tokens | None:
    starts = _line_starts(text)
    out: list[str] = []
    done = 0
    try:
        for tok in _stdlib_tokens(text):
            if tok.type in _RAW_SKIPPED:
                continue
            end = starts[tok.end[0]] + tok.end[1]
            piece = text[done:end]  # empty for the NEWLINE tokenize invents at the end of a file
            if piece:
                out.append(piece)
                done = end
    except _PYTHON_FAILURES:
        return None
    return tuple(out)


def line_lexed(text: str, lexicon: Lexicon) -> Tokens:
    """Significant tokens of any language, line by line (lexing.py): words, strings, punctuation,
    the line's comment dropped. Linear in the text whatever it holds."""
    out: list[str] = []
    for line in text.split("\n"):
        out.extend(tokenize_line(line, lexicon).code)
    return tuple(out)


_PIECES = re.compile(r"\s+|\S+")


def words(text: str) -> Tokens:
    return tuple(text.split())


def words_raw(text: str) -> Tokens:
    """Words as written, each with the whitespace before it; trailing whitespace is dropped."""
    out: list[str] = []
    pending = ""
    for piece in _PIECES.findall(text):
        if piece.isspace():
            pending += piece
        else:
            out.append(pending + piece)
            pending = ""
    return tuple(out)


class _Reader(StrEnum):
    NORMALIZED = "normalized"
    TOKENIZED = "tokenized"
    PYTHON_RAW = "python_raw"


def _read(reader: _Reader, text: str, parse: Callable[[str], ast.Module | None]) -> Tokens | None:
    if reader is _Reader.NORMALIZED:
        return python_normalized(text, parse)
    if reader is _Reader.TOKENIZED:
        return python_tokens(text)
    return python_raw(text)


class Tokenizer:
    """Reads pairs of texts the same way, remembering each text's tokens (C is compared twice)."""

    def __init__(self) -> None:
        self._memo: dict[tuple[_Reader, str], Tokens | None] = {}
        self._trees: dict[str, ast.Module | None] = {}

    def tree(self, text: str) -> ast.Module | None:
        """`parse_python(text)`, parsed once per text: normalization and complexity both read it."""
        if text not in self._trees:
            self._trees[text] = parse_python(text)
        return self._trees[text]

    def _get(self, reader: _Reader, text: str) -> Tokens | None:
        key = (reader, text)
        if key not in self._memo:
            self._memo[key] = _read(reader, text, self.tree)
        return self._memo[key]

    def _both(self, reader: _Reader, left: str, right: str) -> tuple[Tokens, Tokens] | None:
        a = self._get(reader, left)
        b = self._get(reader, right) if a is not None else None
        return None if a is None or b is None else (a, b)

    def pair(self, path: str, left: str, right: str) -> TokenPair:
        """Significant tokens of two versions of the file at `path`."""
        if is_python(path):
            for reader, mode in (
                (_Reader.NORMALIZED, TokenMode.NORMALIZED),
                (_Reader.TOKENIZED, TokenMode.TOKENIZED),
            ):
                found = self._both(reader, left, right)
                if found is not None:
                    return TokenPair(mode, *found)
        lexicon = lexicon_for(path)
        if lexicon.name == "plain":
            return TokenPair(TokenMode.WORDS, words(left), words(right))
        return TokenPair(TokenMode.LEXED, line_lexed(left, lexicon), line_lexed(right, lexicon))

    def raw_pair(self, path: str, left: str, right: str) -> tuple[Tokens, Tokens]:
        """Tokens as written (comments, layout, quote style) of two versions of the file at `path`."""
        if is_python(path):
            found = self._both(_Reader.PYTHON_RAW, left, right)
            if found is not None:
                return found
        return words_raw(left), words_raw(right)

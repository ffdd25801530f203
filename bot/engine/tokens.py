"""Token streams for edit distance: the paper's Python normalization, a lexer per language, words.

Two views of a file. The *significant* view is what `nd` counts: for Python it is exactly the scorer
of "When Models Edit Too Much" (`ast.unparse(ast.parse(src))`, then stdlib `tokenize` without
COMMENT, NL, ENCODING, ENDMARKER, INDENT, DEDENT); for other files a Pygments lexer chosen by file
name without comment and whitespace tokens; for files no lexer knows, whitespace-separated words.
The *written* view keeps everything as written — comments, blank lines, quote style — and the
whitespace before each token, apart from the token: a change of spacing, wrapping or comments shows
up there and not in the significant view, and deleting a token changes no other token.
`formatting_share` is built from the difference between the two views.

The two texts of a pair are always read the same way: if either side of a Python file does not
parse, both are read by the tokenizer alone (and if either cannot be tokenized, by Pygments' Python
lexer), so a syntax error never makes the whole file look rewritten.
"""

from __future__ import annotations

import ast
import io
import posixpath
import re
import tokenize
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygments.lexer import Lexer
    from pygments.token import _TokenType

# Pygments is imported where a lexer is needed, not here: it costs about 20 ms, more than a tenth
# of a typical receipt, and a change of Python files only never needs it.

from bot.engine.pyscan import raw_pieces, unparsed_tokens

PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")

Tokens = tuple[str, ...]


class TokenMode(StrEnum):
    """How a pair of texts was read, best first."""

    NORMALIZED = "normalized"  # Python: ast.unparse, then tokenize (the paper's scorer)
    TOKENIZED = "tokenized"  # Python that does not parse: tokenize of the text as written
    LEXED = "lexed"  # a Pygments lexer chosen by file name
    WORDS = "words"  # no lexer for this file name: whitespace-separated words


@dataclass(frozen=True, slots=True)
class TokenPair:
    mode: TokenMode
    left: Tokens
    right: Tokens


@dataclass(frozen=True, slots=True)
class Written:
    """A text as written: its tokens (comments and line breaks included, quote style kept) and the
    whitespace before each (`gaps[i]` precedes `tokens[i]`). The last token is always "", after
    the blanks that end the text, so the ends of two texts line up."""

    tokens: Tokens
    gaps: Tokens


_DROPPED = frozenset(
    {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}
)
# Indentation, and line breaks that end no logical line, belong to the whitespace before the next
# token in the written view.
_RAW_SKIPPED = frozenset(
    {tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT, tokenize.NL}
)
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


def python_raw(text: str) -> Written | None:
    """Python source as written, comments and line breaks included; None if it cannot be tokenized."""
    fast = raw_pieces(text)
    return Written(fast[1], fast[0]) if fast is not None else _stdlib_raw(text)


def _stdlib_raw(text: str) -> Written | None:
    starts = _line_starts(text)
    gaps: list[str] = []
    tokens: list[str] = []
    done = 0
    try:
        for tok in _stdlib_tokens(text):
            if tok.type in _RAW_SKIPPED or not tok.string:  # "": the NEWLINE tokenize invents at the end
                continue
            start = starts[tok.start[0]] + tok.start[1]
            end = starts[tok.end[0]] + tok.end[1]
            gaps.append(text[done:start])
            tokens.append(text[start:end])
            done = end
    except _PYTHON_FAILURES:
        return None
    return Written((*tokens, ""), (*gaps, text[done:]))


def lexer_class_for(path: str) -> type[Lexer] | None:
    """Pygments' lexer for a file name, from its built-in table only.

    Installed plugins are ignored on purpose: the same file must be read the same way on every
    machine. Among several matches the rule is Pygments' own (priority, exact names first).
    """
    return _lexer_for_name(posixpath.basename(path))


@lru_cache(maxsize=1024)
def _lexer_for_name(name: str) -> type[Lexer] | None:
    from pygments.lexers import find_lexer_class, get_all_lexers

    best: tuple[float, str] | None = None
    chosen: type[Lexer] | None = None
    for lexer_name, _aliases, patterns, _mimetypes in get_all_lexers(plugins=False):
        for pattern in patterns:
            if not fnmatchcase(name, pattern):
                continue
            cls = find_lexer_class(lexer_name)
            assert cls is not None  # a built-in lexer named by the built-in table
            rating = (cls.priority + (0 if "*" in pattern else 0.5), cls.__name__)
            if best is None or rating > best:
                best, chosen = rating, cls
    return chosen


def _python_lexer() -> type[Lexer]:
    from pygments.lexers.python import PythonLexer

    return PythonLexer


def _is_comment(ttype: _TokenType) -> bool:
    from pygments.token import Comment, is_token_subtype

    # Preprocessor lines (#include, #define) are code that Pygments files under Comment.
    return is_token_subtype(ttype, Comment) and not (
        is_token_subtype(ttype, Comment.Preproc) or is_token_subtype(ttype, Comment.PreprocFile)
    )


_PIECES = re.compile(r"\s+|\S+")


def _lex(text: str, lexer: type[Lexer]) -> Iterator[tuple[_TokenType, str]]:
    yield from lexer(stripnl=False, ensurenl=True).get_tokens(text)


def lexed(text: str, lexer: type[Lexer]) -> Tokens:
    """Significant tokens: comments dropped; plain text (prose, whitespace) split into words."""
    from pygments.token import String, Text, is_token_subtype

    out: list[str] = []
    for ttype, value in _lex(text, lexer):
        if _is_comment(ttype):
            continue
        if is_token_subtype(ttype, Text):
            out.extend(value.split())
        elif value.strip() or is_token_subtype(ttype, String):
            out.append(value)  # some lexers put line ends in other token types (preprocessor lines)
    return tuple(out)


def _written(pieces: Iterable[tuple[str, bool]]) -> Written:
    """Tokens and the whitespace before each; `splittable` pieces (plain text) are split at blanks."""
    gaps: list[str] = []
    tokens: list[str] = []
    pending = ""
    for value, splittable in pieces:
        for piece in _PIECES.findall(value) if splittable else [value]:
            if splittable and piece.isspace():
                pending += piece
            else:
                gaps.append(pending)
                tokens.append(piece)
                pending = ""
    return Written((*tokens, ""), (*gaps, pending))


def lexed_raw(text: str, lexer: type[Lexer]) -> Written:
    from pygments.token import Text, is_token_subtype

    return _written((value, is_token_subtype(ttype, Text)) for ttype, value in _lex(text, lexer))


def words(text: str) -> Tokens:
    return tuple(text.split())


def words_raw(text: str) -> Written:
    return _written([(text, True)])


class _Reader(StrEnum):
    NORMALIZED = "normalized"
    TOKENIZED = "tokenized"
    LEXED = "lexed"


def _read(
    reader: _Reader, text: str, lexer: type[Lexer] | None, parse: Callable[[str], ast.Module | None]
) -> Tokens | None:
    if reader is _Reader.NORMALIZED:
        return python_normalized(text, parse)
    if reader is _Reader.TOKENIZED:
        return python_tokens(text)
    assert lexer is not None  # the Python readers alone need no lexer
    return lexed(text, lexer)


class Tokenizer:
    """Reads pairs of texts the same way, remembering each text's tokens (C is compared twice)."""

    def __init__(self) -> None:
        self._memo: dict[tuple[_Reader, type[Lexer] | None, str], Tokens | None] = {}
        self._written: dict[tuple[type[Lexer] | None, str], Written | None] = {}
        self._trees: dict[str, ast.Module | None] = {}

    def tree(self, text: str) -> ast.Module | None:
        """`parse_python(text)`, parsed once per text: normalization and complexity both read it."""
        if text not in self._trees:
            self._trees[text] = parse_python(text)
        return self._trees[text]

    def _get(self, reader: _Reader, lexer: type[Lexer] | None, text: str) -> Tokens | None:
        key = (reader, lexer, text)
        if key not in self._memo:
            self._memo[key] = _read(reader, text, lexer, self.tree)
        return self._memo[key]

    def _both(
        self, reader: _Reader, lexer: type[Lexer] | None, left: str, right: str
    ) -> tuple[Tokens, Tokens] | None:
        a = self._get(reader, lexer, left)
        b = self._get(reader, lexer, right) if a is not None else None
        return None if a is None or b is None else (a, b)

    def _lexed(self, reader: _Reader, lexer: type[Lexer], left: str, right: str) -> tuple[Tokens, Tokens]:
        found = self._both(reader, lexer, left, right)
        assert found is not None  # lexers accept any text
        return found

    def pair(self, path: str, left: str, right: str) -> TokenPair:
        """Significant tokens of two versions of the file at `path`."""
        if is_python(path):
            for reader, mode in (
                (_Reader.NORMALIZED, TokenMode.NORMALIZED),
                (_Reader.TOKENIZED, TokenMode.TOKENIZED),
            ):
                found = self._both(reader, None, left, right)
                if found is not None:
                    return TokenPair(mode, *found)
            return TokenPair(TokenMode.LEXED, *self._lexed(_Reader.LEXED, _python_lexer(), left, right))
        lexer = lexer_class_for(path)
        if lexer is None:
            return TokenPair(TokenMode.WORDS, words(left), words(right))
        return TokenPair(TokenMode.LEXED, *self._lexed(_Reader.LEXED, lexer, left, right))

    def _read_written(self, lexer: type[Lexer] | None, text: str) -> Written | None:
        """Python as written when `lexer` is None (None if it cannot be tokenized), else lexed."""
        key = (lexer, text)
        if key not in self._written:
            self._written[key] = python_raw(text) if lexer is None else lexed_raw(text, lexer)
        return self._written[key]

    def written_pair(self, path: str, left: str, right: str) -> tuple[Written, Written]:
        """Two versions of the file at `path` as written (comments, layout, quote style), read alike."""
        lexer: type[Lexer] | None = None
        if is_python(path):
            a = self._read_written(None, left)
            b = self._read_written(None, right) if a is not None else None
            if a is not None and b is not None:
                return a, b
            lexer = _python_lexer()  # one side cannot be tokenized: Pygments' lexer for both
        else:
            lexer = lexer_class_for(path)
            if lexer is None:
                return words_raw(left), words_raw(right)
        a, b = self._read_written(lexer, left), self._read_written(lexer, right)
        assert a is not None and b is not None  # lexers accept any text
        return a, b

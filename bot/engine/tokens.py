"""Token streams for edit distance: the paper's Python normalization, a lexer per language, words.

Two views of a file. The *significant* view is what `nd` counts: for Python it is exactly the scorer
of "When Models Edit Too Much" (`ast.unparse(ast.parse(src))`, then stdlib `tokenize` without
COMMENT, NL, ENCODING, ENDMARKER, INDENT, DEDENT); for other files the line lexer of their language
(lexing.py: words, strings, punctuation, comments dropped); for files it does not know, words.
Every reader is linear in the text: Pygments' regex lexers, read before, backtrack on hostile input
(its Makefile lexer took 69 s on one 40 KB line, its C# lexer seconds on 4 KB of short lines, some
exponentially), and a pull request chooses what its files hold.
The *written* view keeps everything as written — comments, blank lines, quote style — and the
whitespace before each token, apart from the token: a change of spacing, wrapping or comments shows
up there and not in the significant view, and deleting a token changes no other token.
`formatting_share` is built from the difference between the two views.

The two texts of a pair are always read the same way: if either side of a Python file does not
parse, both are read by the tokenizer alone (and if either cannot be tokenized, by the line lexer),
so a syntax error never makes the whole file look rewritten.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from types import CodeType

from bot.engine.lexing import Lexicon, lexicon_for, tokenize_line
from bot.engine.pychunks import statement_chunks
from bot.engine.pynormal import normalized_tokens
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
# pynormal.py's rules are those of 3.11's `ast.unparse` (and are checked against it); other versions
# write and tokenize differently, so there the tree is always unparsed.
NORMALIZE_AS_WRITTEN = sys.version_info[:2] == (3, 11)


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


def compiled(text: str) -> CodeType | None:
    """`text` compiled, or None: about four times cheaper than `parse_python`, which builds the tree
    as Python objects. Compiling refuses all `ast.parse` refuses and more (`return` outside a
    function, limits of the compiler), so a text it refuses is still read by its tree. Quiet, as
    `parse_python` is."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return compile(text, "<piece>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
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
    return _written_from(raw_pieces(text), text)


def _written_from(scan: tuple[tuple[str, ...], tuple[str, ...]] | None, text: str) -> Written | None:
    """The written view from pyscan's one-pass scan, or from `tokenize` where that was unsure."""
    return Written(scan[1], scan[0]) if scan is not None else _stdlib_raw(text)


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


def line_lexed(text: str, lexicon: Lexicon) -> Tokens:
    """Significant tokens of any language, line by line (lexing.py): words, strings, punctuation,
    the line's comment dropped. Linear in the text whatever it holds."""
    out: list[str] = []
    for line in text.split("\n"):
        out.extend(tokenize_line(line, lexicon).code)
    return tuple(out)


def line_lexed_raw(text: str, lexicon: Lexicon) -> Written:
    """Any language as written, line by line with the same lexer: strings in their own quotes,
    comments whole, and the whitespace before each token (line breaks included)."""
    return _written(
        text,
        (
            (offset + m.start(), m.group())
            for offset, line in _lines(text)
            for m in lexicon.pattern.finditer(line)
        ),
    )


def _lines(text: str) -> Iterator[tuple[int, str]]:
    offset = 0
    for line in text.split("\n"):
        yield offset, line
        offset += len(line) + 1


_WORD = re.compile(r"\S+")


def words(text: str) -> Tokens:
    return tuple(text.split())


def words_raw(text: str) -> Written:
    """Words as written, and the whitespace before each."""
    return _written(text, ((m.start(), m.group()) for m in _WORD.finditer(text)))


def _written(text: str, found: Iterable[tuple[int, str]]) -> Written:
    """The written view of `text` from its tokens and where each starts: the gaps are the rest."""
    gaps: list[str] = []
    tokens: list[str] = []
    done = 0
    for start, token in found:
        gaps.append(text[done:start])
        tokens.append(token)
        done = start + len(token)
    return Written((*tokens, ""), (*gaps, text[done:]))


class _Reader(StrEnum):
    NORMALIZED = "normalized"
    TOKENIZED = "tokenized"


def _is_docstring(statement: ast.stmt) -> bool:
    """What `ast.unparse` writes as a docstring when it comes first in a body."""
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


_PASS = ("pass", "\n")


def _piece_normalized(tree: ast.Module, first: bool) -> Tokens | None:
    """The paper's tokens of one piece of a module (pychunks.py), as they are in the whole module's.

    A piece after the first that opens with a string is not the module's docstring: it is unparsed
    behind a `pass`, whose tokens are then dropped, so it is written as the whole module writes it
    (and at the same depth of recursion)."""
    hidden = not first and bool(tree.body) and _is_docstring(tree.body[0])
    module = ast.Module([ast.Pass(), *tree.body], []) if hidden else tree
    try:
        unparsed = ast.unparse(module)
    except _PYTHON_FAILURES:
        return None
    fast = unparsed_tokens(unparsed)
    tokens = fast if fast is not None else _significant_python(unparsed)
    return tokens[len(_PASS) :] if hidden else tokens


class Tokenizer:
    """Reads pairs of texts the same way, remembering each text's tokens (C is compared twice).

    Python is read a top-level statement at a time (pychunks.py): the statements two versions of a
    file share are parsed, unparsed and tokenized once. Wherever a piece cannot be read alone the
    whole text is read instead, so the tokens are always those of the whole text."""

    def __init__(self) -> None:
        self._memo: dict[tuple[_Reader, str], Tokens | None] = {}
        self._written: dict[str, Written | None] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self._pieces: dict[tuple[str, bool], tuple[Tokens | None, bool]] = {}
        self._raw_pieces: dict[str, tuple[tuple[str, ...], tuple[str, ...]] | None] = {}
        self._cuts: dict[str, list[str]] = {}
        self._as_written_memo: dict[str, Tokens | None] = {}
        self._code: dict[str, CodeType | None] = {}

    def tree(self, text: str) -> ast.Module | None:
        """`parse_python(text)`, parsed once per text or piece: normalization and complexity both read it."""
        if text not in self._trees:
            self._trees[text] = parse_python(text)
        return self._trees[text]

    def parsed(self, text: str) -> bool:
        """Whether `tree(text)` was read already (a tree, or None)."""
        return text in self._trees

    def pieces(self, text: str) -> list[str]:
        """`statement_chunks(text)`, cut once per text: both views and complexity read them."""
        if text not in self._cuts:
            self._cuts[text] = statement_chunks(text)
        return self._cuts[text]

    def _get(self, reader: _Reader, text: str) -> Tokens | None:
        key = (reader, text)
        if key not in self._memo:
            self._memo[key] = self._normalized(text) if reader is _Reader.NORMALIZED else python_tokens(text)
        return self._memo[key]

    def _raw(self, text: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """`raw_pieces(text)`, scanned once per text or piece: both views read it."""
        if text not in self._raw_pieces:
            self._raw_pieces[text] = raw_pieces(text)
        return self._raw_pieces[text]

    def _as_written(self, text: str) -> Tokens | None:
        """The paper's tokens of a text or piece read off its own tokens (pynormal.py), where that is
        certain to be what unparsing it gives and it compiles; else None, and the tree decides."""
        if text not in self._as_written_memo:
            raw = self._raw(text) if NORMALIZE_AS_WRITTEN else None
            found = None if raw is None else normalized_tokens(*raw)
            if found is not None and not (
                self._trees[text] is not None if text in self._trees else self._compiled(text)
            ):
                found = None
            self._as_written_memo[text] = found
        return self._as_written_memo[text]

    def _compiled(self, text: str) -> CodeType | None:
        if text not in self._code:
            self._code[text] = compiled(text)
        return self._code[text]

    def shallow_code(self, piece: str) -> tuple[CodeType, int] | None:
        """A piece's code and how many `def`s its source holds, when its normalized tokens were read
        as written (so its tree is shallow: pynormal.py bounds the depth) and it compiles; else None."""
        if self._as_written(piece) is None:
            return None
        code = self._compiled(piece)
        raw = self._raw(piece)
        assert raw is not None  # it was read as written
        return None if code is None else (code, raw[1].count("def"))

    def _piece(self, piece: str, first: bool) -> tuple[Tokens | None, bool]:
        """A piece's tokens (None when it does not parse or unparse alone), and whether it holds a
        statement."""
        key = (piece, first)
        if key not in self._pieces:
            found = self._as_written(piece)
            if found is not None:
                self._pieces[key] = (found, bool(found))
                return self._pieces[key]
            tree = self.tree(piece)
            read = None if tree is None else (_piece_normalized(tree, first), bool(tree.body))
            self._pieces[key] = read or (None, False)
        return self._pieces[key]

    def _normalized(self, text: str) -> Tokens | None:
        pieces = self.pieces(text)
        if len(pieces) == 1:
            found = self._as_written(text)
            return found if found is not None else python_normalized(text, self.tree)
        out: list[str] = []
        first = True
        for piece in pieces:
            tokens, statements = self._piece(piece, first)
            if tokens is None:
                return python_normalized(text, self.tree)  # the whole text decides
            first = first and not statements
            if tokens and out:
                out[-1] = "\n"  # the piece before ended the text: now a line break ends it
            out.extend(tokens)
        return tuple(out)

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

    def _python_written(self, text: str) -> Written | None:
        if text not in self._written:
            self._written[text] = self._read_written(text)
        return self._written[text]

    def _read_written(self, text: str) -> Written | None:
        pieces = self.pieces(text)
        if len(pieces) == 1:
            return self._whole_written(text)
        gaps: list[str] = []
        tokens: list[str] = []
        carry = ""  # the blanks that end one piece begin the gap before the next piece's first token
        for piece in pieces:
            found = self._raw(piece)
            if found is None:
                return self._whole_written(text)  # the whole text decides
            piece_gaps, piece_tokens = found
            gaps.append(carry + piece_gaps[0])
            gaps.extend(piece_gaps[1:-1])
            tokens.extend(piece_tokens[:-1])
            carry = gaps.pop() if len(piece_tokens) == 1 else piece_gaps[-1]
        return Written((*tokens, ""), (*gaps, carry))

    def _whole_written(self, text: str) -> Written | None:
        """`python_raw(text)`, from the scan the normalized view reads too."""
        return _written_from(self._raw(text), text)

    def written_pair(self, path: str, left: str, right: str) -> tuple[Written, Written]:
        """Two versions of the file at `path` as written (comments, layout, quote style), read alike:
        Python by its tokenizer (by the line lexer when either side cannot be tokenized)."""
        if is_python(path):
            a = self._python_written(left)
            b = self._python_written(right) if a is not None else None
            if a is not None and b is not None:
                return a, b
        lexicon = lexicon_for(path)
        if lexicon.name == "plain":
            return words_raw(left), words_raw(right)
        return line_lexed_raw(left, lexicon), line_lexed_raw(right, lexicon)

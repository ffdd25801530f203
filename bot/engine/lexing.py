"""Line-level tokens for locality: what a line says once whitespace and comments are set aside.

Hunks are seen line by line (a diff has no whole file), so this is a small per-language lexer over
one line at a time (a line as the language reads it: `tokenize_lines`) rather than a full
tokenizer: strings, words, single punctuation characters and
the line's comment. Lines inside a multi-line string or block comment are read as code, except the
conventional ` * ` continuation of C-style block comments.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from bot.engine.sourcetext import BREAK_STARTS, split_line

# Possessive: nothing after a string's text can make it give characters back, and Python's engine
# keeps a place to backtrack to for each character a plain `*` of a group takes (about 115 bytes:
# a one-line 32 MB string needed 3.9 GB).
_STRING = r"\"(?:[^\"\\]|\\.)*+\"?|'(?:[^'\\]|\\.)*+'?|`(?:[^`\\]|\\.)*+`?"
_QUOTES = "\"'`"


@dataclass(frozen=True, slots=True)
class Lexicon:
    name: str
    line_comments: tuple[str, ...]
    block_comments: bool = False
    same_quotes: bool = False  # '...' and "..." mean the same string
    pattern: re.Pattern[str] = field(init=False, compare=False, repr=False)
    comment_starts: tuple[str, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # One alternation without groups, so `findall` returns whole tokens straight from C.
        comments = [re.escape(c) + ".*" for c in self.line_comments]
        if self.block_comments:
            comments.insert(0, r"/\*.*?(?:\*/|$)")
        pattern = re.compile("|".join([r"\w+", *comments, _STRING, r"[^\w\s]"]), re.DOTALL)
        object.__setattr__(self, "pattern", pattern)
        starts = (*self.line_comments, "/*") if self.block_comments else self.line_comments
        object.__setattr__(self, "comment_starts", starts)


_HASH = Lexicon("hash", ("#",))
_PYTHON = Lexicon("python", ("#",), same_quotes=True)
_C_LIKE = Lexicon("c-like", ("//",), block_comments=True)
_JS = Lexicon("javascript", ("//",), block_comments=True, same_quotes=True)
_DASH = Lexicon("dash", ("--",))
_SEMI = Lexicon("semicolon", (";",))
_PERCENT = Lexicon("percent", ("%",))
_PLAIN = Lexicon("plain", ())

_BY_EXTENSION: dict[str, Lexicon] = {
    **dict.fromkeys((".py", ".pyi", ".pyw"), _PYTHON),
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"), _JS),
    **dict.fromkeys(
        (
            ".c",
            ".h",
            ".cc",
            ".cpp",
            ".cxx",
            ".hpp",
            ".hh",
            ".java",
            ".go",
            ".rs",
            ".cs",
            ".kt",
            ".kts",
            ".swift",
            ".scala",
            ".dart",
            ".php",
            ".css",
            ".scss",
            ".less",
            ".proto",
            ".groovy",
            ".gradle",
            ".zig",
            ".m",
            ".mm",
        ),
        _C_LIKE,
    ),
    **dict.fromkeys(
        (
            ".sh",
            ".bash",
            ".zsh",
            ".fish",
            ".rb",
            ".pl",
            ".pm",
            ".r",
            ".yml",
            ".yaml",
            ".toml",
            ".cfg",
            ".conf",
            ".mk",
            ".cmake",
            ".tf",
            ".nix",
            ".jl",
            ".ex",
            ".exs",
            ".ps1",
            ".coffee",
            ".awk",
            ".tcl",
        ),
        _HASH,
    ),
    **dict.fromkeys((".sql", ".lua", ".hs", ".elm", ".ada", ".adb", ".ads"), _DASH),
    **dict.fromkeys((".ini", ".lisp", ".el", ".clj", ".cljs", ".scm", ".asm", ".s"), _SEMI),
    **dict.fromkeys((".tex", ".sty", ".erl", ".hrl", ".mat"), _PERCENT),
}
_BY_NAME: dict[str, Lexicon] = {
    "makefile": _HASH, "gnumakefile": _HASH, "dockerfile": _HASH, "containerfile": _HASH,
    "gemfile": _HASH, "rakefile": _HASH, "procfile": _HASH, "jenkinsfile": _C_LIKE,
    "codeowners": _HASH, ".gitignore": _HASH, ".gitattributes": _HASH, ".dockerignore": _HASH,
    ".editorconfig": _SEMI,
}  # fmt: skip


def lexicon_for(path: str) -> Lexicon:
    name = posixpath.basename(path).lower()
    if name in _BY_NAME:
        return _BY_NAME[name]
    return _BY_EXTENSION.get(posixpath.splitext(name)[1], _PLAIN)


class LineTokens(NamedTuple):
    code: tuple[str, ...]
    comment: tuple[str, ...]

    @property
    def everything(self) -> tuple[str, ...]:
        return self.code + self.comment


def _normalize_string(token: str, lexicon: Lexicon) -> str:
    quoted = len(token) >= 2 and token[-1] == token[0]
    if lexicon.same_quotes and quoted and token[0] != "`" and "\\" not in token:
        return '"' + token[1:-1] + '"'
    return token


_NO_COMMENT: tuple[str, ...] = ()


def tokenize_line(text: str, lexicon: Lexicon) -> LineTokens:
    if lexicon.block_comments:
        stripped = text.lstrip()
        if stripped.startswith("*") and not stripped.startswith("**"):
            return LineTokens((), tuple(stripped.split()))
    tokens = lexicon.pattern.findall(text)
    starts = lexicon.comment_starts
    quoted = "'" in text or '"' in text or "`" in text
    commented = False
    for start in starts:  # a loop, not `any`: this runs for every changed line
        if start in text:
            commented = True
            break
    if not quoted and not commented:
        return LineTokens(tuple(tokens), _NO_COMMENT)
    if lexicon.block_comments and "/*" in text:
        return _split_comments(tokens, lexicon)
    # A line comment's pattern runs to the end of the line, so only the last token can be one.
    comment = _NO_COMMENT
    if commented and tokens and tokens[-1].startswith(starts):
        comment = tuple(tokens.pop().split())
    if quoted:
        tokens = [_normalize_string(t, lexicon) if t[0] in _QUOTES else t for t in tokens]
    return LineTokens(tuple(tokens), comment)


def _split_comments(tokens: list[str], lexicon: Lexicon) -> LineTokens:
    """A line that may hold block comments anywhere in it, token by token."""
    starts = lexicon.comment_starts
    code: list[str] = []
    comment: list[str] = []
    for token in tokens:
        if token[0] in _QUOTES:
            code.append(_normalize_string(token, lexicon))
        elif token.startswith(starts):
            comment.extend(token.split())
        else:
            code.append(token)
    return LineTokens(tuple(code), tuple(comment))


def tokenize_lines(text: str, lexicon: Lexicon) -> list[LineTokens]:
    """The tokens of each line the language reads in one diff line (a lone CR ends a Python line;
    `sourcetext.py`), so that code after it is not read as part of a comment before it."""
    for start in BREAK_STARTS:  # a loop, not split_line's lookups: this runs for every changed line
        if start in text:
            return [tokenize_line(line, lexicon) for line in split_line(text, lexicon.name)]
    return [tokenize_line(text, lexicon)]

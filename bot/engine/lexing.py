"""Line-level tokens for locality: what a line says once whitespace and comments are set aside.

Hunks are seen line by line (a diff has no whole file), so this is a small per-language lexer over
one line at a time rather than a full tokenizer: strings, words, single punctuation characters and
the line's comment. Lines inside a multi-line string or block comment are read as code, except the
conventional ` * ` continuation of C-style block comments.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True, slots=True)
class Lexicon:
    name: str
    line_comments: tuple[str, ...]
    block_comments: bool = False
    same_quotes: bool = False  # '...' and "..." mean the same string


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


_STRING = r"(?P<str>\"(?:[^\"\\]|\\.)*\"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)"
_REST = r"|(?P<word>\w+)|(?P<ws>\s+)|(?P<punct>.)"


@cache
def _pattern(lexicon: Lexicon) -> re.Pattern[str]:
    comments = [re.escape(c) + ".*" for c in lexicon.line_comments]
    if lexicon.block_comments:
        comments.insert(0, r"/\*.*?(?:\*/|$)")
    comment = f"(?P<comment>{'|'.join(comments)})|" if comments else ""
    return re.compile(comment + _STRING + _REST, re.DOTALL)


@dataclass(frozen=True, slots=True)
class LineTokens:
    code: tuple[str, ...]
    comment: tuple[str, ...]

    @property
    def blank(self) -> bool:
        return not self.code and not self.comment

    @property
    def comment_only(self) -> bool:
        return not self.code and bool(self.comment)

    @property
    def everything(self) -> tuple[str, ...]:
        return self.code + self.comment


def _normalize_string(token: str, lexicon: Lexicon) -> str:
    quoted = len(token) >= 2 and token[0] in "'\"" and token[-1] == token[0]
    if lexicon.same_quotes and quoted and "\\" not in token:
        return '"' + token[1:-1] + '"'
    return token


def tokenize_line(text: str, lexicon: Lexicon) -> LineTokens:
    stripped = text.strip()
    if lexicon.block_comments and stripped.startswith(("*", "*/")) and not stripped.startswith("**"):
        return LineTokens((), tuple(stripped.split()))
    code: list[str] = []
    comment: list[str] = []
    for match in _pattern(lexicon).finditer(text):
        kind = match.lastgroup
        value = match.group()
        if kind == "ws":
            continue
        if kind == "comment":
            comment.extend(value.split())
        elif kind == "str":
            code.append(_normalize_string(value, lexicon))
        else:
            code.append(value)
    return LineTokens(tuple(code), tuple(comment))

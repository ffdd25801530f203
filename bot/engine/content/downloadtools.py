"""The programs that download, one list for every place the `dangerous` rule recognizes a download.

curl and `curlie` (curl's options), wget (also `busybox wget`: busybox is a wrapper), FreeBSD's
`fetch`, `aria2c`, HTTPie's `http`/`https` and `xh`/`xhs` (HTTPie's options), `lwp-download`,
`lwp-request` and its `GET`. Each tool's family says which options write a file
(`shelldownloads.py`) and whether it can write the download to standard output (aria2c and
lwp-download cannot: piping them into `sh` runs nothing they fetched). `fetch`, `http`, `https` and
`GET` are words other text uses (`git fetch`, `http://…`): they are the tool only as the command
word, past a break, a keyword (a Dockerfile's `RUN`) or a wrapper, and followed by a blank.
"""

from __future__ import annotations

import re

from bot.engine.wrappers import RUNNER

# Each tool's name, and the family whose options it takes.
DOWNLOADERS: dict[str, str] = {
    "curl": "curl",
    "curlie": "curl",
    "wget": "wget",
    "fetch": "fetch",
    "aria2c": "aria2c",
    "http": "httpie",
    "https": "httpie",
    "xh": "httpie",
    "xhs": "httpie",
    "lwp-download": "lwp-download",
    "lwp-request": "stdout",
    "GET": "stdout",
}
# The families that cannot write a download to standard output.
_FILE_ONLY = frozenset({"aria2c", "lwp-download"})
# Names other text uses as words of its own: the tool only as a command's word.
COMMAND_WORD_ONLY = frozenset({"fetch", "http", "https", "GET"})


def _alternatives(names: list[str]) -> str:
    return "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))


def _names(*, stdout: bool, command_word_only: bool) -> str:
    return _alternatives(
        [
            name
            for name, family in DOWNLOADERS.items()
            if (name in COMMAND_WORD_ONLY) == command_word_only and not (stdout and family in _FILE_ONLY)
        ]
    )


# Where a command's word starts: a break, a keyword, a wrapper and its words, a directory.
_COMMAND_BEFORE = (
    r"(?:(?m:^)|[;&|(){}\x60!]|\b(?:then|do|else|if|elif|while|until|time|RUN)[ \t])[ \t]*" + RUNNER
)


def download(*, stdout: bool) -> str:
    """A regex (RE2 and Python alike, no group) for a download command's program, from a word's
    start (or, for a name other text uses, from what makes it the command: `; fetch `); `stdout`:
    only the tools that can write the download to standard output."""
    plain = _names(stdout=stdout, command_word_only=False)
    worded = _names(stdout=stdout, command_word_only=True)
    return rf"(?:\b(?:{plain})\b|{_COMMAND_BEFORE}(?:{worded})[ \t])"


def download_word(*, stdout: bool) -> str:
    """A regex for a download command's program where a command's word starts (after `$(`, `<(`)."""
    plain = _names(stdout=stdout, command_word_only=False)
    worded = _names(stdout=stdout, command_word_only=True)
    return rf"(?:[\w./-]*/)?(?:(?:{plain})\b|(?:{worded})[ \t])"


# Words a text holds when it can hold a download (a prefilter).
DOWNLOAD_WORDS = tuple(sorted({"curl", "wget", "fetch", "aria2c", "http", "xh", "lwp-", "GET"}))

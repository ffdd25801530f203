"""A download written to a file that a later command of the same text runs as a script.

`curl -o f URL && sh f`, `wget -O /tmp/x URL; bash /tmp/x`, `curl URL > f; chmod +x f; ./f`,
`curl -O URL/i.sh; . ./i.sh` run what the server sent as surely as `curl URL | sh` does. The
paths a download writes: curl's `-o`/`--output` (also at the end of a group of short options,
`-sSLo f`), `-O`/`--remote-name` (the URL's last segment); wget's `-O`/`--output-document`, else
the URL's last segment; a `>`/`>>` redirection of either. A later command runs one when it is the
command itself (`./f`, `/tmp/x`), sourced, or an interpreter's script (`shellcommands.py`). A
command that verifies a checksum or a signature between them (`sha256sum -c`, `gpg --verify`,
`cosign`, `minisign`) is what the advice asks for: the pair is then left alone.

Read over the view of `shellwords.py`, so a variable holding the path (`f=/tmp/i; curl -o "$f"
…; sh "$f"`) is its value.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from bot.engine.content.shellcommands import runs_file, split
from bot.engine.content.shellwords import LEADER
from bot.engine.lazyre import lazy

_DOWNLOAD = lazy(rb"(?<![\w./-])(curl|wget)\b([^;&|\n)\x60]*)")
_REDIRECT = lazy(r"(?<![\d&>])>>?[ \t]*([^\s&>;|]+)")
_URL = lazy(r"https?://[^\s?#]*/([^\s/?#]+)(?:[?#]\S*)?")
# A command that checks a file against a sum or a signature (`sha256sum -c`, `gpg --verify`, `cosign
# verify-blob`, ...), as a command of its own: one that prints a sum, imports a key or signs, or a word
# some other command is given (`echo sha256sum -c`), checks nothing.
_VERIFIES = lazy(
    rb"(?m)(?:^|[;&|(!]|\b(?:then|do|else)\b)[ \t]*(?:sudo[ \t]+)?"
    rb"(?:(?:sha(?:1|224|256|384|512)?sum|shasum|b2sum|md5sum|cksum)\b"
    rb"[^\n;&|]*?[ \t](?:-[A-Za-z0-9]*c|--check)\b"
    rb"|gpgv\b|gpg2?\b[^\n;&|]*?[ \t]--verify\b|cosign[ \t]+verify|slsa-verifier[ \t]+verify"
    rb"|(?:minisign|signify)\b[^\n;&|]*?[ \t]-[A-Za-z]*V"
    rb"|openssl[ \t]+(?:dgst|pkeyutl)\b[^\n;&|]*?[ \t]-verify\b)"
)
# What ends the command before a word: an operator, a bracket, a keyword after which a command starts.
_COMMAND_BREAK = lazy(r"[;&|\n({\x60]|\$\(|\b(?:then|do|else|if|elif|while|until)\b|!")
_LEADER = lazy(LEADER)
_BEFORE = rb"(?<![^\s;&|()<>\x60])"
_AFTER = rb"(?![^\s;&|()<>\x60])"


@dataclass(frozen=True, slots=True)
class DownloadRun:
    """The offsets of a download command and of the word of a later command that runs what it
    wrote (to the end of that word)."""

    download: int
    run: int
    run_end: int


def _curl_paths(words: list[str]) -> Iterator[str]:
    for at, word in enumerate(words):
        value = words[at + 1] if at + 1 < len(words) else ""
        if word == "--output":
            yield value
        elif word.startswith("--output="):
            yield word.split("=", 1)[1]
        elif word in ("--remote-name", "--remote-name-all"):
            yield from _remote_names(words)
        elif word.startswith("-") and not word.startswith("--"):
            letters = word[1:]
            if "O" in letters:
                yield from _remote_names(words)
            if "o" in letters:
                attached = letters.split("o", 1)[1]
                yield attached or value


def _wget_paths(words: list[str]) -> Iterator[str]:
    named = False
    for at, word in enumerate(words):
        value = words[at + 1] if at + 1 < len(words) else ""
        if word == "--output-document":
            named = True
            yield value
        elif word.startswith("--output-document="):
            named = True
            yield word.split("=", 1)[1]
        elif word.startswith("-") and not word.startswith("--") and "O" in word:
            named = True
            yield word[1:].split("O", 1)[1] or value
    if not named:
        yield from _remote_names(words)


def _remote_names(words: list[str]) -> Iterator[str]:
    for word in words:
        found = _URL().fullmatch(word)
        if found is not None:
            yield found.group(1)


def _written(program: bytes, arguments: bytes) -> set[str]:
    """The paths a download command writes (`./f` as `f`), but standard output and devices."""
    text = arguments.decode("latin-1")
    words = split(_REDIRECT().sub(" ", text))
    paths = set(_curl_paths(words) if program == b"curl" else _wget_paths(words))
    paths.update(found.group(1) for found in _REDIRECT().finditer(text))
    return {
        path.removeprefix("./")
        for path in paths
        if path and path != "-" and not path.startswith(("/dev/", "$"))
    }


def downloads_run(view: bytes, hidden: Callable[[int], bool]) -> Iterator[DownloadRun]:
    """Each command of `view` (code: not `hidden`) that runs a path a download before it wrote,
    with the last such download, in one pass over the text after the first download."""
    written: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for download in _DOWNLOAD().finditer(view):
        if not hidden(download.start()):
            for path in _written(download.group(1), download.group(2)):
                written[path].append(download.span())
    if not written:
        return
    verified = [found.start() for found in _VERIFIES().finditer(view)]
    paths = sorted(written, key=len, reverse=True)
    named = b"|".join(re.escape(path.encode("latin-1")) for path in paths)
    use = re.compile(_BEFORE + rb"(?:\./)?(" + named + rb")" + _AFTER)
    for found in use.finditer(view, min(end for spans in written.values() for _, end in spans)):
        spans = written[found.group(1).decode("latin-1")]
        last = bisect_right([end for _, end in spans], found.start()) - 1
        if last < 0 or hidden(found.start()):
            continue
        start, end = spans[last]
        if bisect_left(verified, end) < bisect_left(verified, found.start()):
            continue  # verified in between
        command = view[view.rfind(b"\n", 0, found.start()) + 1 : found.end()].decode("latin-1")
        pieces = _COMMAND_BREAK().split(command)
        last_piece = _LEADER().sub("", pieces[-1], count=1) if len(pieces) == 1 else pieces[-1]
        if runs_file(split(last_piece), found.group().decode("latin-1")):
            yield DownloadRun(start, found.start(), found.end())

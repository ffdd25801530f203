"""A download written to a file that a later command of the same text runs as a script.

`curl -o f URL && sh f`, `wget -O /tmp/x URL; bash /tmp/x`, `curl URL > f; chmod +x f; ./f`,
`curl -O URL/i.sh; . ./i.sh` run what the server sent as surely as `curl URL | sh` does. The
paths a download writes: curl's `-o`/`--output` (also at the end of a group of short options,
`-sSLo f`), `-O`/`--remote-name` (the URL's last segment); wget's `-O`/`--output-document`, else
the URL's last segment (in `-P`'s directory; curl's `--output-dir` alike, the last given); the other
tools' alike (`downloadtools.py`), a path that may name a directory (FreeBSD fetch's `-o`,
lwp-download's) also holding the URL's last segment, and aria2c's `-o` in `-d`'s directory; a
`>`/`>>` redirection of either, or of a command its output is piped into, and a piped `tee`'s
files; then a `cp`, `mv`, `install` or `ln` of such a path (the target, and the file's name in it
when it may be a directory). A later command runs one when it is the command itself (`./f`,
`/tmp/x`), sourced, or an interpreter's script (`shellcommands.py`), also in a command line handed
on (`su -c "sh f"`). A command that verifies a checksum or a signature between them (`sha256sum
-c`, `gpg --verify`, `cosign`, `minisign`) is what the advice asks for: the pair is then left alone.

Read over the view of `shellwords.py`, so a variable holding the path (`f=/tmp/i; curl -o "$f"
…; sh "$f"`) is its value.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from bot.engine.content.downloadtools import COMMAND_WORD_ONLY, DOWNLOADERS
from bot.engine.content.shellcommands import CommandText, last_command, runs_file_at_end, split
from bot.engine.lazyre import lazy
from bot.engine.wrappers import unwrapped

# A download, with the commands its output is piped into (`| tee f`, `| gunzip > f`); or a command
# that copies a file (`cp`, `mv`, `install`, `ln`).
# A name other text uses (`git fetch`) is a download only as the command's word (`_is_program`).
_WRITER = lazy(
    rb"(?<![\w./-])(?:("
    + "|".join(re.escape(name) for name in sorted(DOWNLOADERS, key=len, reverse=True)).encode()
    + rb")\b(?![:=-])([^;&|\n)\x60]*)((?:\|(?!\|)&?[^;&|\n)\x60]*)*)"
    rb"|(cp|mv|install|ln)\b[^;&|\n)\x60]*)"
)
_PIPE = lazy(r"\|&?")
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
# A word's edges; a quote too, where a command line handed on in a string starts or ends.
_BEFORE = rb"(?<![^\s;&|()<>\x60'\"])"
_AFTER = rb"(?![^\s;&|()<>\x60'\"])"


@dataclass(frozen=True, slots=True)
class DownloadRun:
    """The offsets of a download command and of the word of a later command that runs what it
    wrote (to the end of that word)."""

    download: int
    run: int
    run_end: int


def _curl_paths(words: list[str]) -> Iterator[str]:
    directory = _directory(words, "--output-dir", None)
    for at, word in enumerate(words):
        value = words[at + 1] if at + 1 < len(words) else ""
        if word == "--output":
            yield _under(directory, value)
        elif word.startswith("--output="):
            yield _under(directory, word.split("=", 1)[1])
        elif word in ("--remote-name", "--remote-name-all"):
            yield from (_under(directory, name) for name in _remote_names(words))
        elif word.startswith("-") and not word.startswith("--"):
            letters = word[1:]
            if "O" in letters:
                yield from (_under(directory, name) for name in _remote_names(words))
            if "o" in letters:
                attached = letters.split("o", 1)[1]
                yield _under(directory, attached or value)


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
        directory = _directory(words, "--directory-prefix", "P")
        yield from (_under(directory, name) for name in _remote_names(words))


def _option_values(words: list[str], long: str, letter: str | None) -> Iterator[str]:
    """The values `words` give an option: `--long v`, `--long=v`, and (given its `letter`) `-L v`,
    its letter ending a group of short options, the value attached or next (`-qo f`, `-of`)."""
    for at, word in enumerate(words):
        value = words[at + 1] if at + 1 < len(words) else ""
        if word == long:
            yield value
        elif word.startswith(long + "="):
            yield word.split("=", 1)[1]
        elif letter is not None and word.startswith("-") and not word.startswith("--") and letter in word:
            yield word[1:].split(letter, 1)[1] or value


def _has_flag(words: list[str], long: str, letter: str) -> bool:
    return any(
        word == long or (word.startswith("-") and not word.startswith("--") and letter in word)
        for word in words
    )


def _fetch_paths(words: list[str]) -> Iterator[str]:
    """FreeBSD fetch: `-o`'s file, or the URL's last segment in it when it is a directory; else
    that segment."""
    names = list(_remote_names(words))
    targets = list(_option_values(words, "--output", "o"))
    yield from (path for target in targets for path in _in_place(target, names)) if targets else names


def _aria2c_paths(words: list[str]) -> Iterator[str]:
    """aria2c: `-o`'s file, else the URL's last segment, in `-d`'s directory."""
    directory = _directory(words, "--dir", "d")
    named = list(_option_values(words, "--out", "o"))
    yield from (_under(directory, name) for name in named or _remote_names(words))


def _httpie_paths(words: list[str]) -> Iterator[str]:
    """HTTPie and xh: `-o`'s file; with `-d`/`--download` and none, the URL's last segment."""
    named = list(_option_values(words, "--output", "o"))
    yield from named or (_remote_names(words) if _has_flag(words, "--download", "d") else ())


def _lwp_download_paths(words: list[str]) -> Iterator[str]:
    """lwp-download: the operand after the URL (the URL's last segment in it when it is a
    directory), else the URL's last segment."""
    operands = [word for word in words if not word.startswith("-")]
    names = list(_remote_names(words))
    yield from _in_place(operands[1], names) if len(operands) > 1 else names


_PATHS: dict[str, Callable[[list[str]], Iterator[str]]] = {
    "curl": _curl_paths,
    "wget": _wget_paths,
    "fetch": _fetch_paths,
    "aria2c": _aria2c_paths,
    "httpie": _httpie_paths,
    "lwp-download": _lwp_download_paths,
    "stdout": lambda words: iter(()),
}


def _directory(words: list[str], option: str, letter: str | None) -> str | None:
    """The directory a download's option puts its files in (`--output-dir d`, wget's `-P d`): the
    last given, as the tool keeps it."""
    values = list(_option_values(words, option, letter))
    return values[-1] if values else None


def _under(directory: str | None, path: str) -> str:
    """`path` in `directory` when one is given and it is relative."""
    if directory is None or path.startswith("/") or path in ("", "-"):
        return path
    return directory.rstrip("/") + "/" + path


def _in_place(target: str, names: list[str]) -> Iterator[str]:
    """The paths writing to `target` may write, when it may name a directory: `target` itself
    (unless its form says a directory: `d/`, `.`, `..`) and each of `names` in it."""
    if target in ("", "-"):
        yield target
        return
    if not target.endswith("/") and target.rsplit("/", 1)[-1] not in (".", ".."):
        yield target
    yield from (_under(target, name) for name in names)


def _remote_names(words: list[str]) -> Iterator[str]:
    for word in words:
        found = _URL().fullmatch(word)
        if found is not None:
            yield found.group(1)


def _kept(paths: Iterator[str]) -> set[str]:
    """The paths (`./f` as `f`) but standard output and devices."""
    return {
        path.removeprefix("./")
        for path in paths
        if path and path != "-" and not path.startswith(("/dev/", "$"))
    }


def _written(program: bytes, arguments: bytes, piped: bytes) -> set[str]:
    """The paths a download command writes, and the commands its output is piped into: a `tee`'s
    files, a redirection's."""
    text = arguments.decode("latin-1")
    words = split(_REDIRECT().sub(" ", text))
    paths = set(_PATHS[DOWNLOADERS[program.decode()]](words))
    paths.update(found.group(1) for found in _REDIRECT().finditer(text))
    for command in _PIPE().split(piped.decode("latin-1"))[1:]:
        paths.update(found.group(1) for found in _REDIRECT().finditer(command))
        words = split(_REDIRECT().sub(" ", command))
        at = unwrapped(words)
        if isinstance(at, int) and at < len(words) and words[at].rsplit("/", 1)[-1] == "tee":
            paths.update(word for word in words[at + 1 :] if not word.startswith("-"))
    return _kept(iter(paths))


# The options of cp, mv, install and ln that take a value (the target directory apart).
_COPY_VALUED = frozenset({"-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"})
_COPIERS = frozenset({"cp", "mv", "install", "ln"})


def _copies(words: list[str]) -> list[tuple[str, str]]:
    """Each file `words` (a cp, mv, install or ln command) copies, and where to: the target's path
    and, when the target may be a directory, the file's name in it."""
    operands: list[str] = []
    directory: str | None = None
    at = 1
    while at < len(words):
        word = words[at]
        if word in ("-t", "--target-directory") and at + 1 < len(words):
            directory, at = words[at + 1], at + 2
            continue
        if word.startswith("--target-directory="):
            directory = word.split("=", 1)[1]
        elif not word.startswith("-"):
            operands.append(word)
        at += 2 if word in _COPY_VALUED else 1
    if directory is None:
        if len(operands) < 2:
            return []
        *sources, target = operands
        return [(source, path) for source in sources for path in _in_place(target, [_name(source)])]
    return [(source, _under(directory, _name(source))) for source in operands]


def _name(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class _Write:
    """A path holding a download: where the download command starts and ends (a check after it
    covers the file), and from where the path holds it (the end of the command that wrote it)."""

    download: int
    download_end: int
    since: int


def _copied(commands: CommandText, found: re.Match[bytes], written: dict[str, list[_Write]]) -> None:
    """Adds to `written` the paths the copy command `found` (when it is the command) writes a
    path holding a download to."""
    command = commands.upto(found.start(), found.end())
    if command is None:
        return
    words = split(last_command(command))
    at = unwrapped(words)
    if isinstance(at, str) or at >= len(words) or words[at].rsplit("/", 1)[-1] not in _COPIERS:
        return
    for source, target in _copies(words[at:]):
        writes = written.get(source.removeprefix("./"))
        if writes:
            last = writes[-1]
            for path in _kept(iter([target])):
                written[path].append(_Write(last.download, last.download_end, found.end()))


def _is_program(commands: CommandText, found: re.Match[bytes]) -> bool:
    """Whether the word `found` starts at is its command's program (past wrappers), not a word of
    another command (`git fetch`); a command too long to read counts as its program."""
    command = commands.upto(found.start(), found.start(1) + len(found.group(1)))
    if command is None:
        return True
    words = split(last_command(command))
    at = unwrapped(words)
    return (
        isinstance(at, int)
        and at == len(words) - 1
        and words[at].rsplit("/", 1)[-1] == found.group(1).decode()
    )


def downloads_run(view: bytes, hidden: Callable[[int], bool], budget: int = 1 << 22) -> Iterator[DownloadRun]:
    """Each command of `view` (code, or a command line handed on in a string) that runs a path a
    download before it wrote, or a copy of one, with the last such download, in one pass over the
    text after the first download."""
    written: dict[str, list[_Write]] = defaultdict(list)
    commands = CommandText(view, budget)  # `budget`: characters of commands read word by word
    for found in _WRITER().finditer(view):
        if hidden(found.start()):
            continue
        if found.group(1) is None:
            if written:
                _copied(commands, found, written)
            continue
        if found.group(1).decode() in COMMAND_WORD_ONLY and not _is_program(commands, found):
            continue
        for path in _written(found.group(1), found.group(2), found.group(3)):
            written[path].append(_Write(found.start(), found.end(), found.end()))
    if not written:
        return
    if commands.exhausted:  # a copy not read: what it wrote may be run anywhere after
        first = min(w.download for writes in written.values() for w in writes)
        yield DownloadRun(first, first, first)
        return
    verified = [found.start() for found in _VERIFIES().finditer(view)]
    sinces = {path: [write.since for write in writes] for path, writes in written.items()}
    paths = sorted(written, key=len, reverse=True)
    named = b"|".join(re.escape(path.encode("latin-1")) for path in paths)
    use = re.compile(_BEFORE + rb"(?:\./)?(" + named + rb")" + _AFTER)
    for found in use.finditer(view, min(write.since for writes in written.values() for write in writes)):
        path = found.group(1).decode("latin-1")
        writes = written[path]
        last = bisect_right(sinces[path], found.start()) - 1
        if last < 0:
            continue
        write = writes[last]
        if bisect_left(verified, write.download_end) < bisect_left(verified, found.start()):
            continue  # verified in between
        command = commands.upto(found.start(), found.end())
        if command is None:  # too long a command to read each of its words from its start
            yield DownloadRun(write.download, found.start(), found.end())
            return
        if runs_file_at_end(command, found.group().decode("latin-1"), quoted=hidden(found.start())):
            yield DownloadRun(write.download, found.start(), found.end())

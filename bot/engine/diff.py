"""The change as data: files, statuses, modes and hunks parsed from unified diff text.

Everything is parsed here, in one pass. unidiff, used before, keeps git's C-quoted names quoted,
splits `diff --git` lines with spaces in names by guesswork, reads no rename, copy or similarity
lines, and skips what it does not recognise (a hunk header it cannot read, with its lines): a
reading that must fail closed cannot lean on it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import chain, islice, repeat
from operator import indexOf
from typing import NamedTuple, cast

from bot.engine.errors import ReceiptError
from bot.engine.gitpath import QuotedPathError, split_git_header, strip_prefix, unquote

BINARY_SNIFF_BYTES = 8000
SYMLINK_MODE = "120000"
SUBMODULE_MODE = "160000"
DEV_NULL = "/dev/null"


class FileStatus(StrEnum):
    ADDED = "added"
    DELETED = "deleted"
    MODIFIED = "modified"
    RENAMED = "renamed"
    COPIED = "copied"


class LineKind(StrEnum):
    ADDED = "+"
    REMOVED = "-"
    CONTEXT = " "


class DiffParseError(ReceiptError, ValueError):
    """Text that is not a unified diff; `line` is 1-based in the diff text."""

    title = "cannot read the diff"

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"diff line {line}: {problem}")
        self.line = line
        self.reason = problem


class DiffLine(NamedTuple):
    """One line of a hunk. A named tuple: a large change holds hundreds of thousands of them."""

    kind: LineKind
    text: str
    old_no: int | None
    new_no: int | None
    no_newline: bool = False  # followed by "\\ No newline at end of file": the file ends without \n

    @property
    def number(self) -> int:
        """The line's number where it lives: head for added and context lines, base for removed."""
        if self.kind is LineKind.REMOVED:
            assert self.old_no is not None
            return self.old_no
        assert self.new_no is not None
        return self.new_no


class _Run(NamedTuple):
    """Consecutive lines of one kind in a hunk, as the diff has them: joined by line feeds, each with
    its one-character tag; the base and head numbers of the first; whether the last is followed by
    "\\ No newline at end of file"."""

    kind: LineKind
    raw: str
    size: int
    old_no: int | None
    new_no: int | None
    no_newline: bool = False

    def texts(self) -> list[str]:
        """The lines without their tags (every line feed of `raw` is followed by the run's tag)."""
        return self.raw[1:].split("\n" + self.kind.value)

    def first_texts(self, count: int) -> list[str]:
        """`texts()[:count]`, reading no further than those lines (a new file is one run)."""
        separator = "\n" + self.kind.value
        lines: list[str] = []
        at = 1
        while len(lines) < min(count, self.size):
            end = self.raw.find(separator, at)
            end = len(self.raw) if end < 0 else end
            lines.append(self.raw[at:end])
            at = end + len(separator)
        return lines

    def text(self) -> str:
        """The lines without their tags, joined by line feeds."""
        return self.raw[1:].replace("\n" + self.kind.value, "\n")

    def head_numbers(self) -> range:
        assert self.new_no is not None, "a run of removed lines has no head numbers"
        return range(self.new_no, self.new_no + self.size)

    def rows(self) -> Iterator[DiffLine]:
        old = repeat(None) if self.old_no is None else range(self.old_no, self.old_no + self.size)
        new = repeat(None) if self.new_no is None else self.head_numbers()
        rows = _rows(self.kind, self.texts(), old, new)
        if not self.no_newline:
            return rows
        lines = list(rows)
        lines[-1] = lines[-1]._replace(no_newline=True)
        return iter(lines)


class Hunk:
    """One hunk: its header's numbers and its lines. The lines are kept as the diff's runs of one
    kind and built as DiffLines when first asked for: a large change holds hundreds of thousands,
    and the content rules read only each hunk's added text (`added_text`)."""

    __slots__ = ("_lines", "_runs", "new_len", "new_start", "old_len", "old_start")
    _lines: tuple[DiffLine, ...] | None
    _runs: tuple[_Run, ...]
    new_len: int
    new_start: int
    old_len: int
    old_start: int

    def __init__(
        self, old_start: int, old_len: int, new_start: int, new_len: int, runs: Sequence[_Run]
    ) -> None:
        assign = object.__setattr__  # the class refuses assignment: it is hashed by its lines
        assign(self, "old_start", old_start)
        assign(self, "old_len", old_len)
        assign(self, "new_start", new_start)
        assign(self, "new_len", new_len)
        assign(self, "_runs", tuple(runs))
        assign(self, "_lines", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Hunk is immutable: cannot set {name}")

    def __reduce__(self) -> tuple[type[Hunk], tuple[int, int, int, int, tuple[_Run, ...]]]:
        return Hunk, (self.old_start, self.old_len, self.new_start, self.new_len, self._runs)

    @property
    def lines(self) -> tuple[DiffLine, ...]:
        if self._lines is None:  # two threads may both build it: the same lines either way
            object.__setattr__(self, "_lines", tuple(line for run in self._runs for line in run.rows()))
        assert self._lines is not None
        return self._lines

    def changed_blocks(self) -> Iterator[tuple[list[str], list[str], list[int], int]]:
        """Each run of removed and added lines between context lines: (removed texts, added texts,
        the added lines' head numbers, the number of the block's first line where it lives: its
        first added line's, else its first removed line's), read off the runs without building the
        DiffLines (locality reads every changed line of a large change, nothing else all of them)."""
        removed: list[str] = []
        added: list[str] = []
        numbers: list[int] = []
        first_removed = 0
        for run in self._runs:
            if run.kind is LineKind.CONTEXT:
                if removed or added:
                    yield removed, added, numbers, numbers[0] if added else first_removed
                removed, added, numbers = [], [], []
            elif run.kind is LineKind.REMOVED:
                if not removed:
                    assert run.old_no is not None
                    first_removed = run.old_no
                removed += run.texts()
            else:
                added += run.texts()
                numbers += run.head_numbers()
        if removed or added:
            yield removed, added, numbers, numbers[0] if added else first_removed

    def _key(self) -> tuple[int, int, int, int, tuple[DiffLine, ...]]:
        return self.old_start, self.old_len, self.new_start, self.new_len, self.lines

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hunk) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"Hunk(old_start={self.old_start}, old_len={self.old_len}, new_start={self.new_start}, "
            f"new_len={self.new_len}, lines={self.lines!r})"
        )

    @property
    def added(self) -> int:
        return sum(run.size for run in self._runs if run.kind is LineKind.ADDED)

    @property
    def removed(self) -> int:
        return sum(run.size for run in self._runs if run.kind is LineKind.REMOVED)

    def head_start(self, count: int) -> list[str]:
        """The first `count` (or fewer) lines of the hunk's head side: its context and added lines."""
        lines: list[str] = []
        for run in self._runs:
            if run.kind is not LineKind.REMOVED:
                lines += run.first_texts(count - len(lines))
                if len(lines) == count:
                    break
        return lines

    def added_text(self) -> tuple[str, Sequence[int]]:
        """The added lines joined by line feeds, and the head number of each (a range when the hunk
        only adds), without building a DiffLine."""
        runs = [run for run in self._runs if run.kind is LineKind.ADDED]
        text = "\n".join(run.text() for run in runs)
        if self.old_len == 0:
            return text, range(self.new_start, self.new_start + sum(run.size for run in runs))
        return text, tuple(chain.from_iterable(run.head_numbers() for run in runs))


@dataclass(frozen=True, slots=True)
class FileDiff:
    old_path: str | None
    new_path: str | None
    status: FileStatus
    old_mode: str | None = None
    new_mode: str | None = None
    binary: bool = False
    similarity: int | None = None
    old_blob: str | None = None
    new_blob: str | None = None
    hunks: tuple[Hunk, ...] = ()

    @property
    def path(self) -> str:
        """The path a reviewer knows the file by: the new one unless the file was deleted."""
        path = self.new_path if self.new_path is not None else self.old_path
        assert path is not None
        return path

    @property
    def paths(self) -> tuple[str, ...]:
        """Every distinct path the change touches (both sides of a rename or copy)."""
        sides = [p for p in (self.old_path, self.new_path) if p is not None]
        return tuple(dict.fromkeys(sides))

    @property
    def is_symlink(self) -> bool:
        return SYMLINK_MODE in (self.old_mode, self.new_mode)

    @property
    def adds_symlink(self) -> bool:
        return self.new_mode == SYMLINK_MODE

    @property
    def is_submodule(self) -> bool:
        return SUBMODULE_MODE in (self.old_mode, self.new_mode)

    @property
    def mode_changed(self) -> bool:
        """The executable bit or file type changed on a file that exists on both sides."""
        return self.old_mode is not None and self.new_mode is not None and self.old_mode != self.new_mode

    @property
    def added(self) -> int:
        return sum(h.added for h in self.hunks)

    @property
    def removed(self) -> int:
        return sum(h.removed for h in self.hunks)

    def added_lines(self) -> Iterator[DiffLine]:
        for hunk in self.hunks:
            for line in hunk.lines:
                if line.kind is LineKind.ADDED:
                    yield line


@dataclass(frozen=True, slots=True)
class Diff:
    files: tuple[FileDiff, ...] = field(default_factory=tuple)

    @property
    def hunk_count(self) -> int:
        return sum(len(f.hunks) for f in self.files)

    @property
    def added(self) -> int:
        return sum(f.added for f in self.files)

    @property
    def removed(self) -> int:
        return sum(f.removed for f in self.files)


def looks_binary(data: bytes) -> bool:
    """git's own reading of a file's bytes (no attributes): binary when a NUL is among the first
    8,000."""
    return b"\0" in data[:BINARY_SNIFF_BYTES]


_MODE = r"(?P<mode>[0-7]{6})"
_HEADER_PATTERNS: dict[str, re.Pattern[str]] = {
    "old_mode": re.compile(rf"old mode {_MODE}"),
    "new_mode": re.compile(rf"new mode {_MODE}"),
    "new_file": re.compile(rf"new file mode {_MODE}"),
    "deleted_file": re.compile(rf"deleted file mode {_MODE}"),
    "rename_from": re.compile(r"rename from (?P<path>.+)"),
    "rename_to": re.compile(r"rename to (?P<path>.+)"),
    "copy_from": re.compile(r"copy from (?P<path>.+)"),
    "copy_to": re.compile(r"copy to (?P<path>.+)"),
    "similarity": re.compile(r"(?:dis)?similarity index (?P<pct>\d{1,3})%"),
    "index": re.compile(r"index (?P<old>[0-9a-f]+)\.\.(?P<new>[0-9a-f]+)(?: (?P<mode>[0-7]{6}))?"),
    "minus": re.compile(r"--- (?P<path>.+?)\t?"),
    "plus": re.compile(r"\+\+\+ (?P<path>.+?)\t?"),
}
_BINARY = re.compile(r"Binary files .* differ|GIT binary patch")
_HUNK_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
# Digits of a hunk header's numbers: 10^18 lines is past any file, and the numbers stay machine
# integers (Python refuses to read an integer of more than 4,300 digits at all).
MAX_HUNK_DIGITS = 18


def _split_lines(text: str) -> list[str]:
    """The lines of `text`, each without the \\n that ends it: \\r, form feeds and U+2028 are
    content, not line breaks."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _shown(line: str) -> str:
    """The start of a diff line as an error message quotes it: as the diff has it, with its line
    break when that falls within the 80 characters shown."""
    return (line + "\n")[:80]


_GIT_HEADER = "diff --git "


def _header_starts(data: bytes | str) -> list[int]:
    """The offsets of the lines that start with `diff --git ` (a search for the line break before
    each: much faster than a multi-line regex over a large diff)."""
    marker = "\n" + _GIT_HEADER
    needle = marker.encode() if isinstance(data, bytes) else marker
    starts = [0] if data.startswith(needle[1:]) else []  # type: ignore[arg-type]
    at = data.find(needle)  # type: ignore[arg-type]
    while at >= 0:
        starts.append(at + 1)
        at = data.find(needle, at + 1)  # type: ignore[arg-type]
    return starts


def parse_diff(data: bytes | str) -> Diff:
    """Parse `git diff` output (or a plain unified diff) into a Diff.

    A git diff is read one file at a time, decoded and split per file: its memory is the parsed
    change, not also every line of the whole text at once (nor, for a diff with one wide character,
    the whole text at four bytes a character). Raises DiffParseError naming the line when the text
    is not a well-formed diff.
    """
    starts = _header_starts(data)
    if starts:
        return Diff(tuple(_parse_git_blocks(data, starts)))
    return Diff(tuple(_parse_plain(_split_lines(_decoded(data)))))


def _decoded(data: bytes | str) -> str:
    """Diff bytes as text, losslessly: a byte that is not part of valid UTF-8 is kept as a surrogate
    escape, so a Python file's declared codec later reads the file's own bytes (sourcetext.py)."""
    return data.decode("utf-8", errors="surrogateescape") if isinstance(data, bytes) else data


def _parse_git_blocks(data: bytes | str, starts: list[int]) -> Iterator[FileDiff]:
    for i, line in enumerate(_split_lines(_decoded(data[: starts[0]]))):
        if line.strip():
            raise DiffParseError(i + 1, "text before the first 'diff --git' header")
    newline = b"\n" if isinstance(data, bytes) else "\n"
    line_no = data.count(newline, 0, starts[0]) + 1  # type: ignore[arg-type]
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(data)
        block = _split_lines(_decoded(data[start:end]))
        yield _parse_git_block(block, line_no)
        line_no += len(block)


def _parse_git_block(block: list[str], first_line: int) -> FileDiff:
    header_end = next((i for i, line in enumerate(block) if _HUNK_HEADER.match(line)), len(block))
    facts: dict[str, re.Match[str]] = {}
    binary = False
    for offset, line in enumerate(block[1:header_end], start=1):
        content = line
        if _BINARY.fullmatch(content):
            binary = True
            continue
        for name, pattern in _HEADER_PATTERNS.items():
            match = pattern.fullmatch(content)
            if match:
                facts[name] = match
                break
        else:
            if binary:
                continue  # base85 payload of a binary patch
            raise DiffParseError(first_line + offset, f"unexpected header line {content[:80]!r}")
    try:
        old_path, new_path = _git_paths(block[0][len(_GIT_HEADER) :], facts)
    except QuotedPathError as exc:
        raise DiffParseError(first_line, str(exc)) from exc
    if old_path is None and new_path is None:
        raise DiffParseError(first_line, "cannot tell the file's path from the header")
    status = _git_status(facts)
    if status is FileStatus.ADDED:
        old_path = None
    elif status is FileStatus.DELETED:
        new_path = None
    old_mode, new_mode = _git_modes(facts, status)
    index = facts.get("index")
    similarity = facts.get("similarity")
    hunks, used = _parse_hunks(block[header_end:], first_line + header_end, new_path or old_path or "")
    for offset, line in enumerate(block[header_end + used :], start=header_end + used):
        if line.strip():
            after = f"hunk {len(hunks)}" if hunks else "the header"
            raise DiffParseError(first_line + offset, f"unexpected text after {after}: {_shown(line)!r}")
    return FileDiff(
        old_path=old_path,
        new_path=new_path,
        status=status,
        old_mode=old_mode,
        new_mode=new_mode,
        binary=binary,
        similarity=int(similarity["pct"]) if similarity else None,
        old_blob=_blob(index["old"]) if index else None,
        new_blob=_blob(index["new"]) if index else None,
        hunks=hunks,
    )


def _blob(sha: str) -> str | None:
    return None if set(sha) == {"0"} else sha


def _git_paths(rest: str, facts: dict[str, re.Match[str]]) -> tuple[str | None, str | None]:
    for kind in ("rename", "copy"):
        if f"{kind}_from" in facts and f"{kind}_to" in facts:
            return unquote(facts[f"{kind}_from"]["path"]), unquote(facts[f"{kind}_to"]["path"])
    old = _side(facts, "minus", "a/")
    new = _side(facts, "plus", "b/")
    if old or new:
        return old or new, new or old
    split = split_git_header(rest)
    if split is None:
        return None, None
    return split


def _side(facts: dict[str, re.Match[str]], name: str, prefix: str) -> str | None:
    if name not in facts:
        return None
    path = unquote(facts[name]["path"])
    return None if path == DEV_NULL else strip_prefix(path, prefix)


def _git_status(facts: dict[str, re.Match[str]]) -> FileStatus:
    if "new_file" in facts:
        return FileStatus.ADDED
    if "deleted_file" in facts:
        return FileStatus.DELETED
    if "rename_from" in facts:
        return FileStatus.RENAMED
    if "copy_from" in facts:
        return FileStatus.COPIED
    return FileStatus.MODIFIED


def _git_modes(facts: dict[str, re.Match[str]], status: FileStatus) -> tuple[str | None, str | None]:
    index_mode = facts["index"]["mode"] if "index" in facts else None
    if status is FileStatus.ADDED:
        return None, facts["new_file"]["mode"]
    if status is FileStatus.DELETED:
        return facts["deleted_file"]["mode"], None
    old = facts["old_mode"]["mode"] if "old_mode" in facts else index_mode
    new = facts["new_mode"]["mode"] if "new_mode" in facts else index_mode
    return old, new


def _parse_hunks(
    lines: Sequence[str], first_line: int, path: str, start: int = 0
) -> tuple[tuple[Hunk, ...], int]:
    """The hunks of one file from `lines[start]` on, and the index of the first line after them;
    `first_line` is the diff's line number of `lines[0]`.

    Each hunk is read by the counts its header states, and every line must be what a hunk holds: a
    blank line between hunks (a hand-edited patch) or a short hunk is an error naming the hunk, not a
    shifted reading of the rest. One pass over the lines, which a change of 200,000 lines needs."""
    hunks: list[Hunk] = []
    pos = start
    while pos < len(lines):
        header = _HUNK_HEADER.match(lines[pos])
        if header is None:
            blank = pos
            while pos < len(lines) and not lines[pos].strip():
                pos += 1
            if hunks and pos < len(lines) and _HUNK_HEADER.match(lines[pos]):
                raise DiffParseError(
                    first_line + blank,
                    f"a blank line after hunk {len(hunks)} of {path}, before hunk {len(hunks) + 1}: hunks "
                    "follow each other directly (an empty context line is a single space)",
                )
            pos = blank
            break
        longest = max(len(number or "") for number in header.groups())
        if longest > MAX_HUNK_DIGITS:
            raise DiffParseError(
                first_line + pos,
                f"hunk {len(hunks) + 1} of {path}: its header states a number of {longest:,} digits, "
                f"past any file (a line number or count has at most {MAX_HUNK_DIGITS})",
            )
        hunk, pos = _read_hunk(
            lines, pos, header, first_line, f"hunk {len(hunks) + 1} ({header.group()}) of {path}"
        )
        hunks.append(hunk)
    return tuple(hunks), pos


def _count(text: str | None) -> int:
    return 1 if text is None else int(text)


def _rows(
    kind: LineKind, texts: list[str], old: Iterable[int | None], new: Iterable[int | None]
) -> Iterator[DiffLine]:
    """DiffLines of `kind`, built by tuple.__new__ in C rather than the named tuple's constructor, a
    Python function: a large diff's lines are most of the time its parse takes."""
    rows = map(tuple.__new__, repeat(DiffLine), zip(repeat(kind), texts, old, new, repeat(False)))
    return cast("Iterator[DiffLine]", rows)


def _run(lines: Sequence[str], pos: int, tag: str, limit: int) -> int:
    """How many lines from `lines[pos]` on, `limit` at most, start with `tag` (the scan runs in C)."""
    starts = map(str.startswith, islice(lines, pos, pos + limit), repeat(tag))
    try:
        return indexOf(starts, False)
    except ValueError:
        return min(limit, len(lines) - pos)


def _taken(lines: Sequence[str], pos: int, tag: str, limit: int) -> tuple[int, str]:
    """How many lines from `lines[pos]` on, `limit` at most, start with `tag`, and those lines joined
    by line feeds. Most often all of them do, which one count of the joined lines shows (in C)."""
    joined = "\n".join(lines[pos : pos + limit])
    whole = min(limit, len(lines) - pos)
    if joined.startswith(tag) and joined.count("\n" + tag) == whole - 1:
        return whole, joined
    taken = _run(lines, pos, tag, limit)
    return taken, "\n".join(lines[pos : pos + taken])


def _read_hunk(
    lines: Sequence[str], pos: int, header: re.Match[str], first_line: int, name: str
) -> tuple[Hunk, int]:
    """One hunk whose header is `lines[pos]`; the index after it. Consecutive lines of one kind
    that the counts left allow are taken together, each exactly as the line-by-line reading below
    would take it."""
    old_start, old_len = int(header[1]), _count(header[2])
    new_start, new_len = int(header[3]), _count(header[4])
    old_no, new_no, old_left, new_left = old_start, new_start, old_len, new_len
    runs: list[_Run] = []
    pos += 1
    while old_left or new_left:
        if pos >= len(lines):
            raise DiffParseError(
                first_line + pos - 1,
                f"{name} ends early: {old_left} base and {new_left} head line(s) short of its header",
            )
        line = lines[pos]
        tag = line[:1]
        allowed = _ALLOWED[tag](old_left, new_left) if tag in _ALLOWED else 0
        if allowed:
            taken, raw = _taken(lines, pos, tag, allowed)
            runs.append(
                _Run(_KINDS[tag], raw, taken, None if tag == "+" else old_no, None if tag == "-" else new_no)
            )
            if tag != "+":
                old_no, old_left = old_no + taken, old_left - taken
            if tag != "-":
                new_no, new_left = new_no + taken, new_left - taken
            pos += taken
            continue
        if tag == "\\":  # "\ No newline at end of file": not a line, a fact about the one before
            if runs:
                runs[-1] = runs[-1]._replace(no_newline=True)
        elif tag == "" and old_left and new_left:  # an empty line is empty context, as git reads it
            runs.append(_Run(LineKind.CONTEXT, " ", 1, old_no, new_no))
            old_no += 1
            new_no += 1
            old_left -= 1
            new_left -= 1
        else:
            raise DiffParseError(
                first_line + pos,
                f"{name}: {line[:80]!r} does not fit its header "
                f"({old_left} base and {new_left} head line(s) left)",
            )
        pos += 1
    while pos < len(lines) and lines[pos].startswith("\\"):
        if runs:
            runs[-1] = runs[-1]._replace(no_newline=True)
        pos += 1
    return Hunk(old_start, old_len, new_start, new_len, runs), pos


_KINDS = {"+": LineKind.ADDED, "-": LineKind.REMOVED, " ": LineKind.CONTEXT}
# How many lines of a kind the counts left allow: an added line takes a head line, a removed one a
# base line, a context line one of each.
_ALLOWED: dict[str, Callable[[int, int], int]] = {
    "+": lambda old, new: new,
    "-": lambda old, new: old,
    " ": min,
}


_BINARY_PLAIN = re.compile(r"Binary files (?P<old>.+) and (?P<new>.+) differ")


def _parse_plain(lines: list[str]) -> Iterator[FileDiff]:
    """A unified diff without git headers (`diff -u`, `git diff --no-prefix` aside): `--- `/`+++ `
    file headers, each followed by its hunks. Other lines between files (`diff -u a b`, `Index:`)
    are the tools' own and are skipped; a hunk line outside a file's hunks is an error."""
    if not any(line.strip() for line in lines):
        return
    found = False
    pos = 0
    while pos < len(lines):
        line = lines[pos]
        binary = _BINARY_PLAIN.fullmatch(line)
        if line.startswith("--- ") and pos + 1 < len(lines) and lines[pos + 1].startswith("+++ "):
            old_name, new_name = line[4:], lines[pos + 1][4:]
            old, new = _plain_paths(old_name, new_name, pos + 1)
            hunks, pos = _parse_hunks(lines, 1, new or old or "", pos + 2)
            yield FileDiff(old_path=old, new_path=new, status=_plain_status(old, new), hunks=hunks)
            found = True
        elif binary is not None:
            old, new = _plain_paths(binary["old"], binary["new"], pos + 1)
            yield FileDiff(old_path=old, new_path=new, status=_plain_status(old, new), binary=True)
            pos += 1
            found = True
        elif line.startswith("@@"):
            raise DiffParseError(pos + 1, f"not a hunk header git writes: {line[:80]!r}")
        elif line.startswith(("+", "-", " ", "\\")):
            where = "before the first file header" if not found else "after the hunks of a file"
            raise DiffParseError(pos + 1, f"not a unified diff: {line[:80]!r} {where}")
        else:
            pos += 1
    if not found:
        raise DiffParseError(1, "not a unified diff: no '--- ' / '+++ ' file headers")


def _plain_paths(old_name: str, new_name: str, line: int) -> tuple[str | None, str | None]:
    try:
        old = _plain_side(old_name.split("\t", 1)[0], "a/")
        new = _plain_side(new_name.split("\t", 1)[0], "b/")
    except QuotedPathError as exc:
        raise DiffParseError(line, str(exc)) from exc
    if old is None and new is None:
        raise DiffParseError(line, "a file header names /dev/null on both sides")
    return old, new


def _plain_status(old: str | None, new: str | None) -> FileStatus:
    return FileStatus.ADDED if old is None else FileStatus.DELETED if new is None else FileStatus.MODIFIED


def _plain_side(name: str | None, prefix: str) -> str | None:
    if not name or name == DEV_NULL:
        return None
    return strip_prefix(unquote(name), prefix)

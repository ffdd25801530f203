"""The change as data: files, statuses, modes and hunks parsed from unified diff text.

unidiff parses the hunks. The file headers are parsed here because unidiff keeps git's C-quoted
names quoted, splits `diff --git` lines with spaces in names by guesswork and reads no rename,
copy or similarity lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

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


@dataclass(frozen=True, slots=True)
class Hunk:
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    lines: tuple[DiffLine, ...]

    @property
    def added(self) -> int:
        return sum(1 for line in self.lines if line.kind is LineKind.ADDED)

    @property
    def removed(self) -> int:
        return sum(1 for line in self.lines if line.kind is LineKind.REMOVED)


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
_HUNK_HEADER = re.compile(r"@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


def _split_lines(text: str) -> list[str]:
    """Lines ending in \\n only: \\r, form feeds and U+2028 are content, not line breaks."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line + "\n" for line in lines]


def parse_diff(data: bytes | str) -> Diff:
    """Parse `git diff` output (or a plain unified diff) into a Diff.

    Raises DiffParseError naming the line when the text is not a well-formed diff.
    """
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    lines = _split_lines(text)
    if any(line.startswith("diff --git ") for line in lines):
        return Diff(tuple(_parse_git_blocks(lines)))
    return Diff(tuple(_parse_plain(lines)))


def _parse_git_blocks(lines: list[str]) -> Iterator[FileDiff]:
    starts = [i for i, line in enumerate(lines) if line.startswith("diff --git ")]
    for i, line in enumerate(lines[: starts[0]]):
        if line.strip():
            raise DiffParseError(i + 1, "text before the first 'diff --git' header")
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        yield _parse_git_block(lines[start:end], start + 1)


def _parse_git_block(block: list[str], first_line: int) -> FileDiff:
    header_end = next((i for i, line in enumerate(block) if _HUNK_HEADER.match(line)), len(block))
    facts: dict[str, re.Match[str]] = {}
    binary = False
    for offset, line in enumerate(block[1:header_end], start=1):
        content = line[:-1]
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
        old_path, new_path = _git_paths(block[0][len("diff --git ") : -1], facts)
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
    hunks = _parse_hunks(block[header_end:], first_line + header_end) if header_end < len(block) else ()
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


def _parse_hunks(lines: Sequence[str], first_line: int) -> tuple[Hunk, ...]:
    """Hunks of one file. unidiff validates them (headers, line kinds, counts) in its fast
    metadata mode; the lines themselves are then read in one pass, which a change of 200,000
    lines needs (unidiff's full mode builds two objects per line)."""
    try:
        patch = PatchSet(["--- a/x\n", "+++ b/x\n", *lines], metadata_only=True)
    except (UnidiffParseError, ValueError, TypeError, AttributeError, IndexError) as exc:
        raise DiffParseError(first_line, f"malformed hunk: {exc}") from exc
    hunks: list[Hunk] = []
    pos = 0
    for raw in patch[0]:
        starts, lengths = (raw.source_start, raw.target_start), (raw.source_length, raw.target_length)
        body, pos = _read_hunk(lines, pos + 1, starts, lengths)
        hunks.append(Hunk(raw.source_start, raw.source_length, raw.target_start, raw.target_length, body))
    for offset, line in enumerate(lines[pos:]):
        if line.strip():
            raise DiffParseError(first_line + pos + offset, f"unexpected text after the hunks: {line[:80]!r}")
    return tuple(hunks)


def _read_hunk(
    lines: Sequence[str], pos: int, starts: tuple[int, int], lengths: tuple[int, int]
) -> tuple[tuple[DiffLine, ...], int]:
    (old_no, new_no), (old_left, new_left) = starts, lengths
    out: list[DiffLine] = []
    while old_left or new_left:
        line = lines[pos]
        pos += 1
        tag = line[0]
        if tag == "+":
            out.append(DiffLine(LineKind.ADDED, line[1:-1], None, new_no))
            new_no += 1
            new_left -= 1
        elif tag == "-":
            out.append(DiffLine(LineKind.REMOVED, line[1:-1], old_no, None))
            old_no += 1
            old_left -= 1
        elif tag == "\\":  # "\ No newline at end of file": not a line, a fact about the one before
            if out:
                out[-1] = out[-1]._replace(no_newline=True)
        else:
            out.append(DiffLine(LineKind.CONTEXT, line[1:-1], old_no, new_no))
            old_no += 1
            new_no += 1
            old_left -= 1
            new_left -= 1
    while pos < len(lines) and lines[pos].startswith("\\"):
        if out:
            out[-1] = out[-1]._replace(no_newline=True)
        pos += 1
    return tuple(out), pos


_KINDS = {"+": LineKind.ADDED, "-": LineKind.REMOVED, " ": LineKind.CONTEXT}


def _unidiff_hunk(raw: object) -> Hunk:
    out: list[DiffLine] = []
    for line in raw:  # type: ignore[attr-defined]
        if line.line_type in _KINDS:
            value = line.value.removesuffix("\n")
            out.append(DiffLine(_KINDS[line.line_type], value, line.source_line_no, line.target_line_no))
        elif out:  # "\\ No newline at end of file": a fact about the line before
            out[-1] = out[-1]._replace(no_newline=True)
    start_old, len_old = raw.source_start, raw.source_length  # type: ignore[attr-defined]
    start_new, len_new = raw.target_start, raw.target_length  # type: ignore[attr-defined]
    return Hunk(start_old, len_old, start_new, len_new, tuple(out))


def _parse_plain(lines: list[str]) -> Iterator[FileDiff]:
    """A unified diff without git headers (`diff -u`, `git diff --no-prefix` aside)."""
    if not any(line.strip() for line in lines):
        return
    try:
        patch = PatchSet(lines)
    except (UnidiffParseError, ValueError, TypeError, AttributeError, IndexError) as exc:
        raise DiffParseError(1, f"not a unified diff: {exc}") from exc
    if not patch:
        raise DiffParseError(1, "not a unified diff: no '--- ' / '+++ ' file headers")
    for patched in patch:
        try:
            old = _plain_side(patched.source_file, "a/")
            new = _plain_side(patched.target_file, "b/")
        except QuotedPathError as exc:
            raise DiffParseError(1, str(exc)) from exc
        if old is None and new is None:
            raise DiffParseError(1, "a file header names /dev/null on both sides")
        status = (
            FileStatus.ADDED if old is None
            else FileStatus.DELETED if new is None
            else FileStatus.MODIFIED
        )  # fmt: skip
        yield FileDiff(
            old_path=old,
            new_path=new,
            status=status,
            binary=bool(patched.is_binary_file),
            hunks=tuple(_unidiff_hunk(h) for h in patched),
        )


def _plain_side(name: str | None, prefix: str) -> str | None:
    if not name or name == DEV_NULL:
        return None
    return strip_prefix(unquote(name), prefix)

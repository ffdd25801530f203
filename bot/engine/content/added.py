"""The text a change adds, as the content rules read it: as its language reads it (`sourcetext.py`:
a Python file's declared encoding, each language's line terminators), every line numbered by the
diff line that holds it.

Each hunk's added lines are joined by newlines into one fragment (gitleaks does the same), so a
pattern can span lines (a PEM private key) and the regex engines run once per hunk instead of once
per line. Rules search the fragment's UTF-8 bytes: RE2 works on bytes, and encoding once per hunk
instead of once per pattern keeps a scan near the speed of the regex engine itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.engine.change import Change
from bot.engine.content.filekinds import Kind, kind_of
from bot.engine.diff import FileDiff, FileStatus
from bot.engine.sourcetext import Declared, declared_encoding, read_joined, read_text

T = TypeVar("T")


class Fragment:
    """The added lines of one hunk: `text`, its UTF-8 `data`, and the head line number of each line.

    Rules place a match by counting line breaks from the last offset asked about (in C), never by
    indexing every line: most fragments have nothing to place, and the matches of one rule come in
    ascending order, so placing them all reads the fragment once."""

    __slots__ = ("_bounds", "_known", "_memo", "data", "numbers", "text")

    def __init__(self, text: str, numbers: Sequence[int]) -> None:
        self.text = text
        self.data = text.encode("utf-8", "surrogatepass")
        self.numbers = numbers
        self._known = (0, 0)  # (offset, index of the line holding it)
        self._bounds = (1, 0)  # the last line `line_bounds` found (none yet)
        self._memo: dict[object, Any] | None = None

    def memo(self, key: object, compute: Callable[[Fragment], T]) -> T:
        """`compute(self)`, computed once per `key` (the rules of a scan share a prefilter's answer)."""
        if self._memo is None:
            self._memo = {}
        if key not in self._memo:
            self._memo[key] = compute(self)
        answer: T = self._memo[key]
        return answer

    def index_at(self, offset: int) -> int:
        """Which line of the fragment (0-based) holds byte `offset` of `data`."""
        known, index = self._known
        if offset >= known:
            index += self.data.count(b"\n", known, offset)
        else:
            index = self.data.count(b"\n", 0, offset)
        self._known = (offset, index)
        return index

    def line_at(self, offset: int) -> int:
        """The head line number of the line holding byte `offset` of `data`."""
        return self.numbers[self.index_at(offset)]

    def line_bounds(self, offset: int) -> tuple[int, int]:
        """Byte offsets of the start and end (before its newline) of the line holding `offset`.
        Many matches on one long line ask for the same line: it is searched for once."""
        start, end = self._bounds
        if start <= offset <= end:
            return start, end
        data = self.data
        found = data.find(b"\n", offset)
        self._bounds = start, end = data.rfind(b"\n", 0, offset) + 1, len(data) if found < 0 else found
        return start, end

    def lines_around(self, start: int, end: int) -> tuple[int, int]:
        """Byte offsets of the whole lines that the span [start, end) touches, without the final newline."""
        return self.line_bounds(start)[0], self.line_bounds(max(start, end - 1))[1]

    def lines_in(self, start: int, end: int) -> Iterator[tuple[int, int, int]]:
        """(index, start, end) of each line the span [start, end) touches, in order."""
        index = self.index_at(start)
        line_start, line_end = self.line_bounds(start)
        while True:
            yield index, line_start, line_end
            if line_end + 1 >= end:
                return
            index += 1
            line_start = line_end + 1
            line_end = self.line_bounds(line_start)[1]


@dataclass(frozen=True, slots=True)
class AddedFile:
    """One changed file's added text, as its language reads it (`sourcetext.py`). `head` is its full
    new text when known (fetched by the gatherer, or rebuilt from the diff for a new file), else
    None; `head_lines` the diff line number of each line of `head`, when the language's line
    terminators or declared encoding make them differ from the diff's (else None). `encoding` is the
    encoding a Python file declares."""

    file: FileDiff
    kind: Kind
    fragments: tuple[Fragment, ...]
    head: str | None
    head_lines: Sequence[int] | None = None
    encoding: Declared | None = None

    @property
    def path(self) -> str:
        return self.file.path

    def added_numbers(self) -> frozenset[int]:
        return frozenset(n for f in self.fragments for n in f.numbers)

    def diff_line(self, line: int) -> int:
        """The diff line number of line `line` of `head`."""
        return line if self.head_lines is None else self.head_lines[line - 1]

    def added_head_numbers(self) -> list[int]:
        """The numbers, in `head` (as a syntax tree numbers them), of the lines the change adds."""
        added = self.added_numbers()
        if self.head_lines is None:
            return sorted(added)
        return [n for n, diff_line in enumerate(self.head_lines, 1) if diff_line in added]

    def added_line(self, number: int) -> str | None:
        """The text of added head line `number`, or None if the change does not add it."""
        for fragment in self.fragments:
            if number in fragment.numbers:
                lines = fragment.memo(_LINES, _split_lines)  # once per fragment, however many findings
                return lines[fragment.numbers.index(number)]
        return None


_LINES = object()


def _split_lines(fragment: Fragment) -> list[str]:
    return fragment.text.split("\n")


def _head_text(change: Change, file: FileDiff, hunks: list[tuple[str, Sequence[int]]]) -> str | None:
    head = change.texts_of(file).head
    if head is not None:
        return head
    if file.status is FileStatus.ADDED and len(hunks) == 1:
        return hunks[0][0] + "\n"
    return None


def _start(head: str | None, file: FileDiff) -> str | None:
    """The file's first lines as far as known: its new text, or a hunk that starts the file (its
    context lines too: a declaration the change keeps still decides how the added lines read)."""
    if head is not None:
        return head[:4096]
    if file.hunks and file.hunks[0].new_start == 1:
        return "\n".join(file.hunks[0].head_start(2))
    return None


def _added_file(change: Change, file: FileDiff) -> AddedFile | None:
    hunks = [added for added in (hunk.added_text() for hunk in file.hunks) if added[1]]
    if not hunks:
        return None
    raw_head = _head_text(change, file, hunks)
    start = _start(raw_head, file)
    kind = kind_of(file.path, None if start is None else start.split("\n", 1)[0])
    declared = declared_encoding(start) if kind is Kind.PYTHON and start is not None else None
    fragments = tuple(Fragment(*read_joined(text, numbers, kind, declared)) for text, numbers in hunks)
    head, head_lines = (None, None) if raw_head is None else read_text(raw_head, kind, declared)
    return AddedFile(file, kind, fragments, head, head_lines, declared)


def _build(change: Change) -> tuple[AddedFile, ...]:
    out: list[AddedFile] = []
    for file in change.diff.files:
        if file.binary or file.is_submodule or file.adds_symlink or file.new_path is None:
            continue
        added = _added_file(change, file)
        if added is not None:
            out.append(added)
    return tuple(out)


def added_files(change: Change) -> tuple[AddedFile, ...]:
    """Every changed text file with added lines, in diff order (binary files, submodules and
    symlinks are other rules' business). Built anew on each call: an evaluation builds it once
    (rules.content_violations) and hands it to every rule."""
    return _build(change)


def chosen(change: Change, files: Sequence[AddedFile] | None) -> Sequence[AddedFile]:
    """The added files a rule reads: `files` (the change's as the evaluation built them, or some
    of them: engine/fan.py), or, for a rule run on its own, all of them built here."""
    return added_files(change) if files is None else files


def files_of_kind(change: Change, *kinds: Kind) -> Iterator[AddedFile]:
    return (f for f in added_files(change) if f.kind in kinds)

"""The reference (gold) patch: parsed once, applied to the base texts in memory to give G.

Application follows `git apply` without fuzz: every context and removed line must match the base
exactly (line ends included, so "\\ No newline at end of file" is honoured); a hunk whose lines are
not at the stated position may be found elsewhere, the nearest match winning, but never before the
end of the previous hunk. Anything else is a PatchApplyError naming the file and the hunk.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from bot.engine.change import parse_bounded
from bot.engine.diff import Diff, DiffParseError, FileDiff, FileStatus, Hunk, LineKind
from bot.engine.errors import ReceiptError, TooLargeToAssess
from bot.engine.gitpath import display_path


class ReferencePatchError(ReceiptError, ValueError):
    """A reference patch that cannot be used; `problem` says why."""

    title = "unusable reference patch"


class PatchApplyError(ReferencePatchError):
    """The reference does not apply to the base. `hunk` is 1-based; 0 for a whole-file problem."""

    title = "reference patch does not apply"

    def __init__(self, path: str, hunk: int, header: str, reason: str) -> None:
        where = f"hunk {hunk} ({header}) of {path}" if hunk else path
        super().__init__(f"{where} does not apply to the base: {reason}")
        self.path = path
        self.hunk = hunk
        self.header = header
        self.reason = reason


_NO_TEXTS: Mapping[str, str | None] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Reference:
    """A reference patch and the base texts it needs that the candidate's change does not carry.

    `base_texts` maps a path to its text at the base, or to None when it is binary or too large to
    read; a path missing from it is not in the base.
    """

    source: str
    digest: str
    diff: Diff
    base_texts: Mapping[str, str | None] = field(default_factory=lambda: _NO_TEXTS)


def parse_reference(data: bytes, source: str) -> Reference:
    """Parse patch bytes (a `git diff` or a plain unified diff) into a Reference without base texts,
    within the limits on the diff one receipt reads."""
    try:
        diff = parse_bounded(data)
    except TooLargeToAssess as exc:
        raise ReferencePatchError(f"too large: {exc.reason}") from exc
    except DiffParseError as exc:
        raise ReferencePatchError(f"not a diff: {exc}") from exc
    if not diff.files:
        raise ReferencePatchError("not a diff: it changes no file")
    for file in diff.files:
        for path in file.paths:
            if path.startswith("/") or any(part in ("", ".", "..") for part in path.split("/")):
                raise ReferencePatchError(
                    f"{display_path(path)!r} is not a path inside the repository (it has a leading '/', "
                    "or a '.', '..' or empty part)"
                )
    return Reference(source, "sha256:" + hashlib.sha256(data).hexdigest(), diff)


def measurable(file: FileDiff) -> bool:
    """Whether a file's change is text the token distance can read (not binary, symlink or submodule)."""
    return not (file.binary or file.is_symlink or file.is_submodule)


def base_path(file: FileDiff) -> str:
    """Where the file's base version lives: its old path, or its new one for an added file."""
    return file.path if file.old_path is None else file.old_path


def _hunk_header(hunk: Hunk) -> str:
    return f"@@ -{hunk.old_start},{hunk.old_len} +{hunk.new_start},{hunk.new_len} @@"


def _side(hunk: Hunk, kinds: tuple[LineKind, ...]) -> list[str]:
    return [line.text + ("" if line.no_newline else "\n") for line in hunk.lines if line.kind in kinds]


_MODULUS = (1 << 61) - 1
_BASE = 1_000_003


class _Windows:
    """The lines of a base text, with a rolling hash of their prefixes, so whether a run of lines
    sits at a position is a constant-time check (confirmed line by line when the hashes agree)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        prefix = [0]
        for line in lines:
            prefix.append((prefix[-1] * _BASE + hash(line)) % _MODULUS)
        self._prefix = prefix

    def hash_of(self, run: list[str]) -> int:
        value = 0
        for line in run:
            value = (value * _BASE + hash(line)) % _MODULUS
        return value

    def holds(self, at: int, run: list[str], run_hash: int, shift: int) -> bool:
        end = at + len(run)
        window = (self._prefix[end] - self._prefix[at] * shift) % _MODULUS
        return window == run_hash and self.lines[at:end] == run


def _nearest_first(expected: int, floor: int, last: int) -> Iterator[int]:
    """Every position in [floor, last], nearest to `expected` first (the earlier one on a tie):
    only positions that exist are visited, however far from the file `expected` is."""
    down, up = min(expected, last), max(expected + 1, floor)
    while down >= floor or up <= last:
        if up > last or (down >= floor and expected - down <= up - expected):
            yield down
            down -= 1
        else:
            yield up
            up += 1


def _locate(windows: _Windows, old: list[str], expected: int, floor: int) -> int | None:
    """The position of `old` in the base nearest to `expected`, not before `floor`: time linear in
    the base's lines, wherever the hunk says it is."""
    last = len(windows.lines) - len(old)
    run_hash, shift = windows.hash_of(old), pow(_BASE, len(old), _MODULUS)
    return next(
        (at for at in _nearest_first(expected, floor, last) if windows.holds(at, old, run_hash, shift)), None
    )


def _split_lines(text: str) -> list[str]:
    """Lines ending in \\n only, as the diff parser reads them: \\r, form feeds and U+2028 are content."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def apply_file(text: str, file: FileDiff) -> str:
    """The file's text after its hunks; PatchApplyError when a hunk's lines are not in `text`."""
    lines = _split_lines(text)
    windows = _Windows(lines)
    out: list[str] = []
    done = 0
    drift = 0  # where the previous hunk was found, relative to where it said it was
    stated_end = 0  # where the previous hunk said it ends
    for number, hunk in enumerate(file.hunks, start=1):
        old = _side(hunk, (LineKind.CONTEXT, LineKind.REMOVED))
        # git numbers an insertion into an empty range after the line it follows
        stated = hunk.old_start - 1 if hunk.old_len else hunk.old_start
        if stated > len(lines):  # git refuses it too: a hunk is looked for near where it says it is
            reason = f"it starts at line {hunk.old_start}, past the end of the base ({len(lines)} lines)"
            raise PatchApplyError(file.path, number, _hunk_header(hunk), reason)
        if stated < stated_end:
            # git refuses it too; and hunks that claim to go back and forth would each be looked for
            # across the whole base (hunks × lines), where in order the searches add up to the base
            reason = (
                f"it starts at line {hunk.old_start}, before hunk {number - 1} ends (line {stated_end}): "
                "a file's hunks come in order and do not overlap"
            )
            raise PatchApplyError(file.path, number, _hunk_header(hunk), reason)
        stated_end = stated + hunk.old_len
        at = _locate(windows, old, stated + drift, done)
        if at is None:
            raise PatchApplyError(
                file.path, number, _hunk_header(hunk), _mismatch(lines, old, stated + drift)
            )
        out.extend(lines[done:at])
        out.extend(_side(hunk, (LineKind.CONTEXT, LineKind.ADDED)))
        done = at + len(old)
        drift = at - stated
    out.extend(lines[done:])
    result = "".join(out)
    if file.status is FileStatus.DELETED and result:
        raise PatchApplyError(file.path, 0, "", "it deletes the file but leaves some of its lines")
    return result


def _mismatch(lines: list[str], old: list[str], expected: int) -> str:
    """Why `old` is not at `expected`: the first line that differs. One does: hunks come in order, so
    `expected` is never before the end of the previous hunk, and `_locate` would have found it there."""

    def line(i: int) -> str | None:
        return lines[expected + i] if expected + i < len(lines) else None

    first = next(i for i, want in enumerate(old) if line(i) != want)
    at, got, want = expected + first, line(first), old[first]
    if got is None:
        return f"it expects line {at + 1}, past the end of the file ({len(lines)} lines)"
    if got.rstrip("\n") == want.rstrip("\n"):
        return f"line {at + 1} differs only in its line end (a newline at the end of the file)"
    return f"line {at + 1} is {_show(got)} in the base, the patch expects {_show(want)}"


def _show(line: str) -> str:
    text = line.rstrip("\n")
    return repr(text if len(text) <= 60 else text[:57] + "...")

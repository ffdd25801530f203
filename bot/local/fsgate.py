"""The filesystem state gate: what a test run created, deleted or changed in its tree.

Every path is recorded with its type (file, directory, symlink, fifo, socket, device), its full
permission bits (setuid, setgid and sticky included), and its content: a file's SHA-256, a
symlink's target, a device's numbers. After the run a file is hashed only when the tree had a file
of the same size there, so the work is bounded by the tree as checked out, not by what the run
made. It does not trust .gitignore: an ignored `.env` written by a test is exactly what it exists
to catch.

The only things left out are the tool outputs `TOOL_OUTPUTS` names, each by where it lives and
what it is called (`*.pyc` directly inside `__pycache__`, pytest's own cache files...), and only
when the run created them: a file the tree already had is always compared, and a `.env` written
into `__pycache__/` or `node_modules/` is reported like any other. Only regular files (and, in a
package manager's directories, symlinks) are ever left out. The tree's top-level `.git` is the
throwaway repository receipt made for the run, not part of the change.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from bot.engine import SideEffect, SideEffectKind

_HASH_BLOCK = 1 << 20
MAX_DEPTH = 256  # levels of directories the gate reads
MAX_PATH_BYTES = 3072  # the longest directory path it reads into (the system's limit is 4096)
NOT_READ = "not read"


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """Files a tool writes inside a directory named `directory` (at any depth): `inside` is a
    regular expression over the path below that directory. `links` also leaves out symlinks."""

    directory: str
    inside: str
    what: str
    links: bool = False


# The README lists these; keep the two in step.
TOOL_OUTPUTS = (
    ToolOutput("__pycache__", r"[^/]+\.pyc", "bytecode: `*.pyc` directly inside it"),
    ToolOutput(
        ".pytest_cache",
        r"README\.md|\.gitignore|CACHEDIR\.TAG|v/cache/(lastfailed|nodeids|stepwise)",
        "pytest's `README.md`, `.gitignore`, `CACHEDIR.TAG`, `v/cache/lastfailed`, `v/cache/nodeids`, "
        "`v/cache/stepwise`",
    ),
    ToolOutput(
        ".mypy_cache",
        r"\.gitignore|CACHEDIR\.TAG|missing_stubs"
        r"|\d+\.\d+/(cache(\.\d+)?\.db(-journal|-wal|-shm)?|@plugins_snapshot\.json"
        r"|([^/]+/)*[^/]+\.(meta|data|deps)\.(json|ff))",
        "mypy's `.gitignore`, `CACHEDIR.TAG`, `missing_stubs`; under `X.Y/`: `cache*.db`, "
        "`@plugins_snapshot.json`, `*.meta.json`, `*.data.json`, `*.deps.json` (or `.ff`)",
    ),
    ToolOutput(
        ".ruff_cache",
        r"\.gitignore|CACHEDIR\.TAG|\d+\.\d+\.\d+[\w.+-]*/\d+",
        "ruff's `.gitignore`, `CACHEDIR.TAG`, `VERSION/NUMBER`",
    ),
    ToolOutput(
        ".hypothesis",
        r"\.gitignore|constants/[0-9a-f]{16}|unicode_data/[\d.]+/[\w.-]+\.json\.gz"
        r"|examples/[0-9a-f]{16}/[0-9a-f]{16}",
        "Hypothesis' `.gitignore`, `constants/HEX`, `unicode_data/VERSION/*.json.gz`, `examples/HEX/HEX`",
    ),
    ToolOutput(
        "node_modules",
        r"\.bin/[^/]+|\.package-lock\.json|\.modules\.yaml|\.yarn-state\.yml|\.yarn-integrity"
        r"|\.pnpm/.+|\.cache/.+|(@[^/.][^/]*/)?[^/.@][^/]*(/.+)?",
        "a package manager's: package directories (`NAME/…`, `@SCOPE/NAME/…`), `.bin/*`, `.pnpm/`, "
        "`.cache/`, `.package-lock.json`, `.modules.yaml`, `.yarn-state.yml`, `.yarn-integrity`",
        links=True,
    ),
    ToolOutput(
        ".venv",
        r"pyvenv\.cfg|\.gitignore|CACHEDIR\.TAG|(bin|Scripts|lib|lib64|Lib|include|Include|share)(/.+)?",
        "a virtual environment's `pyvenv.cfg`, `.gitignore`, `CACHEDIR.TAG`, `bin/`, `Scripts/`, "
        "`lib/`, `lib64`, `include/`, `share/`",
        links=True,
    ),
)
_COVERAGE = re.compile(r"\.coverage(\.[\w.-]+)?")  # coverage.py's data file (and parallel ones), anywhere
COVERAGE_WHAT = "`.coverage` and `.coverage.*` (coverage.py's data files)"
_INSIDE = {t.directory: (re.compile(t.inside), t.links) for t in TOOL_OUTPUTS}
_OWN_REPOSITORY = ".git"


@dataclass(frozen=True, slots=True)
class Entry:
    kind: str  # file, dir, symlink, fifo, socket, char-device, block-device, other
    mode: int  # permission bits, with setuid, setgid and sticky
    content: str  # sha256 of a file, target of a symlink, major:minor of a device, "" otherwise
    size: int = 0  # a file's


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISREG, "file"), (stat.S_ISDIR, "dir"), (stat.S_ISLNK, "symlink"), (stat.S_ISFIFO, "fifo"),
        (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "char-device"), (stat.S_ISBLK, "block-device"),
    ):  # fmt: skip
        if test(mode):
            return name
    return "other"


def _hash(path: Path) -> str:
    """The file's SHA-256, read without following a symlink and without blocking on a fifo put
    in its place since it was listed."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "changed while read"
        digest = hashlib.sha256()
        for block in iter(lambda: handle.read(_HASH_BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def _tool_output(rel: str, kind: str) -> bool:
    """Whether the created path `rel` is a tool output the gate leaves out."""
    if kind not in ("file", "symlink"):
        return False
    parts = rel.split("/")
    if kind == "file" and _COVERAGE.fullmatch(parts[-1]):
        return True
    for i, part in enumerate(parts[:-1]):
        rule = _INSIDE.get(part)
        if rule is not None:
            pattern, links = rule
            if (kind == "file" or links) and pattern.fullmatch("/".join(parts[i + 1 :])):
                return True
    return False


def _in_tool_directory(rel: str) -> bool:
    """A directory inside (or being) a tool's directory is not recorded itself: only what it holds is."""
    return any(part in _INSIDE for part in rel.split("/"))


def _entry(path: Path, info: os.stat_result, *, before: Entry | None, after: bool) -> Entry:
    """`before`: the path's entry before the run, when fingerprinting after it (`after`). A file's
    content is hashed only when there is something to compare it with of the same size, so the
    time spent after the run is bounded by the tree as it was checked out: a file the run created,
    or grew (a sparse 2 TB file takes no time to make), differs whatever its bytes are."""
    mode = stat.S_IMODE(info.st_mode)
    kind = _kind(info.st_mode)
    if kind == "file":
        if after and (before is None or before.kind != "file" or before.size != info.st_size):
            return Entry(kind, mode, "", info.st_size)
        return Entry(kind, mode, _hash(path), info.st_size)
    if kind == "symlink":
        return Entry(kind, mode, os.readlink(path))
    if kind in ("char-device", "block-device"):
        return Entry(kind, mode, f"{os.major(info.st_rdev)}:{os.minor(info.st_rdev)}")
    return Entry(kind, mode, "")


def fingerprint(root: Path, known: Mapping[str, Entry] | None = None) -> dict[str, Entry]:
    """Every path under `root` (relative, '/'-separated) with its type, mode and content.

    With `known` (the fingerprint before the run), tool outputs not in it are left out, and so are
    the directories of tools, unless known. The walk keeps its own stack (no recursion, whatever
    the depth); a directory deeper than `MAX_DEPTH` levels or with a path longer than
    `MAX_PATH_BYTES` is recorded but not read (`NOT_READ`), nor is one that cannot be listed."""
    found: dict[str, Entry] = {}
    after = known is not None
    pending = [""]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(root / folder if folder else root) as listing:
                names = sorted(entry.name for entry in listing)
        except OSError as exc:
            if folder in found:
                found[folder] = replace(found[folder], content=f"{NOT_READ}: {exc.strerror}")
            continue
        for name in names:
            if not folder and name == _OWN_REPOSITORY:
                continue
            rel = f"{folder}/{name}" if folder else name
            path = root / rel
            try:
                info = path.lstat()
            except FileNotFoundError:
                continue
            except OSError as exc:
                found[rel] = Entry("other", 0, f"{NOT_READ}: {exc.strerror}")
                continue
            kind = _kind(info.st_mode)
            record = True
            if known is not None and rel not in known:
                record = not (kind == "dir" and _in_tool_directory(rel))
                if _tool_output(rel, kind):
                    continue
            entry = _entry(path, info, before=None if known is None else known.get(rel), after=after)
            if kind == "dir":
                if rel.count("/") >= MAX_DEPTH - 1 or len(os.fsencode(rel)) > MAX_PATH_BYTES:
                    entry = replace(entry, content=f"{NOT_READ}: nested too deep")
                else:
                    pending.append(rel)
            if record:
                found[rel] = entry
    return found


def _under(path: str, directories: set[str]) -> bool:
    parts = path.split("/")
    return any("/".join(parts[:i]) in directories for i in range(1, len(parts)))


def _shown(text: str) -> str:
    """A symlink target as it can be shown: control characters and undecodable bytes escaped."""
    return "".join(
        c
        if c.isprintable()
        else f"\\x{ord(c) - 0xDC00:02x}"
        if 0xDC80 <= ord(c) <= 0xDCFF  # an undecodable byte, as os.readlink gives it
        else f"\\u{ord(c):04x}"
        for c in text
    )


def _describe(entry: Entry) -> str:
    if entry.kind == "symlink":
        return f"symlink -> {_shown(entry.content)}"
    if entry.kind == "file":
        return f"file, mode {entry.mode:04o}"
    if entry.content.startswith(NOT_READ):  # a directory the gate could not read, or anything else
        return f"{entry.kind}, {entry.content}"
    return entry.kind


def _change(old: Entry, new: Entry) -> str:
    if old.kind != new.kind:
        return f" ({_describe(old)} -> {_describe(new)})"
    notes = []
    if old.mode != new.mode:
        notes.append(f"mode {old.mode:04o} -> {new.mode:04o}")
    if old.content != new.content:
        if old.kind == "symlink":
            notes.append(f"target {_shown(old.content)} -> {_shown(new.content)}")
        elif old.kind == "file" and old.size != new.size:
            notes.append(f"content, {old.size} -> {new.size} bytes")
        elif old.kind != "dir":
            notes.append("content")
        elif new.content:
            notes.append(new.content)
    return f" ({', '.join(notes)})"


def compare(
    before: Mapping[str, Entry], after: Mapping[str, Entry], *, expected: Iterable[str] = ()
) -> list[SideEffect]:
    """Differences, reporting a created or deleted directory once rather than every path in it.

    `expected` names files the run is meant to write (its test report) when it did not have them:
    they, and directories created to hold them, are not side effects; what else is in those
    directories is, path by path."""
    effects: list[SideEffect] = []
    whole_dirs: set[str] = set()
    outputs = {p for p in expected if p not in before}
    holders = {"/".join(p.split("/")[:i]) for p in outputs for i in range(1, p.count("/") + 1)}
    for path in sorted(before.keys() | after.keys()):
        old, new = before.get(path), after.get(path)
        if old == new or _under(path, whole_dirs):
            continue
        if old is None and (path in outputs or (path in holders and new is not None and new.kind == "dir")):
            continue
        if old is None or new is None:
            entry = new or old
            assert entry is not None
            if entry.kind == "dir":
                whole_dirs.add(path)
            kind = SideEffectKind.CREATED if old is None else SideEffectKind.DELETED
            effects.append(SideEffect(path, kind, f" ({_describe(entry)})"))
        else:
            effects.append(SideEffect(path, SideEffectKind.MODIFIED, _change(old, new)))
    return effects

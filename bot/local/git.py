"""The git adapter: every git command the CLI and the Action run, with output git's config cannot bend."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bot.engine import ReceiptError, TooLargeToAssess, decode_bytes

# Pin every setting that changes the shape of `git diff` output, so the same commits give the
# same bytes on every machine whatever the user's config says.
_CONFIG = (
    "core.quotePath=true", "diff.noprefix=false", "diff.mnemonicPrefix=false",
    "diff.suppressBlankEmpty=false", "diff.relative=false", "diff.external=",
    "diff.renames=true", "diff.renameLimit=10000", "core.fsmonitor=false",
    "diff.interHunkContext=0", "core.bigFileThreshold=512m", f"core.attributesFile={os.devnull}",
    "merge.renames=true", "merge.directoryRenames=conflict", "merge.renameLimit=10000",
    "merge.conflictStyle=merge",
)  # fmt: skip
_DIFF_ARGS = (
    "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--full-index", "--find-renames",
    "--diff-algorithm=myers", "--indent-heuristic", "--submodule=short", "--ignore-submodules=none",
    "--src-prefix=a/", "--dst-prefix=b/", "--no-relative", "-O/dev/null", "--unified=3",
)  # fmt: skip
_PATHS_PER_COMMAND = 1000  # keeps each command line far below the system limit
# receipt's own attributes for every path. $GIT_DIR/info/attributes outranks every other source on
# every git version (the working tree's and the commits' .gitattributes, the user's global file),
# and `!attr` leaves an attribute unspecified whatever those say. With no `diff` attribute git
# reads binary or text from the bytes (a NUL in the first 8,000), names no textconv, external
# command or funcname driver; the conversion attributes are fixed too, though a diff of two
# commits never converts. With no `merge` attribute `merge-tree` uses git's own three-way text
# merge (binary by the bytes), never a driver a pull request names.
FIXED_ATTRIBUTES = (
    "* !diff !text !eol !crlf !filter !ident !working-tree-encoding !merge !conflict-marker-size\n"
)
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


@dataclass(frozen=True)
class MergeTree:
    """What `git merge-tree --write-tree` gives: the merged tree, and the paths that conflict."""

    tree: str
    conflicts: tuple[str, ...]


class GitError(ReceiptError):
    """A git command failed; `problem` is what to tell the user."""

    title = "git error"

    def __init__(self, problem: str, *, command: tuple[str, ...] = (), stderr: str = "") -> None:
        super().__init__(problem)
        self.command = command
        self.stderr = stderr


def _commits_and_trees(revs: Sequence[str]) -> tuple[str, ...]:
    return tuple(f"{rev}^{{{kind}}}" for rev in revs for kind in ("commit", "tree"))


def _split_shas(output: str, count: int) -> tuple[list[str], list[str]] | None:
    """rev-parse's output as the lines before its last `count` (less the `--end-of-options` it
    echoes without `--verify`) and those `count`, when they are SHAs; None otherwise. A range, a
    path or a name that is not a commit prints no lone SHA of its own, or more lines."""
    *lines, last = output.split("\n")
    if last or len(lines) < count:
        return None
    before, shas = lines[: len(lines) - count], lines[len(lines) - count :]
    if not all(map(_SHA.fullmatch, shas)):
        return None
    return (before[:-1] if before[-1:] == ["--end-of-options"] else before), shas


def _environment(base: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in base.items() if not k.startswith("GIT_")}
    env.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_CONFIG_NOSYSTEM="1", GIT_OPTIONAL_LOCKS="0")
    return env


@dataclass(frozen=True)
class Git:
    """A repository on disk. Revisions are passed after --end-of-options: never read as flags."""

    root: Path
    # The object format and object directory `_isolated` reads, asked of git once per repository.
    _layout: list[tuple[str, str]] = field(default_factory=list, compare=False, repr=False)
    # The tree of each commit `resolve_all` resolved, asked in the same process.
    _trees: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    # What `open` resolved for the `resolve_all` it was told of.
    _resolved: dict[tuple[str, ...], list[str]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def open(cls, directory: Path, revisions: Sequence[str] = ()) -> Git:
        """The repository holding `directory`, with the layout `_isolated` needs read by the same
        git process (the object directory as it names it from `directory`); and `resolve_all` of
        `revisions` too when none names a path (`rev:./path` would be read from `directory`, not
        from the top), else that is left to `resolve_all`."""
        where = directory.resolve()
        if not where.is_dir():
            raise GitError(f"{where}: no such directory")
        layout = ("rev-parse", "--show-toplevel", "--show-object-format", "--git-path", "objects")
        if revisions and not any(":" in rev for rev in revisions):
            args = (*layout, "--end-of-options", *_commits_and_trees(revisions))
            done = cls._completed(args, stdin=None, cwd=where, env=_environment(os.environ))
            found = _split_shas(done.stdout.decode("utf-8", "surrogateescape"), 2 * len(revisions))
            if done.returncode == 0 and found is not None and len(found[0]) >= 3:
                git = cls._at(where, found[0])
                git._remember(revisions, found[1])
                return git
        try:
            out = Git(where).run(*layout)
        except GitError as exc:
            raise GitError(f"{where}: not a git repository") from exc
        return cls._at(where, out.decode("utf-8", "surrogateescape").removesuffix("\n").split("\n"))

    @classmethod
    def _at(cls, where: Path, lines: list[str]) -> Git:
        """The repository from rev-parse's lines run in `where`: the top (which may hold line
        breaks of its own), the object format, the object directory."""
        top, object_format, objects = "\n".join(lines).rsplit("\n", 2)
        return cls(Path(top.strip()), [(object_format, os.path.normpath(where / objects))])

    def _remember(self, revs: Sequence[str], shas: list[str]) -> list[str]:
        """The commits of `revs` from their commit and tree SHAs, the trees kept for `resolve_tree`."""
        self._trees.update(zip(shas[::2], shas[1::2], strict=True))
        self._resolved[tuple(revs)] = commits = shas[::2]
        return list(commits)

    @classmethod
    def enclosing(cls, directory: Path) -> tuple[Git, str]:
        """The repository whose working tree holds `directory`, and where `directory` sits in it
        ('' at the top, else a path ending in '/'), found as git finds them; GitError outside one."""
        git = cls.open(directory)
        prefix = Git(directory.resolve()).run("rev-parse", "--show-prefix")
        return git, prefix.decode("utf-8", "surrogateescape").removesuffix("\n")

    def run(
        self,
        *args: str,
        stdin: bytes | None = None,
        check: bool = True,
        isolated: bool = False,
        environment: Mapping[str, str] | None = None,
    ) -> bytes:
        """`isolated`: the user's global config is not read either (receipt's own repositories).
        `environment`: variables set for this command alone (an index file, a commit's identity)."""
        env = _environment(os.environ)
        if isolated:
            env["GIT_CONFIG_GLOBAL"] = os.devnull
        env.update(environment or {})
        return self._run(args, stdin=stdin, check=check, cwd=self.root, env=env)

    def _run(
        self, args: tuple[str, ...], *, stdin: bytes | None, check: bool, cwd: Path, env: dict[str, str]
    ) -> bytes:
        done = self._completed(args, stdin=stdin, cwd=cwd, env=env)
        if check and done.returncode != 0:
            raise self._failure(args, done)
        return done.stdout

    @staticmethod
    def _completed(
        args: tuple[str, ...], *, stdin: bytes | None, cwd: Path, env: dict[str, str]
    ) -> subprocess.CompletedProcess[bytes]:
        command = ("git", *(a for c in _CONFIG for a in ("-c", c)), *args)
        try:
            return subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, check=False, env=env)
        except FileNotFoundError as exc:
            raise GitError("git is not installed or not on PATH") from exc

    @staticmethod
    def _failure(args: tuple[str, ...], done: subprocess.CompletedProcess[bytes]) -> GitError:
        err = done.stderr.decode("utf-8", "replace").strip()
        name = next(a for i, a in enumerate(args) if a != "-c" and (i == 0 or args[i - 1] != "-c"))
        return GitError(
            f"git {name} failed: {err.splitlines()[-1] if err else 'no output'}",
            command=tuple(str(a) for a in done.args),
            stderr=err,
        )

    def merge_tree(self, base: str, head: str) -> MergeTree:
        """The tree merging `head` into `base` gives (`git merge-tree --write-tree`), with the
        paths that conflict. It runs in the scratch repository, so only receipt's attributes and
        pinned config shape the merge (no merge driver the repository names runs); the merged
        objects are written to this repository's object store, unreferenced, for the reads
        that follow (git's gc prunes them)."""
        args = ("merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", "--end-of-options",
                self.resolve(base), self.resolve(head))  # fmt: skip
        with self._isolated() as (scratch, env):
            done = self._completed(args, stdin=None, cwd=scratch, env=env)
        tree, *names = done.stdout.split(b"\0")
        tree_sha = tree.decode("ascii", "replace")
        if done.returncode not in (0, 1) or not _SHA.fullmatch(tree_sha):
            raise self._failure(args, done)
        conflicts = tuple(dict.fromkeys(decode_bytes(n) for n in names if n)) if done.returncode else ()
        return MergeTree(tree_sha, conflicts)

    def resolve(self, rev: str) -> str:
        """The full SHA of the commit `rev` names; GitError naming the revision otherwise."""
        out = self.run(
            "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", check=False
        )
        sha = out.decode("ascii", "replace").strip()
        if not _SHA.fullmatch(sha):
            raise GitError(f"unknown revision {rev!r}: not a commit in {self.root}")
        return sha

    def resolve_all(self, revs: Sequence[str]) -> list[str]:
        """`resolve` of each of `revs`, in one git process when each names one commit: without
        `--verify` git takes several revisions, and a range, a path or a name that is not a commit
        prints no lone SHA of its own (or fails), which sends every one back to `resolve`, so the
        first that names no commit is the one the error names."""
        if tuple(revs) in self._resolved:
            return list(self._resolved[tuple(revs)])
        args = ("rev-parse", "--end-of-options", *_commits_and_trees(revs))
        done = self._completed(args, stdin=None, cwd=self.root, env=_environment(os.environ))
        found = _split_shas(done.stdout.decode("ascii", "replace"), 2 * len(revs))
        if done.returncode == 0 and found is not None and not found[0]:
            return self._remember(revs, found[1])
        return [self.resolve(rev) for rev in revs]

    def resolve_tree(self, rev: str) -> str:
        """The full SHA of the tree of commit `rev`."""
        if rev in self._trees:
            return self._trees[rev]
        out = self.run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{tree}}", check=False)
        sha = out.decode("ascii", "replace").strip()
        if not _SHA.fullmatch(sha):
            raise GitError(f"unknown revision {rev!r}: not a commit in {self.root}")
        return sha

    def exists(self, rev: str) -> bool:
        try:
            self.resolve(rev)
        except GitError:
            return False
        return True

    def merge_base(self, base: str, head: str) -> str:
        out = self.run("merge-base", "--end-of-options", base, head, check=False).decode().strip()
        if not _SHA.fullmatch(out):
            raise GitError(f"{base[:12]} and {head[:12]} have no common ancestor")
        return out

    def diff(
        self, old: str, new: str, *options: str, paths: Collection[str] = (), limit: int | None = None
    ) -> bytes:
        """`git diff old new` of two commits in the pinned shape, read the same way whatever the
        repository or its user configured; `options` add to it (`--binary`, `--numstat`), `paths`
        limit it (read literally). With `limit`, TooLargeToAssess as soon as git writes more bytes
        than that (git is stopped: a huge diff is never held in memory whole). Revisions are
        resolved here: the scratch repository has no refs."""
        old, new = (rev if _SHA.fullmatch(rev) else self.resolve(rev) for rev in (old, new))
        literal = ("--literal-pathspecs",) if paths else ()
        args = (*literal, *_DIFF_ARGS, *options, "--end-of-options", old, new, "--", *paths)
        with self._isolated() as (scratch, env):
            if limit is None:
                return self._run(args, stdin=None, check=True, cwd=scratch, env=env)
            return self._run_bounded(args, limit, cwd=scratch, env=env)

    @contextmanager
    def _isolated(self) -> Iterator[tuple[Path, dict[str, str]]]:
        """A bare repository of receipt's own that reads this one's objects and nothing else of it.

        Attributes and configuration a pull request or the caller could have placed (committed or
        working-tree .gitattributes, .git/info/attributes, .git/config, global and system files)
        are out of reach: git reads only FIXED_ATTRIBUTES, the pinned `-c` settings and the scratch
        repository's config. It needs nothing newer than git 2.32 (GIT_CONFIG_GLOBAL).
        """
        if not self._layout:
            found = self.run("rev-parse", "--show-object-format", "--git-path", "objects")
            object_format, objects = found.decode("utf-8", "surrogateescape").splitlines()
            self._layout.append((object_format, objects))
        object_format, objects = self._layout[0]
        with tempfile.TemporaryDirectory(prefix="receipt-diff-") as where:
            scratch = Path(where)
            for name in ("objects", "refs", "info"):
                (scratch / name).mkdir()
            (scratch / "HEAD").write_text("ref: refs/heads/receipt\n")
            (scratch / "config").write_text(
                "[core]\n\trepositoryformatversion = 1\n\tbare = true\n"
                f"[extensions]\n\tobjectformat = {object_format}\n"
            )
            (scratch / "info" / "attributes").write_text(FIXED_ATTRIBUTES)
            env = _environment(os.environ)
            env.update(
                GIT_DIR=str(scratch),
                GIT_OBJECT_DIRECTORY=str(self.root / objects),
                GIT_CONFIG_GLOBAL=os.devnull,
                GIT_ATTR_NOSYSTEM="1",
                GIT_NO_REPLACE_OBJECTS="1",
            )
            yield scratch, env

    def _run_bounded(self, args: tuple[str, ...], limit: int, *, cwd: Path, env: dict[str, str]) -> bytes:
        command = ("git", *(a for c in _CONFIG for a in ("-c", c)), *args)
        chunks: list[bytes] = []
        size = 0
        with tempfile.TemporaryFile() as errors:  # a file, so git never blocks on a full stderr pipe
            try:
                process = subprocess.Popen(
                    command,
                    cwd=cwd,
                    stdout=subprocess.PIPE,
                    stderr=errors,
                    env=env,
                )
            except FileNotFoundError as exc:
                raise GitError("git is not installed or not on PATH") from exc
            assert process.stdout is not None
            with process:
                while chunk := process.stdout.read(1 << 20):
                    size += len(chunk)
                    if size > limit:
                        process.kill()
                        raise TooLargeToAssess(f"the diff is more than the {limit:,} bytes one receipt reads")
                    chunks.append(chunk)
            if process.returncode != 0:
                errors.seek(0)
                err = errors.read().decode("utf-8", "replace").strip()
                raise GitError(
                    f"git {args[0]} failed: {err.splitlines()[-1] if err else 'no output'}",
                    command=command,
                    stderr=err,
                )
        return b"".join(chunks)

    def commit_message(self, rev: str) -> str:
        """The full message of commit `rev`."""
        return self.run("log", "-1", "--format=%B", "--end-of-options", rev, "--").decode("utf-8", "replace")

    def read_file(self, rev: str, path: str) -> bytes | None:
        """The file at `path` in commit `rev`, or None when it is not there."""
        spec = f"{rev}:{path}".encode("utf-8", "surrogateescape")
        out = self.run("cat-file", "--batch", stdin=spec + b"\n")
        header, _, rest = out.partition(b"\n")
        fields = header.split()
        if len(fields) != 3 or fields[1] != b"blob":
            return None
        return rest[: int(fields[2])]

    def ls_tree(self, rev: str, paths: Collection[str]) -> dict[str, tuple[str, str]]:
        """`path -> (mode, sha)` for those of `paths` in commit `rev`'s tree (paths read literally).

        Names are matched as `decode_bytes` renders them, which is lossless: a name that is not
        UTF-8 goes back to git as its own bytes (the command line is encoded with surrogateescape).
        """
        wanted = sorted(set(paths))
        found: dict[str, tuple[str, str]] = {}
        for i in range(0, len(wanted), _PATHS_PER_COMMAND):
            chunk = wanted[i : i + _PATHS_PER_COMMAND]
            self._read_tree(found, rev, "--", *chunk)
        return found

    def _read_tree(self, into: dict[str, tuple[str, str]], rev: str, *args: str) -> None:
        out = self.run("--literal-pathspecs", "ls-tree", "-z", "--full-tree", "--end-of-options", rev, *args)
        for record in out.split(b"\0"):
            meta, tab, name = record.partition(b"\t")
            fields = meta.split()
            if tab and len(fields) == 3:
                into[decode_bytes(name)] = (fields[0].decode("ascii"), fields[2].decode("ascii"))

    def list_tree(self, rev: str) -> dict[str, tuple[str, str, int]]:
        """`path -> (mode, sha, size)` of every file (blob) in commit `rev`'s tree."""
        out = self.run("ls-tree", "-r", "-l", "-z", "--full-tree", "--end-of-options", rev)
        found: dict[str, tuple[str, str, int]] = {}
        for record in out.split(b"\0"):
            meta, tab, name = record.partition(b"\t")
            fields = meta.split()
            if tab and len(fields) == 4 and fields[1] == b"blob":
                mode, sha = fields[0].decode("ascii"), fields[2].decode("ascii")
                found[decode_bytes(name)] = (mode, sha, int(fields[3]))
        return found

    def read_blobs(self, shas: Iterable[str], *, max_size: int) -> dict[str, bytes]:
        """Contents of the given blobs in one git process; blobs above `max_size` are left out."""
        wanted = sorted(set(shas))
        if not wanted:
            return {}
        out = self.run("cat-file", "--batch", stdin="".join(f"{s}\n" for s in wanted).encode())
        blobs: dict[str, bytes] = {}
        pos = 0
        for sha in wanted:
            end = out.index(b"\n", pos)
            fields = out[pos:end].split()
            pos = end + 1
            if len(fields) != 3:
                continue  # "<sha> missing"
            size = int(fields[2])
            if size <= max_size:
                blobs[sha] = out[pos : pos + size]
            pos += size + 1
        return blobs

    def origin_repo(self) -> str | None:
        """`owner/name` when the origin remote is a GitHub-style URL, else None."""
        url = self.run("config", "--get", "remote.origin.url", check=False).decode("utf-8", "replace").strip()
        match = re.search(r"[:/]([\w.-]+)/([\w.-]+?)(?:\.git)?/?$", url)
        remote = "://" in url or re.match(r"[\w.-]+@[\w.-]+:", url) is not None
        return f"{match[1]}/{match[2]}" if match and remote else None

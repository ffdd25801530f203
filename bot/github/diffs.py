"""A pull request's diff from the API: the diff media type, else rebuilt from the files API.

GitHub answers 406 for the diff media type above 300 files, 20,000 lines or 1 MB. The files API
then lists up to 3,000 files, each with its hunks (`patch`) unless the file is binary or its diff
is too large. Anything that cannot be seen whole fails closed with TooLargeToAssess: a receipt
never passes a change it could not read.

GitHub renders both by the repository's .gitattributes: a text file marked `-diff` or `binary`
comes as "Binary files differ", or without `patch`. Such a file is taken as binary only when its
bytes are (git's rule, no attributes); a text file GitHub shows without lines fails closed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from githubkit import GitHub

from bot.engine import Entry, FileDiff, ReceiptError, TooLargeToAssess, c_quote, looks_binary, parse_diff
from bot.github.errors import NotAcceptable, UnexpectedResponse, translated
from bot.github.pulls import PullRequest, get_pull
from bot.github.repo import RepoRef

DIFF_MEDIA_TYPE = "application/vnd.github.diff"
FILES_PER_PAGE = 100
MAX_LISTED_FILES = 3000
EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
MAX_CHECKED_BLOB = 32 << 20  # a file shown as binary is read whole to check; above this, refused


@dataclass(frozen=True, slots=True)
class FetchedDiff:
    data: bytes
    source: str  # "diff" (the media type) or "files" (rebuilt from the files API)


def _count_files(data: bytes) -> int:
    return sum(1 for line in data.split(b"\n") if line.startswith(b"diff --git "))


class HeadMoved(ReceiptError):
    """The pull request's head moved while its diff was being read: a newer head has its own receipt."""

    title = "the pull request moved on"


def fetch_compare_diff(gh: GitHub[Any], repo: RepoRef, base: str, head: str) -> bytes:
    """The diff of `base...head` named by SHAs (so it cannot change under the reader)."""
    with translated():
        response = gh.rest.repos.compare_commits(
            repo.owner, repo.name, f"{base}...{head}", headers={"Accept": DIFF_MEDIA_TYPE}
        )
    return response.content


class Entries(Protocol):
    def entries(self, commit: str, paths: list[str]) -> Mapping[str, Entry]: ...

    def blobs(self, shas: list[str], *, max_size: int) -> Mapping[str, bytes]: ...


def fetch_diff(
    gh: GitHub[Any], repo: RepoRef, pull: PullRequest, source: Entries, merge_base: str
) -> FetchedDiff:
    """The diff of `merge_base...pull.head_sha`; `source` supplies modes, blob SHAs and blobs.

    The compare diff is named by SHAs. When GitHub will not render it (406), the pull request's
    files API is the fallback; that describes the pull request as it is now, so the head is checked
    again after reading it, and a head that moved raises HeadMoved rather than mislabel the diff.
    Raises TooLargeToAssess when part of it cannot be seen, a text file GitHub hides included.
    """
    fetched = _fetch(gh, repo, pull, source, merge_base)
    refuse_hidden_text(fetched.data, _reader(source, merge_base, pull.head_sha))
    return fetched


def _fetch(
    gh: GitHub[Any], repo: RepoRef, pull: PullRequest, source: Entries, merge_base: str
) -> FetchedDiff:
    try:
        data = fetch_compare_diff(gh, repo, merge_base, pull.head_sha)
    except NotAcceptable:
        pass
    else:
        if pull.changed_files is None or _count_files(data) >= pull.changed_files:
            return FetchedDiff(data, "diff")
    files = list_files(gh, repo, pull)
    now = get_pull(gh, repo, pull.number)
    if now.head_sha != pull.head_sha:
        raise HeadMoved(f"pull request #{pull.number} moved from {pull.head_sha[:12]} to {now.head_sha[:12]}")
    old_paths = [str(f.get("previous_filename") or f.get("filename")) for f in files]
    new_paths = [str(f.get("filename")) for f in files]
    old, new = source.entries(merge_base, old_paths), source.entries(pull.head_sha, new_paths)
    return FetchedDiff(rebuild_diff(files, old, new), "files")


def fetch_range_diff(gh: GitHub[Any], repo: RepoRef, base: str, head: str, source: Entries) -> FetchedDiff:
    """The diff of a range with no pull request (a merge group): the compare diff, or nothing."""
    try:
        fetched = FetchedDiff(fetch_compare_diff(gh, repo, base, head), "diff")
    except NotAcceptable as exc:
        raise TooLargeToAssess(
            f"GitHub will not render the diff of {base[:12]}...{head[:12]} ({exc.message or 'HTTP 406'})"
        ) from exc
    refuse_hidden_text(fetched.data, _reader(source, base, head))
    return fetched


def _reader(source: Entries, old: str, new: str) -> Callable[[Side, str], bytes]:
    """The bytes of a file at `old` or `new`, for refuse_hidden_text."""

    def read(side: Side, path: str) -> bytes:
        entry = source.entries(old if side == "old" else new, [path]).get(path)
        if entry is None:
            raise TooLargeToAssess(f"{path}: not found in the commit trees GitHub returned")
        data = source.blobs([entry.sha], max_size=MAX_CHECKED_BLOB).get(entry.sha)
        if data is None:
            raise TooLargeToAssess(
                f"{path}: GitHub shows it as binary, and at over {MAX_CHECKED_BLOB:,} bytes it is too "
                "large to check that it is"
            )
        return data

    return read


Side = Literal["old", "new"]


def _same_blob(a: str | None, b: str | None) -> bool:
    """Blob names as a diff gives them (abbreviated or full; None where the file is absent)."""
    a, b = a or EMPTY_BLOB, b or EMPTY_BLOB
    return a.startswith(b) or b.startswith(a)


def refuse_hidden_text(data: bytes, read: Callable[[Side, str], bytes]) -> None:
    """TooLargeToAssess naming the first file whose content changes but that the diff shows without
    lines, unless its bytes are binary on a side (git's rule: binary when either side is).

    `read(side, path)` gives the file's bytes at the merge-base ("old") or the head ("new").
    """
    for file in parse_diff(data).files:
        if file.is_submodule or file.hunks or (not file.binary and _same_blob(file.old_blob, file.new_blob)):
            continue
        if file.binary and any(looks_binary(read(side, path)) for side, path in _sides(file)):
            continue
        raise TooLargeToAssess(
            f"{file.path}: GitHub shows no line diff for this text file (the repository's "
            ".gitattributes can mark it -diff or binary); receipt reads a file by its bytes, not "
            "by the repository's attributes, and cannot assess this one from the API"
        )


def _sides(file: FileDiff) -> list[tuple[Side, str]]:
    sides: list[tuple[Side, str]] = []
    if file.new_path is not None:
        sides.append(("new", file.new_path))
    if file.old_path is not None:
        sides.append(("old", file.old_path))
    return sides


def list_files(gh: GitHub[Any], repo: RepoRef, pull: PullRequest) -> list[dict[str, Any]]:
    if pull.changed_files is not None and pull.changed_files > MAX_LISTED_FILES:
        raise TooLargeToAssess(
            f"{pull.changed_files} changed files; GitHub lists at most {MAX_LISTED_FILES:,}"
        )
    files: list[dict[str, Any]] = []
    for page in range(1, MAX_LISTED_FILES // FILES_PER_PAGE + 1):
        with translated():
            listed = gh.rest.pulls.list_files(
                repo.owner, repo.name, pull.number, per_page=FILES_PER_PAGE, page=page
            ).json()
        if not isinstance(listed, list):
            raise UnexpectedResponse(200, "the files of a pull request are not a list")
        files.extend(listed)
        if len(listed) < FILES_PER_PAGE:
            break
    if pull.changed_files is not None and len(files) < pull.changed_files:
        raise TooLargeToAssess(f"GitHub listed {len(files)} of {pull.changed_files} changed files")
    return files


def quote_path(path: str) -> str:
    """`path` as git prints it with core.quotePath: C-quoted when it holds special bytes."""
    raw = path.encode("utf-8", "surrogateescape")
    if not any(b < 0x20 or b >= 0x7F or b in b'"\\' for b in raw):
        return path
    return c_quote(path, ascii_only=True)


def _side(prefix: str, path: str | None) -> str:
    return "/dev/null" if path is None else quote_path(prefix + path)


def _entry_lines(
    file: dict[str, Any], old_tree: Mapping[str, Entry], new_tree: Mapping[str, Entry]
) -> list[str]:
    status = str(file.get("status", ""))
    new_path = str(file["filename"])
    old_path = str(file.get("previous_filename") or new_path)
    if status == "added":
        old_path_or_none, new_path_or_none = None, new_path
    elif status == "removed":
        old_path_or_none, new_path_or_none = new_path, None
    else:
        old_path_or_none, new_path_or_none = old_path, new_path
    old = old_tree.get(old_path_or_none) if old_path_or_none else None
    new = new_tree.get(new_path_or_none) if new_path_or_none else None
    if (old_path_or_none and old is None) or (new_path_or_none and new is None):
        raise TooLargeToAssess(f"{new_path}: not found in the commit trees GitHub returned")
    patch = file.get("patch")
    if patch is None and int(file.get("changes") or 0) > 0:
        raise TooLargeToAssess(f"{new_path}: GitHub omits its diff (too large to show)")
    a_name = quote_path("a/" + (old_path_or_none or new_path))
    b_name = quote_path("b/" + (new_path_or_none or old_path))
    lines = [f"diff --git {a_name} {b_name}"]
    if old is None and new is not None:
        lines.append(f"new file mode {new.mode}")
    elif new is None and old is not None:
        lines.append(f"deleted file mode {old.mode}")
    elif old is not None and new is not None:
        if old.mode != new.mode:
            lines.extend([f"old mode {old.mode}", f"new mode {new.mode}"])
        if old_path_or_none != new_path_or_none:
            kind = "copy" if status == "copied" else "rename"
            lines.extend([f"{kind} from {quote_path(old_path)}", f"{kind} to {quote_path(new_path)}"])
    old_sha = old.sha if old else "0" * 40
    new_sha = new.sha if new else "0" * 40
    if old_sha == new_sha:
        return lines
    same_mode = old is not None and new is not None and old.mode == new.mode
    lines.append(f"index {old_sha}..{new_sha}" + (f" {new.mode}" if same_mode and new else ""))
    if patch is None:
        if EMPTY_BLOB in (old_sha, new_sha) and "0" * 40 in (old_sha, new_sha):
            return lines  # an empty file added or deleted
        lines.append(
            f"Binary files {_side('a/', old_path_or_none)} and {_side('b/', new_path_or_none)} differ"
        )
        return lines
    lines.append(f"--- {_side('a/', old_path_or_none)}")
    lines.append(f"+++ {_side('b/', new_path_or_none)}")
    lines.extend(str(patch).removesuffix("\n").split("\n"))
    return lines


def rebuild_diff(
    files: list[dict[str, Any]], old_tree: Mapping[str, Entry], new_tree: Mapping[str, Entry]
) -> bytes:
    """`git diff` text from the files API, with modes and full blob SHAs from the two trees."""
    out: list[str] = []
    try:
        for file in files:
            out.extend(_entry_lines(file, old_tree, new_tree))
    except (KeyError, TypeError, ValueError) as exc:
        raise UnexpectedResponse(200, f"a changed file without {exc}") from exc
    return ("\n".join(out) + "\n").encode("utf-8", "surrogateescape") if out else b""

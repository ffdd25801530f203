"""The steps every gatherer shares, over a `Source`: manifests, the change, the reference, `Inputs`.

The CLI and the Action's `check` mode gather from local git, the Action's `publish` mode and the
App from the GitHub API; they differ only in the source and in how they obtain the diff bytes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from bot.engine import (
    MANIFEST_PATH,
    Change,
    Description,
    Diff,
    Entry,
    FileKey,
    FileTexts,
    Inputs,
    LoadedManifest,
    ManifestSource,
    Mode,
    PatchApplyError,
    PullRequestFacts,
    PythonTree,
    ReceiptError,
    Reference,
    ReferencePatchError,
    Subject,
    TestEvidence,
    TooLargeToAssess,
    base_path,
    change_digest,
    check_reference,
    file_key,
    load_manifest,
    looks_binary,
    manifest_paths,
    measurable,
    parse_bounded,
    parse_reference,
    reaches_callers,
    touched_paths,
)
from bot.engine.days import Day
from bot.gather.merge import MergeGiven, merge_side
from bot.gather.source import Revisions, Source

MAX_TEXT_BYTES = 2 << 20
_REGULAR = ("100644", "100755")
_BINARY_PROBE = 8000  # git's rule: a NUL byte in the first 8000 bytes makes a file binary
NOT_RUN_YET = TestEvidence(not_run_reason="the tests have not run yet")


class UsageError(ReceiptError, ValueError):
    """Bad input from the user or the caller's configuration: exit status 2 with this message."""


@dataclass(frozen=True, slots=True)
class GivenFile:
    """A file given by the caller rather than read from a commit (`--manifest FILE`, `--reference FILE`)."""

    name: str
    data: bytes


def utc_today() -> Day:
    """The date waivers are judged by: UTC, so every runner and the App agree on it."""
    now = time.gmtime()  # as `datetime.now(UTC).date()`, without importing datetime
    return Day.parse(f"{now.tm_year:04d}-{now.tm_mon:02d}-{now.tm_mday:02d}")


@dataclass(frozen=True, slots=True)
class Request:
    """What to gather beside the change itself; every policy file is read from the base commit."""

    manifest_path: str = MANIFEST_PATH
    manifest_file: GivenFile | None = None
    reference_file: GivenFile | None = None
    reference_at_base: str | None = None
    repo: str | None = None
    pr: int | None = None
    pull_request: PullRequestFacts = field(default_factory=PullRequestFacts)
    description: Description | None = None
    today: Day | None = field(default_factory=utc_today)  # waivers' date


def decode_text(data: bytes | None) -> str | None:
    """Text the engine reads, or None for what it cannot: absent, binary, or too large. Decoded
    losslessly, as the diff is (diff.py): a byte that is not UTF-8 is kept as a surrogate escape."""
    if data is None or len(data) > MAX_TEXT_BYTES or b"\0" in data[:_BINARY_PROBE]:
        return None
    return data.decode("utf-8", "surrogateescape")


def base_manifest(source: Source, revisions: Revisions, request: Request) -> LoadedManifest:
    """The policy: a given file, else the base commit's manifest, else the built-in default."""
    if request.manifest_file is not None:
        given = request.manifest_file
        return load_manifest(given.data, given.name, ManifestSource.FILE)
    data = source.read_file(revisions.base, request.manifest_path)
    return load_manifest(data, request.manifest_path, ManifestSource.BASE)


def proposed_manifest(source: Source, change: Change, loaded: LoadedManifest, head: str) -> bytes | None:
    """The pull request's own version of the manifest when it edits it (None when it deletes it)."""
    paths = manifest_paths(loaded)
    touched = [p for f in change.diff.files for p in f.paths if p in paths]
    return source.read_file(head, touched[0]) if touched else None


def _texts(
    source: Source, diff: Diff, base: dict[str, Entry], head: dict[str, Entry]
) -> dict[FileKey, FileTexts]:
    wanted = [f for f in diff.files if not f.binary and not f.is_submodule]
    shas = {base[f.old_path].sha for f in wanted if f.old_path in base}
    shas |= {head[f.new_path].sha for f in wanted if f.new_path in head}
    blobs = source.blobs(shas, max_size=MAX_TEXT_BYTES)
    for f in wanted:
        sides = ((base, f.old_path), (head, f.new_path))
        if any(p in e and looks_binary(blobs.get(e[p].sha, b"")) for e, p in sides if p is not None):
            # git with receipt's attributes never prints lines of such a file; GitHub does when
            # the repository's .gitattributes says `diff`, which would talk the binary rule around
            raise TooLargeToAssess(
                f"{f.path}: the diff shows lines of a file whose bytes are binary (a NUL in the "
                "first 8,000): it was rendered by the repository's .gitattributes, which receipt "
                "does not follow, so it cannot be assessed from this diff"
            )

    def text(path: str | None, entries: dict[str, Entry]) -> str | None:
        if path is None:
            return ""  # the side where the file does not exist
        entry = entries.get(path)
        return decode_text(blobs.get(entry.sha)) if entry is not None else None

    return {file_key(f): FileTexts(base=text(f.old_path, base), head=text(f.new_path, head)) for f in wanted}


def tree_entries(
    source: Source, diff: Diff, revisions: Revisions
) -> tuple[dict[str, Entry], dict[str, Entry]]:
    """The entries of every path the diff touches at the merge-base and at the head."""
    paths = touched_paths(diff)
    return dict(source.entries(revisions.merge_base, paths)), dict(source.entries(revisions.head, paths))


def build_change(source: Source, diff_data: bytes, revisions: Revisions) -> Change:
    """The parsed diff, named by its tree delta, with the texts of its text files on both sides."""
    diff = parse_bounded(diff_data)  # TooLargeToAssess past what one receipt reads
    base, head = tree_entries(source, diff, revisions)
    return Change(diff, change_digest(diff, base, head), MappingProxyType(_texts(source, diff, base, head)))


def load_reference(
    source: Source, change: Change, revisions: Revisions, request: Request
) -> Reference | None:
    """The reference patch, with the base texts of the files it touches that the change does not.

    Read from a given file or from the base commit (never from the pull request). A patch that
    cannot be read or does not apply is a UsageError, found before any test runs.
    """
    if request.reference_file is not None:
        given = request.reference_file
        data, name, label = given.data, given.name, f"--reference {given.name}"
    elif request.reference_at_base is not None:
        name = request.reference_at_base
        found = source.read_file(revisions.base, name)
        if found is None:
            raise UsageError(f"reference {name}: no such file in the base commit {revisions.base[:12]}")
        data, label = found, f"reference {name}"
    else:
        return None
    try:
        reference = parse_reference(data, name)
    except ReferencePatchError as exc:
        raise UsageError(f"{label}: {exc.problem}") from exc
    known = {f.old_path for f in change.diff.files}
    texts: dict[str, str | None] = {}
    for file in reference.diff.files:
        where = base_path(file)
        if measurable(file) and where not in known and where not in texts:
            at_base = source.read_file(revisions.merge_base, where)
            if at_base is not None:  # absent from the mapping: not in the base
                texts[where] = decode_text(at_base)
    reference = replace(reference, base_texts=texts)
    try:
        check_reference(change, reference)
    except PatchApplyError as exc:
        raise UsageError(f"{label}: {exc}") from exc
    return reference


def python_tree(source: Source, change: Change, loaded: LoadedManifest, head: str) -> PythonTree | None:
    """The head tree's Python modules for `references`, read within the source's budget.

    None when the policy turns the check off. The texts of the files the change touches are in the
    change already; over the budget, nothing more is read and the tree says why.
    """
    if loaded.manifest.tests.references is False:
        return None
    listing = source.listing(head)
    if listing is None:
        return PythonTree(incomplete=f"{source.budget.where} cannot list the whole head tree")
    known = {f.new_path for f in change.diff.files}
    wanted = {
        path: listed
        for path, listed in listing.items()
        if path.endswith(".py") and listed.entry.mode in _REGULAR and path not in known
    }
    if not reaches_callers(change):  # the modules are there (the check runs), but none is read
        return PythonTree(texts=dict.fromkeys(wanted))
    size, budget = sum(w.size for w in wanted.values()), source.budget
    if len(wanted) > budget.files or size > budget.bytes:
        return PythonTree(
            incomplete=f"the repository is too large to follow: {len(wanted):,} Python files "
            f"({size / (1 << 20):.1f} MiB) beside the change, and {budget.where} reads at most "
            f"{budget.files:,} files ({budget.bytes >> 20} MiB)"
        )
    blobs = source.blobs({w.entry.sha for w in wanted.values()}, max_size=MAX_TEXT_BYTES)
    return PythonTree(texts={path: decode_text(blobs.get(w.entry.sha)) for path, w in wanted.items()})


def gather(
    source: Source,
    revisions: Revisions,
    diff: bytes | Callable[[], bytes],
    request: Request,
    *,
    merge: MergeGiven | None = None,
    tests: TestEvidence = NOT_RUN_YET,
) -> Inputs:
    """Inputs for `merge_base..head` judged by the base's manifest, read through `source`, with
    what merging would do to the base: `merge` as the shell computed it (None for a fast-forward).
    `diff`: the diff's bytes, or how to fetch them once the policy is read.

    Raises a ReceiptError (ManifestError, DiffParseError, UsageError, TooLargeToAssess…), marked
    `observed` when the policy says `mode: observe`, or the source's own errors (GitError,
    GitHubError).
    """
    loaded = base_manifest(source, revisions, request)
    try:
        diff_data = diff() if callable(diff) else diff
        return _gathered(source, revisions, diff_data, request, loaded=loaded, merge=merge, tests=tests)
    except ReceiptError as exc:  # the policy is known now: under observe mode, no problem blocks
        exc.observed = loaded.manifest.mode is Mode.OBSERVE
        raise


def _gathered(
    source: Source,
    revisions: Revisions,
    diff_data: bytes,
    request: Request,
    *,
    loaded: LoadedManifest,
    merge: MergeGiven | None,
    tests: TestEvidence,
) -> Inputs:
    change = build_change(source, diff_data, revisions)
    return Inputs(
        change=change,
        manifest=loaded,
        subject=Subject(
            base=revisions.base,
            head=revisions.head,
            merge_base=revisions.merge_base,
            repo=request.repo,
            pr=request.pr,
        ),
        tests=tests,
        pull_request=request.pull_request,
        proposed_manifest=proposed_manifest(source, change, loaded, revisions.head),
        reference=load_reference(source, change, revisions, request),
        python=python_tree(source, change, loaded, revisions.head),
        description=request.description,
        today=request.today,
        merge=merge_side(source, revisions, change, merge),
    )

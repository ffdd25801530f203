"""What each input the receipt reads must do, whatever it holds: give a result, or fail with the
documented error, positioned where the contract says so. The property tests (tests/fuzz/) and the
coverage-guided campaign (tools/fuzz_campaign.py) both check inputs through these functions; any
other exception is a bug.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

from bot.engine.bounds import MAX_DIFF_BYTES, REGEX_MAX_MEM
from bot.engine.change import FileTexts, change_from_diff, file_key
from bot.engine.diff import Diff, DiffParseError, parse_diff
from bot.engine.distance import edit_count
from bot.engine.errors import ReceiptError
from bot.engine.evaluation import Inputs, evaluate
from bot.engine.globs import GlobError, compile_glob
from bot.engine.lexing import lexicon_for, tokenize_line
from bot.engine.manifest import (
    DEFAULT_MANIFEST_TEXT,
    ManifestError,
    ManifestSource,
    load_manifest,
    parse_manifest,
)
from bot.engine.patching import PatchApplyError, ReferencePatchError, apply_file, parse_reference
from bot.engine.patterns import PatternStore
from bot.engine.receipt import Subject
from bot.engine.regex import RegexError, compile_bounded
from bot.engine.rules import content_violations
from bot.engine.tokens import Tokenizer

SEEDS = Path(__file__).resolve().parents[1] / "data" / "fuzz" / "diffs"
SHA = "c" * 40


def seed_diffs() -> list[bytes]:
    return [p.read_bytes() for p in sorted(SEEDS.glob("*.diff"))]


def check_diff(data: bytes) -> Diff | None:
    """A diff parses, or DiffParseError names a line of it; too large is TooLargeToAssess."""
    try:
        diff = parse_diff(data)
    except DiffParseError as exc:
        assert exc.line >= 1, exc
        return None
    for file in diff.files:
        assert file.old_path is not None or file.new_path is not None
        for hunk in file.hunks:
            assert sum(1 for line in hunk.lines if line.kind.value != "+") == hunk.old_len
            assert sum(1 for line in hunk.lines if line.kind.value != "-") == hunk.new_len
    return diff


def check_manifest(text: bytes) -> None:
    """A manifest is valid, or every problem is a ManifestError issue at a line and column."""
    try:
        manifest = parse_manifest(text, "m.yml")
    except ManifestError as exc:
        assert exc.issues
        for issue in exc.issues:
            assert issue.line >= 1 and issue.column >= 1, issue
            issue.render("m.yml").encode("utf-8")  # always printable
        return
    assert manifest.version == 1


def check_glob(pattern: str, path: str) -> None:
    try:
        compiled = compile_glob(pattern)
    except GlobError as exc:
        assert exc.problem
        return
    compiled.match_file(path)


def check_regex(pattern: str, text: bytes) -> None:
    try:
        compiled = compile_bounded(pattern, REGEX_MAX_MEM)
    except RegexError as exc:
        assert exc.problem
        return
    compiled.search(text)


def check_patch(patch: bytes, base: str) -> None:
    """A reference parses and applies, or fails with ReferencePatchError / PatchApplyError naming the
    hunk; a patch made by difflib from (base, changed) always gives `changed`."""
    try:
        reference = parse_reference(patch, "p")
    except ReferencePatchError as exc:
        assert exc.problem
        return
    for file in reference.diff.files:
        try:
            apply_file(base, file)
        except PatchApplyError as exc:
            assert exc.hunk >= 0 and exc.path


def check_round_trip(base: str, changed: str) -> None:
    lines = difflib.unified_diff(
        base.splitlines(keepends=True), changed.splitlines(keepends=True), "a/f", "b/f", n=3
    )
    text = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
    if not text:
        return
    reference = parse_reference(text.encode(), "p")
    (file,) = reference.diff.files
    assert apply_file(base, file) == changed


def check_tokens(path: str, left: str, right: str) -> None:
    """Token streams of any two texts, and a distance in [0, 1]."""
    tokenizer = Tokenizer()
    pair = tokenizer.pair(path, left, right)
    count = edit_count(pair.left, pair.right)
    assert 0 <= count.edits <= count.length and 0.0 <= count.nd <= 1.0
    # past a budget of 64 cells, compared in blocks: an alignment, so never below the distance
    blocks = edit_count(pair.left, pair.right, budget=64)
    assert count.edits <= blocks.edits <= blocks.length and (blocks.estimated or blocks.edits == count.edits)
    for written, text in zip(tokenizer.written_pair(path, left, right), (left, right), strict=True):
        # the written view loses nothing: its gaps and tokens are the text
        assert "".join(g + t for g, t in zip(written.gaps, written.tokens, strict=True)) == text
    for line in left.split("\n"):
        tokenize_line(line, lexicon_for(path))


def check_evaluation(diff: bytes, manifest: bytes | None, head_text: str) -> None:
    """The whole engine on a diff and a manifest: a receipt, or a ReceiptError saying why not."""
    try:
        loaded = load_manifest(manifest, ".github/receipt.yml", ManifestSource.BASE)
    except ManifestError:
        loaded = load_manifest(DEFAULT_MANIFEST_TEXT.encode(), ".github/receipt.yml", ManifestSource.BASE)
    try:
        change = change_from_diff(diff[:MAX_DIFF_BYTES])
    except ReceiptError:
        return
    texts = {file_key(f): FileTexts(base="", head=head_text) for f in change.diff.files}
    change = change_from_diff(diff[:MAX_DIFF_BYTES], texts)
    try:
        receipt = evaluate(Inputs(change=change, manifest=loaded, subject=Subject(SHA, SHA, SHA)))
    except ReceiptError as exc:
        assert exc.problem
        return
    receipt.as_json()
    content_violations(change, loaded.manifest)


def check_store(patterns: list[str], path: str) -> None:
    """Globs compiled into a store, as a manifest's are."""
    store = PatternStore()
    for pattern in patterns:
        try:
            store.glob(pattern).match_file(path)
        except GlobError:
            continue


TARGETS: dict[str, Callable[..., None]] = {
    "diff": check_diff,
    "manifest": check_manifest,
    "glob": check_glob,
    "regex": check_regex,
    "patch": check_patch,
    "tokens": check_tokens,
    "evaluation": check_evaluation,
}

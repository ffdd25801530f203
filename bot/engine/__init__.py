"""The pure core: plain data in, a receipt out. Callers import from here, not from the modules.

Names load on first use (PEP 562), so `import bot.engine` costs nothing a command does not need.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "bot.engine.applies": ("PullRequestFacts",),
    "bot.engine.bounds": ("MAX_DIFF_BYTES",),
    "bot.engine.change": (
        "Change", "Entry", "FileKey", "FileTexts", "change_digest", "change_from_diff", "file_key",
        "parse_bounded", "touched_paths",
    ),
    "bot.engine.diff": ("Diff", "DiffParseError", "FileDiff", "looks_binary", "parse_diff"),
    "bot.engine.errors": ("ReceiptError", "TooLargeToAssess"),
    "bot.engine.evaluation": ("Inputs", "evaluate", "manifest_paths"),
    "bot.engine.excess": ("check_reference",),
    "bot.engine.gitpath": ("QuotedPathError", "c_quote", "decode_bytes", "display_path", "unquote"),
    "bot.engine.groups": ("MANIFEST_PATH",),
    "bot.engine.junit": ("JUnitCounts", "JUnitError", "parse_junit"),
    "bot.engine.merging": ("MergeSide", "MergeSource"),
    "bot.engine.manifest": (
        "DEFAULT_MANIFEST_TEXT", "MAX_MANIFEST_BYTES", "LoadedManifest", "Manifest", "ManifestError",
        "ManifestSource", "Mode", "digest_bytes", "json_schema", "load_manifest", "parse_manifest",
    ),
    "bot.engine.patching": (
        "PatchApplyError", "Reference", "ReferencePatchError", "base_path", "measurable", "parse_reference",
    ),
    "bot.engine.content.patternset": ("PatternSetGaveUp",),
    "bot.engine.references.analysis": ("PythonTree", "reaches_callers"),
    "bot.engine.references": ("REFERENCES_CHECK",),
    "bot.engine.report.description": ("MAX_DESCRIPTION_CHARS", "Description", "DescriptionSource"),
    "bot.engine.receipt": (
        "EXIT_CODES", "SCHEMA", "Conclusion", "Receipt", "Subject", "digest_of", "outcome_digest",
        "render_json",
    ),
    "bot.engine.render.annotations": (
        "Annotation", "Level", "manifest_error_annotations", "receipt_annotations",
    ),
    "bot.engine.render.escape": ("md_code", "md_text"),
    "bot.engine.render.markdown": ("SUMMARY_LIMIT", "render_markdown"),
    "bot.engine.render.terminal": ("one_line", "render_terminal"),
    "bot.engine.scope": ("explain",),
    "bot.engine.semantic": (
        "CheckConclusion", "CheckResult", "ReportedBy", "SemanticStatus", "SideEffect", "SideEffectKind",
        "TestEvidence",
    ),
    "bot.engine.testevidence": ("ReportFile", "ReportState", "RunOutcome", "judge_run"),
    "bot.engine.testoutput": ("output_tail", "redact_secrets"),
}  # fmt: skip
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = [
    "DEFAULT_MANIFEST_TEXT",
    "EXIT_CODES",
    "MANIFEST_PATH",
    "MAX_DESCRIPTION_CHARS",
    "MAX_DIFF_BYTES",
    "MAX_MANIFEST_BYTES",
    "REFERENCES_CHECK",
    "SCHEMA",
    "SUMMARY_LIMIT",
    "Annotation",
    "Change",
    "CheckConclusion",
    "CheckResult",
    "Conclusion",
    "Description",
    "DescriptionSource",
    "Diff",
    "DiffParseError",
    "Entry",
    "FileDiff",
    "FileKey",
    "FileTexts",
    "Inputs",
    "JUnitCounts",
    "JUnitError",
    "Level",
    "LoadedManifest",
    "Manifest",
    "ManifestError",
    "ManifestSource",
    "MergeSide",
    "MergeSource",
    "Mode",
    "PatchApplyError",
    "PatternSetGaveUp",
    "PullRequestFacts",
    "PythonTree",
    "QuotedPathError",
    "Receipt",
    "ReceiptError",
    "Reference",
    "ReferencePatchError",
    "ReportFile",
    "ReportState",
    "ReportedBy",
    "RunOutcome",
    "SemanticStatus",
    "SideEffect",
    "SideEffectKind",
    "Subject",
    "TestEvidence",
    "TooLargeToAssess",
    "base_path",
    "c_quote",
    "change_digest",
    "change_from_diff",
    "check_reference",
    "decode_bytes",
    "digest_bytes",
    "digest_of",
    "display_path",
    "evaluate",
    "explain",
    "file_key",
    "json_schema",
    "judge_run",
    "load_manifest",
    "looks_binary",
    "manifest_error_annotations",
    "manifest_paths",
    "md_code",
    "md_text",
    "measurable",
    "one_line",
    "outcome_digest",
    "output_tail",
    "parse_bounded",
    "parse_diff",
    "parse_junit",
    "parse_manifest",
    "parse_reference",
    "reaches_callers",
    "receipt_annotations",
    "redact_secrets",
    "render_json",
    "render_markdown",
    "render_terminal",
    "touched_paths",
    "unquote",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'bot.engine' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from bot.engine.applies import PullRequestFacts
    from bot.engine.bounds import MAX_DIFF_BYTES
    from bot.engine.change import (
        Change,
        Entry,
        FileKey,
        FileTexts,
        change_digest,
        change_from_diff,
        file_key,
        parse_bounded,
        touched_paths,
    )
    from bot.engine.content.patternset import PatternSetGaveUp
    from bot.engine.diff import Diff, DiffParseError, FileDiff, looks_binary, parse_diff
    from bot.engine.errors import ReceiptError, TooLargeToAssess
    from bot.engine.evaluation import Inputs, evaluate, manifest_paths
    from bot.engine.excess import check_reference
    from bot.engine.gitpath import QuotedPathError, c_quote, decode_bytes, display_path, unquote
    from bot.engine.groups import MANIFEST_PATH
    from bot.engine.junit import JUnitCounts, JUnitError, parse_junit
    from bot.engine.manifest import (
        DEFAULT_MANIFEST_TEXT,
        MAX_MANIFEST_BYTES,
        LoadedManifest,
        Manifest,
        ManifestError,
        ManifestSource,
        Mode,
        digest_bytes,
        json_schema,
        load_manifest,
        parse_manifest,
    )
    from bot.engine.merging import MergeSide, MergeSource
    from bot.engine.patching import (
        PatchApplyError,
        Reference,
        ReferencePatchError,
        base_path,
        measurable,
        parse_reference,
    )
    from bot.engine.receipt import (
        EXIT_CODES,
        SCHEMA,
        Conclusion,
        Receipt,
        Subject,
        digest_of,
        outcome_digest,
        render_json,
    )
    from bot.engine.references import REFERENCES_CHECK
    from bot.engine.references.analysis import PythonTree, reaches_callers
    from bot.engine.render.annotations import (
        Annotation,
        Level,
        manifest_error_annotations,
        receipt_annotations,
    )
    from bot.engine.render.escape import md_code, md_text
    from bot.engine.render.markdown import SUMMARY_LIMIT, render_markdown
    from bot.engine.render.terminal import one_line, render_terminal
    from bot.engine.report.description import MAX_DESCRIPTION_CHARS, Description, DescriptionSource
    from bot.engine.scope import explain
    from bot.engine.semantic import (
        CheckConclusion,
        CheckResult,
        ReportedBy,
        SemanticStatus,
        SideEffect,
        SideEffectKind,
        TestEvidence,
    )
    from bot.engine.testevidence import ReportFile, ReportState, RunOutcome, judge_run
    from bot.engine.testoutput import output_tail, redact_secrets

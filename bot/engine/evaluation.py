"""evaluate(inputs) -> Receipt: the one place where the fields are computed and put together."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from bot.engine.applies import PullRequestFacts, not_covered
from bot.engine.change import Change
from bot.engine.days import Day
from bot.engine.diff import Diff
from bot.engine.errors import ReceiptError
from bot.engine.excess import ExcessResult, judge_excess, measure_excess
from bot.engine.fan import Fan, in_order
from bot.engine.findings import RuleId, Violation, sort_violations
from bot.engine.gitpath import display_path
from bot.engine.globs import match_work
from bot.engine.groups import MANIFEST_PATH
from bot.engine.locality import FileMeasure, evaluate_locality, measure_file
from bot.engine.manifest import (
    LoadedManifest,
    Manifest,
    ManifestError,
    ManifestSource,
    Mode,
    load_manifest,
)
from bot.engine.merging import MergeSide, unassessable_violations
from bot.engine.patching import Reference
from bot.engine.patterns import MatchWork
from bot.engine.receipt import (
    ChangeSummary,
    Conclusion,
    DryRun,
    ManifestInfo,
    MergeSummary,
    Receipt,
    Subject,
    Verdict,
)
from bot.engine.references.analysis import PythonTree, analyze
from bot.engine.references.changes import Proofs
from bot.engine.references.policy import deciding_checks, for_policy, semantic_with, verdict_note
from bot.engine.references.result import ReferencesResult
from bot.engine.report.description import Description
from bot.engine.report.facts import ReceiptFacts, failed_test_names, protected_paths
from bot.engine.report.report import Report, build_report
from bot.engine.rules import content_violations
from bot.engine.scope import group_patterns, merge_path_violations, path_violations
from bot.engine.semantic import TestEvidence, side_effect_violations, status_of
from bot.engine.verdict import decide, observed
from bot.engine.waivers import apply_waivers, waived_note


@dataclass(frozen=True, slots=True)
class Inputs:
    """Everything a receipt is computed from; gatherers (CLI, Action, App) fill it in."""

    change: Change
    manifest: LoadedManifest
    subject: Subject
    tests: TestEvidence = field(
        default_factory=lambda: TestEvidence(not_run_reason="no test command configured")
    )
    pull_request: PullRequestFacts = field(default_factory=PullRequestFacts)
    proposed_manifest: bytes | None = None
    reference: Reference | None = None  # the gold patch excess is measured against, with its base texts
    python: PythonTree | None = None  # the head tree's Python modules, for `references` (None: not read)
    description: Description | None = None  # the pull request's title and body, for `report`
    today: Day | None = None  # the UTC date waivers are judged by (None: no waiver applies)
    merge: MergeSide | None = None  # what merging would do to the base (None: not gathered)


def manifest_paths(loaded: LoadedManifest) -> tuple[str, ...]:
    """The policy file in use and the conventional one: both are always protected."""
    return tuple(dict.fromkeys((loaded.path, MANIFEST_PATH)))


def _changes_manifest(change: Change, paths: tuple[str, ...]) -> bool:
    return any(p in paths for f in change.diff.files for p in f.paths)


def evaluate(inputs: Inputs, *, fan: Fan = in_order) -> Receipt:
    """Raises PatchApplyError when the reference does not apply to the base, or another ReceiptError
    (a limit of bounds.py), `observed` under `mode: observe`. `fan` decides where the costly
    per-file reading runs (fan.py); the receipt is the same wherever."""
    try:
        return _evaluate(inputs, fan)
    except ReceiptError as exc:
        exc.observed = inputs.manifest.manifest.mode is Mode.OBSERVE
        raise


def _evaluate(inputs: Inputs, fan: Fan) -> Receipt:
    paths = manifest_paths(inputs.manifest)
    changed = _changes_manifest(inputs.change, paths)
    # Once: policy-free, and the costly part. `references` proves what it can of each changed
    # module while excess reads it, so the two cut and parse its statements once.
    proofs = Proofs() if inputs.python is not None else None
    measured = measure_excess(inputs.change, inputs.reference, visitor=proofs, fan=fan)
    analyzed = analyze(inputs.change, inputs.python, proofs) if inputs.python is not None else None
    judged = _judge(inputs, inputs.manifest.manifest, paths, measured, analyzed, fan=fan)
    receipt = _reported(inputs, inputs.manifest.manifest, judged)
    dry_run = _dry_run(inputs, paths, measured, analyzed, fan) if changed else None
    info = ManifestInfo(
        path=display_path(inputs.manifest.path),
        source=inputs.manifest.source,
        digest=inputs.manifest.digest,
        changed_in_pr=changed,
        dry_run=dry_run,
    )
    return replace(receipt, manifest=info, verdict=observed(receipt.verdict, inputs.manifest.manifest.mode))


def _check_glob_work(diffs: list[Diff], manifest: Manifest) -> None:
    """Any glob may be matched against any path of the change, on either side (protection, allow,
    budgets, banned paths): what that costs together, at its most, is counted before it is spent."""
    for group in manifest.paths.defaults:
        for pattern in group_patterns(group, manifest.tests.command):
            manifest.patterns.glob(pattern)
    paths = [p for d in diffs for f in d.files for p in f.paths]
    work = match_work(list(manifest.patterns.globs.values()), paths)
    MatchWork("the policy's path patterns against this change's paths").charge(1, work)


def _judge(
    inputs: Inputs,
    manifest: Manifest,
    paths: tuple[str, ...],
    measured: ExcessResult,
    analyzed: ReferencesResult | None,
    *,
    fan: Fan,
) -> Receipt:
    change, merge = inputs.change, inputs.merge
    merged = _merged_change(inputs)
    _check_glob_work([change.diff] if merged is None else [change.diff, merged.diff], manifest)
    head_paths = path_violations(change.diff, manifest, paths)
    scope_found: list[Violation] = [
        *head_paths,
        *(merge_path_violations(merge, head_paths, manifest, paths) if merge is not None else ()),
        *unassessable_violations(merge),
        *content_violations(change, manifest, fan=fan),
        *side_effect_violations(inputs.tests, manifest),
    ]
    merged_measures = tuple(measure_file(f) for f in merged.diff.files) if merged is not None else None
    locality = evaluate_locality(change.diff, manifest, merged_measures)
    waivers = apply_waivers(
        (sort_violations(scope_found), sort_violations(list(locality.violations))),
        manifest.waivers,
        inputs.today,
    )
    scope, locality_violations = waivers.kept
    references = for_policy(manifest, analyzed, gathered=inputs.python is not None)
    checks = inputs.tests.checks
    semantic = semantic_with(status_of(checks), references)
    excess = judge_excess(measured, manifest.excess)
    verdict = decide(
        manifest=manifest,
        not_covered=not_covered(manifest.applies_to, inputs.pull_request, manifest.patterns),
        scope=scope,
        locality=locality_violations,
        semantic=semantic,
        checks=deciding_checks(checks, references),
        not_run_reason=inputs.tests.not_run_reason,
        excess=excess,
        notes=inputs.tests.notes,
    )
    notes = [verdict_note(references), waived_note(waivers)]
    if verdict.conclusion is not Conclusion.SKIPPED:
        verdict = replace(verdict, reasons=(*verdict.reasons, *(n for n in notes if n is not None)))
    return Receipt(
        subject=inputs.subject,
        manifest=ManifestInfo(
            display_path(inputs.manifest.path),
            inputs.manifest.source,
            inputs.manifest.digest,
            changed_in_pr=False,
        ),
        change=_summary(change, locality.measures),
        merge=_merge_summary(inputs, locality.measures, merged_measures),
        semantic=semantic,
        checks=(*checks, references.check) if references is not None else checks,
        scope=scope,
        locality=locality,
        locality_violations=locality_violations,
        excess=excess,
        verdict=verdict,
        reported_by=inputs.tests.reported_by,
        references=references,
        waivers=waivers,
    )


def _merged_change(inputs: Inputs) -> Change | None:
    """`base..merge` when it is a change of its own: not when unknown, nor when it is the head
    side itself (a fast-forward), which is then judged once."""
    merge = inputs.merge
    if merge is None or merge.change is None or merge.change is inputs.change:
        return None
    return merge.change


def _summary(change: Change, measures: tuple[FileMeasure, ...]) -> ChangeSummary:
    diff = change.diff
    return ChangeSummary(
        files=len(diff.files),
        hunks=diff.hunk_count,
        added_lines=diff.added,
        removed_lines=diff.removed,
        logical_lines=sum(m.logical_lines for m in measures),
        digest=change.digest,
    )


def _merge_summary(
    inputs: Inputs, head: tuple[FileMeasure, ...], merged: tuple[FileMeasure, ...] | None
) -> MergeSummary | None:
    merge = inputs.merge
    if merge is None:
        return None
    change = None
    if merge.change is not None:
        change = _summary(merge.change, head if merged is None else merged)
    return MergeSummary(merge.source, merge.tree, merge.commit, change, merge.unassessable, merge.conflicts)


def _required(verdict: Verdict, report: Report) -> Verdict:
    """`report.require`: a required fact the description leaves unsaid (or denies) fails the receipt."""
    missing = [f.kind.value for f in report.missing_required]
    if not missing or verdict.conclusion is Conclusion.SKIPPED:
        return verdict
    reason = f"report failed: the description does not say {', '.join(missing)} (report.require)"
    return Verdict(Conclusion.FAILURE, (*verdict.reasons, reason))


def _reported(inputs: Inputs, manifest: Manifest, receipt: Receipt) -> Receipt:
    """The receipt with its report: the change's facts, and what the description says of them."""
    refs = receipt.references
    facts = ReceiptFacts(
        diff=inputs.change.diff,
        protected=protected_paths((v.rule, v.path) for v in receipt.scope if v.path is not None),
        tests_ran=bool(inputs.tests.checks),
        failed_tests=failed_test_names((c.name, c.conclusion) for c in inputs.tests.checks),
        not_run_reason=inputs.tests.not_run_reason,
        references=tuple((f.path, f.target) for f in refs.findings) if refs is not None else (),
        excess_alarm=receipt.excess.alarm_reasons,
    )
    report = build_report(
        facts, inputs.change.diff, receipt.change.logical_lines, inputs.description, manifest
    )
    return replace(receipt, report=report, verdict=_required(receipt.verdict, report))


def _dry_run(
    inputs: Inputs,
    paths: tuple[str, ...],
    measured: ExcessResult,
    analyzed: ReferencesResult | None,
    fan: Fan,
) -> DryRun:
    """Judge the same change by the pull request's proposed manifest (or the default, if deleted).

    The pull request wrote that manifest: whatever it holds, the dry run reports it (invalid, or too
    expensive to evaluate) and the receipt, judged by the base manifest, stands."""
    try:
        proposed = load_manifest(inputs.proposed_manifest, inputs.manifest.path, ManifestSource.FILE)
    except ManifestError as exc:
        errors = tuple(i.render(exc.file) for i in exc.issues)
        return DryRun(valid=False, errors=errors, too_expensive=exc.too_expensive)
    try:
        proposing = replace(inputs, manifest=proposed)
        judged = _judge(proposing, proposed.manifest, paths, measured, analyzed, fan=fan)
    except ReceiptError as exc:  # a limit this policy reaches on this change (bounds.py)
        return DryRun(valid=True, errors=(exc.problem,), too_expensive=True)
    receipt = _reported(inputs, proposed.manifest, judged)
    others = tuple(v for v in receipt.scope if v.rule is not RuleId.MANIFEST_CHANGE)
    verdict: Verdict = decide(
        manifest=proposed.manifest,
        not_covered=not_covered(
            proposed.manifest.applies_to, inputs.pull_request, proposed.manifest.patterns
        ),
        scope=others,
        locality=receipt.locality_violations,
        semantic=receipt.semantic,
        checks=deciding_checks(inputs.tests.checks, receipt.references),
        not_run_reason=inputs.tests.not_run_reason,
        excess=receipt.excess,
        notes=inputs.tests.notes,
    )
    assert receipt.report is not None
    return DryRun(valid=True, verdict=observed(_required(verdict, receipt.report), proposed.manifest.mode))

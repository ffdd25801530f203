"""`receipt inspect REPORT.json`: every digest a replay report rests on, then the report recomputed.

Checked: the report's own digest; the run's record and its task set against the digests the report
names; every attempt record the report lists (its digest, and the one the report holds for it);
every artefact of those attempts against its record; the patch and numstat against the diff of the
attempt's commit; every receipt among them (its digest, its change against the run's git directory,
its manifest, its reference against the task's gold patch); and finally the report rebuilt from
that evidence with the options it records, which must be the same report. A report whose evidence
changed is refused (exit status 1), and so is one whose evidence could not all be checked (the
run's git directory cannot read a commit, say): a check not run is not a check passed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bot.engine import digest_bytes, digest_of
from bot.local.git import GitError
from bot.local.inspect import InspectReport, inspect_receipt
from bot.replay.errors import ReplayError
from bot.replay.gitdir import alternates
from bot.replay.report import REPORT_SCHEMA, build_report, options_from
from bot.replay.store import Attempt, AttemptKey, Store
from bot.replay.tasks import task_set_digest


def is_report(body: Any) -> bool:
    return isinstance(body, dict) and body.get("schema") == REPORT_SCHEMA


def _check_receipt(report: InspectReport, attempt: Attempt, store: Store, counts: dict[str, int]) -> None:
    """The receipt's own checks (every one must run: one `inspect_receipt` skips is a failure
    here), and the two it cannot do alone: its reference against the task's gold patch and a
    manifest given to the run against the run's record of it."""
    data = attempt.artefact("receipt")
    if data is None:
        return
    label = attempt.key.label
    body = json.loads(data)
    checked = inspect_receipt(body, store.git)
    for line in checked.lines:
        if line.startswith("MISMATCH"):
            report.ok = False
            report.lines.append(f"MISMATCH  {label}: {line.removeprefix('MISMATCH').strip()}")
    manifest = body.get("manifest") if isinstance(body.get("manifest"), dict) else {}
    for what, why in checked.skips:
        if what == "excess.reference.digest":
            continue  # checked below, against the task's gold patch
        if what == "manifest.digest" and manifest.get("source") == "file":
            given = store.spec.get("manifest") or {}
            if manifest.get("digest") != given.get("digest"):
                report.failed(f"{label}: manifest.digest", manifest.get("digest"), given.get("digest"))
            continue
        report.unverified(f"{label}: {what}", why)
    task = store.task(attempt.key.task)
    reference = (body.get("excess") or {}).get("reference")
    claimed = reference.get("digest") if isinstance(reference, dict) else None
    expected = digest_bytes(task.gold_patch.encode("utf-8")) if task.gold_patch else None
    if claimed != expected:
        report.failed(f"{label}: excess.reference.digest", claimed, expected)
    counts["receipts"] += 1


# The artefacts that are a diff of the attempt's commit, and the options that made them (runner).
_DIFFS = {"patch": ("--binary",), "numstat": ("--numstat", "-z")}


def _check_diffs(report: InspectReport, attempt: Attempt, store: Store) -> None:
    """The stored patch and numstat are the diff of the commit the record names."""
    commit = attempt.record.get("commit")
    if commit is None:
        return
    base = store.task(attempt.key.task).base
    for name, options in _DIFFS.items():
        what = f"{attempt.key.label}: {name}"
        data = attempt.artefact(name)
        try:
            actual = store.git.diff(base, str(commit), *options)
        except GitError as exc:
            report.unverified(what, exc.problem)
            continue
        if data != actual:
            shown = "none" if data is None else digest_bytes(data)
            report.failed(what, shown, f"{digest_bytes(actual)} (the diff of commit {str(commit)[:12]})")


def _check_borrowed(report: InspectReport, store: Store) -> None:
    """The run's git directory reads the replayed repository's objects by path: say so at once when
    that path is gone, rather than only through every check it breaks."""
    for directory in alternates(store.git.root):
        if not directory.is_dir():
            report.unverified(
                "run git directory",
                f"it borrows the objects of {directory} (objects/info/alternates), which is not there: "
                "put the repository back, or make the run stand alone before moving it (README, Replay)",
            )


def inspect_report(body: Mapping[str, Any], run_dir: Path | None) -> InspectReport:
    report = InspectReport()
    claimed = body.get("digest")
    actual = digest_of(dict(body))
    if claimed != actual:
        report.failed("digest", claimed, actual)
        return report
    report.passed("digest", actual)
    given = body.get("run")
    run: dict[str, Any] = given if isinstance(given, dict) else {}
    root = run_dir if run_dir is not None else Path(str(run.get("directory", "")))
    try:
        store = Store.open(root)
    except ReplayError as exc:
        report.failed("run", f"a run in {root}", exc.problem)
        return report
    if run.get("digest") == digest_of(dict(store.spec)):
        report.passed("run.digest", str(run.get("digest")))
    else:
        report.failed("run.digest", run.get("digest"), digest_of(dict(store.spec)))
    for arm in store.spec.get("arms") or []:
        prompt = arm.get("prompt") if isinstance(arm, dict) else None
        if isinstance(prompt, dict):
            actual_prompt = digest_bytes(str(prompt.get("text")).encode("utf-8"))
            if prompt.get("digest") == actual_prompt:
                report.passed(f"run.arms.{arm.get('name')}.prompt.digest", actual_prompt)
            else:
                report.failed(
                    f"run.arms.{arm.get('name')}.prompt.digest", prompt.get("digest"), actual_prompt
                )
    set_digest = task_set_digest(store.tasks_bytes)
    if (run.get("task_set") or {}).get("digest") == set_digest:
        report.passed("run.task_set.digest", set_digest)
    else:
        report.failed("run.task_set.digest", (run.get("task_set") or {}).get("digest"), set_digest)
    _check_borrowed(report, store)
    attempts: list[Attempt] = []
    counts = {"records": 0, "artefacts": 0, "receipts": 0}
    for row in body.get("attempts") or []:
        key = AttemptKey(str(row.get("task")), str(row.get("arm")), int(row.get("attempt", 0)))
        try:
            attempt = store.finished(key)
            if attempt is None:
                report.failed(f"{key.label}", "a finished attempt", "no record in the run")
                continue
            if attempt.record["digest"] != row.get("record"):
                report.failed(f"{key.label}: record", row.get("record"), attempt.record["digest"])
                continue
            for name in attempt.record["artefacts"]:
                attempt.artefact(name)
                counts["artefacts"] += 1
            _check_diffs(report, attempt, store)
            _check_receipt(report, attempt, store, counts)
        except ReplayError as exc:
            report.failed(f"{key.label}", "evidence as recorded", exc.problem)
            continue
        counts["records"] += 1
        attempts.append(attempt)
    read = (
        f"{counts['records']} attempt records, {counts['artefacts']} artefacts, {counts['receipts']} receipts"
    )
    if not report.ok:
        report.lines.append(f"REFUSED   evidence: {read}; see the lines above for what does not verify")
        return report
    report.passed("evidence", read)
    rebuilt = build_report(store, attempts, options_from(body))
    rebuilt["run"]["directory"] = run.get("directory")
    rebuilt["digest"] = digest_of({k: v for k, v in rebuilt.items() if k != "digest"})
    if rebuilt["digest"] == actual:
        report.passed("report", "recomputed from the evidence: the same numbers")
    else:
        changed = sorted(k for k in rebuilt if k != "digest" and rebuilt[k] != body.get(k))
        report.failed(
            "report", f"numbers as written ({', '.join(changed)})", "other numbers from the evidence"
        )
    return report

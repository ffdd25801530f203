"""`receipt inspect REPORT.json`: every digest a replay report rests on, then the report recomputed.

Checked: the report's own digest; the run's record and its task set against the digests the report
names; every attempt record the report lists (its digest, and the one the report holds for it);
every artefact of those attempts against its record; every receipt among them (its digest, its
change against the run's git directory, its manifest, its reference against the task's gold patch);
and finally the report rebuilt from that evidence with the options it records, which must be the
same report. A report whose evidence changed is refused (exit status 1).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bot.engine import digest_bytes, digest_of
from bot.local.inspect import InspectReport, inspect_receipt
from bot.replay.errors import ReplayError
from bot.replay.report import REPORT_SCHEMA, build_report, options_from
from bot.replay.store import Attempt, AttemptKey, Store
from bot.replay.tasks import task_set_digest


def is_report(body: Any) -> bool:
    return isinstance(body, dict) and body.get("schema") == REPORT_SCHEMA


def _check_receipt(report: InspectReport, attempt: Attempt, store: Store, counts: dict[str, int]) -> None:
    data = attempt.artefact("receipt")
    if data is None:
        return
    body = json.loads(data)
    checked = inspect_receipt(body, store.git)
    for line in checked.lines:
        if line.startswith("MISMATCH"):
            report.ok = False
            report.lines.append(f"MISMATCH  {attempt.key.label}: {line.removeprefix('MISMATCH').strip()}")
    task = store.task(attempt.key.task)
    reference = (body.get("excess") or {}).get("reference")
    if task.gold_patch and isinstance(reference, dict):
        expected = digest_bytes(task.gold_patch.encode("utf-8"))
        if reference.get("digest") != expected:
            report.failed(f"{attempt.key.label}: excess.reference.digest", reference.get("digest"), expected)
    counts["receipts"] += 1


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
    set_digest = task_set_digest(store.tasks_bytes)
    if (run.get("task_set") or {}).get("digest") == set_digest:
        report.passed("run.task_set.digest", set_digest)
    else:
        report.failed("run.task_set.digest", (run.get("task_set") or {}).get("digest"), set_digest)
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
            _check_receipt(report, attempt, store, counts)
        except ReplayError as exc:
            report.failed(f"{key.label}", "evidence as recorded", exc.problem)
            continue
        counts["records"] += 1
        attempts.append(attempt)
    report.passed(
        "evidence",
        f"{counts['records']} attempt records, {counts['artefacts']} artefacts, "
        f"{counts['receipts']} receipts",
    )
    if not report.ok:
        return report
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

"""`receipt replay report`: per arm, per task and per attempt, from the stored receipts and traces.

Every number is computed from the run's artefacts (each checked against its digest as it is read),
and the report names every attempt record it rests on by digest, so `receipt inspect` can verify
the evidence and recompute the report. Rates are per task first (the share of a task's attempts),
then averaged over tasks; infrastructure and error attempts count as unsolved.

- functional: the tests passed (semantic pass) on a change that is not empty: an attempt that
  changed nothing solved nothing, whatever the tests say;
- faithful: functional, and scope and locality pass (the receipt's three gates);
- excess and added complexity: over the attempts whose tests passed, and, arm against the
  baseline, over the tasks both solved (each task's mean over its passing attempts).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.engine import digest_of, parse_diff
from bot.replay.errors import ReplayError
from bot.replay.stats import CONFIDENCE, DEFAULT_ITERATIONS, DEFAULT_SEED, intervals, mean, median
from bot.replay.store import Attempt, Store
from bot.replay.tasks import Task
from bot.replay.traces import measure, read_trace

REPORT_SCHEMA = "receipt-replay-report/1"
RATES = ("functional", "faithful", "infrastructure")
MEANS = ("excess", "added_complexity")
TRACE_NUMBERS = (
    "read_before_edit", "tests_after_last_edit", "edits_per_failed_test_run", "reverted_after_failure",
    "diff_within_tool_edits",
)  # fmt: skip
_REQUIREMENT = re.compile(r"^\s*([a-z_]+)\s*(>=|<=)\s*([0-9]*\.?[0-9]+)\s*(%?)\s*$")


@dataclass(frozen=True, slots=True)
class Requirement:
    metric: str
    operator: str
    value: float

    @property
    def text(self) -> str:
        return f"{self.metric}{self.operator}{self.value:g}"

    def holds(self, actual: float | None) -> bool:
        if actual is None:
            return False
        return actual >= self.value if self.operator == ">=" else actual <= self.value


def parse_requirement(text: str) -> Requirement:
    match = _REQUIREMENT.match(text)
    if not match or match[1] not in (*RATES, *MEANS):
        names = ", ".join((*RATES, *MEANS))
        raise ReplayError(f"--require {text!r}: write METRIC>=X or METRIC<=X with METRIC one of {names}")
    value = float(match[3]) / (100 if match[4] else 1)
    return Requirement(match[1], match[2], value)


@dataclass(frozen=True)
class ReportOptions:
    baseline: str | None = None
    require: tuple[Requirement, ...] = ()
    critical: tuple[str, ...] = ()
    seed: int = DEFAULT_SEED
    iterations: int = DEFAULT_ITERATIONS
    confidence: float = CONFIDENCE

    def as_json(self, baseline: str) -> dict[str, Any]:
        return {
            "baseline": baseline,
            "require": [r.text for r in self.require],
            "critical": sorted(self.critical),
            "seed": self.seed,
            "iterations": self.iterations,
            "confidence": self.confidence,
        }


def attempt_row(attempt: Attempt, task: Task) -> dict[str, Any]:
    record = attempt.record
    status = str(record["status"])
    row: dict[str, Any] = {
        "task": attempt.key.task,
        "arm": attempt.key.arm,
        "attempt": attempt.key.attempt,
        "status": status,
        "reason": record.get("reason"),
        "record": record["digest"],
        "functional": False,
        "faithful": False,
        "infrastructure": status == "infrastructure",
        "empty": None,
        "semantic": None,
        "scope": None,
        "locality": None,
        "conclusion": None,
        "files": None,
        "hunks": None,
        "logical_lines": None,
        "distance": None,
        "excess": None,
        "added_complexity": None,
        "violations": {},
        "trace": None,
    }
    receipt = attempt.json_artefact("receipt") if status == "scored" else None
    if receipt is not None:
        semantic = receipt["semantic"]["status"]
        scope, locality = bool(receipt["scope"]["pass"]), bool(receipt["locality"]["pass"])
        violations: dict[str, int] = {}
        for v in [*receipt["scope"]["violations"], *receipt["locality"]["violations"]]:
            violations[v["rule"]] = violations.get(v["rule"], 0) + 1
        change, excess = receipt["change"], receipt["excess"]
        empty = change["files"] == 0
        functional = semantic == "pass" and not empty
        row.update(
            functional=functional,
            faithful=functional and scope and locality,
            empty=empty,
            semantic=semantic,
            scope=scope,
            locality=locality,
            conclusion=receipt["verdict"]["conclusion"],
            files=change["files"],
            hunks=change["hunks"],
            logical_lines=change["logical_lines"],
            distance=excess["distance"],
            excess=excess["excess"],
            added_complexity=excess["added_complexity"],
            violations=dict(sorted(violations.items())),
            receipt=receipt["digest"],
        )
    trace_bytes = attempt.artefact("trace")
    if trace_bytes is not None:
        trace = read_trace(trace_bytes, str(record["agent"].get("tree") or ""))
        if trace is not None:
            patch = attempt.artefact("patch") or b""
            files = parse_diff(patch).files if patch else ()
            final = [f.path for f in files]
            created = [f.path for f in files if f.old_path is None]
            row["trace"] = measure(trace, final, created, task.test_command).as_json()
    return row


def _per_task(rows: Sequence[Mapping[str, Any]], key: str) -> float:
    return sum(1.0 for r in rows if r[key]) / len(rows)


def _numbers(values: Sequence[float]) -> dict[str, Any]:
    return {"mean": mean(values), "median": median(values), "count": len(values)}


def arm_summary(arm: str, rows: Sequence[Mapping[str, Any]], task_ids: Sequence[str]) -> dict[str, Any]:
    mine = [r for r in rows if r["arm"] == arm]
    by_task = {t: [r for r in mine if r["task"] == t] for t in task_ids}
    present = {t: rs for t, rs in by_task.items() if rs}
    rates = {
        k: (sum(_per_task(rs, k) for rs in present.values()) / len(present) if present else None)
        for k in RATES
    }
    scored = [r for r in mine if r["status"] == "scored"]
    passing = [r for r in scored if r["functional"]]
    violations: dict[str, int] = {}
    for r in scored:
        for rule, count in r["violations"].items():
            violations[rule] = violations.get(rule, 0) + count
    traced = [r["trace"] for r in mine if r["trace"] is not None]
    trace_numbers: dict[str, Any] = {"attempts": len(traced)}
    for name in TRACE_NUMBERS:
        values = [float(t[name]) for t in traced if t[name] is not None]
        trace_numbers[name] = _numbers(values)
    return {
        "attempts": len(mine),
        "statuses": {
            s: sum(1 for r in mine if r["status"] == s) for s in ("scored", "infrastructure", "error")
        },
        "functional_rate": rates["functional"],
        "faithful_rate": rates["faithful"],
        "infrastructure_rate": rates["infrastructure"],
        "scope_violations": dict(sorted(violations.items())),
        "attempts_with_scope_violations": sum(1 for r in scored if r["scope"] is False),
        "empty_attempts": sum(1 for r in scored if r["empty"]),
        "review_surface": {
            k: _numbers([float(r[k]) for r in scored]) for k in ("files", "hunks", "logical_lines")
        },
        "excess": _numbers([float(r["excess"]) for r in passing if r["excess"] is not None]),
        "added_complexity": _numbers(
            [float(r["added_complexity"]) for r in passing if r["added_complexity"] is not None]
        ),
        "excess_values": sorted(float(r["excess"]) for r in passing if r["excess"] is not None),
        "trace": trace_numbers,
    }


def _task_means(rows: Sequence[Mapping[str, Any]], arm: str, key: str) -> dict[str, float]:
    """Per task, the mean of `key` over the arm's passing attempts that have it."""
    found: dict[str, list[float]] = {}
    for r in rows:
        if r["arm"] == arm and r["functional"] and r[key] is not None:
            found.setdefault(r["task"], []).append(float(r[key]))
    return {t: sum(v) / len(v) for t, v in found.items()}


def compare(
    rows: Sequence[Mapping[str, Any]],
    arm: str,
    baseline: str,
    task_ids: Sequence[str],
    options: ReportOptions,
) -> dict[str, Any]:
    """arm − baseline, per task, with bootstrap intervals resampled by task."""

    def rate(name: str, key: str) -> dict[str, float]:
        found = {}
        for t in task_ids:
            rs = [r for r in rows if r["arm"] == name and r["task"] == t]
            if rs:
                found[t] = _per_task(rs, key)
        return found

    paired = {}
    for key in ("functional", "faithful"):
        a, b = rate(arm, key), rate(baseline, key)
        paired[key] = [a[t] - b[t] for t in task_ids if t in a and t in b]
    shared = {}
    for key in MEANS:
        a, b = _task_means(rows, arm, key), _task_means(rows, baseline, key)
        shared[key] = [a[t] - b[t] for t in task_ids if t in a and t in b]

    def bootstrap(columns: list[list[float]]) -> list[Any]:
        return intervals(
            columns, iterations=options.iterations, seed=options.seed, confidence=options.confidence
        )

    rates = bootstrap([paired["functional"], paired["faithful"]])
    means = [bootstrap([shared[k]])[0] for k in MEANS]
    return {
        "arm": arm,
        "baseline": baseline,
        "functional": rates[0].as_json(),
        "faithful": rates[1].as_json(),
        "excess": means[0].as_json(),
        "added_complexity": means[1].as_json(),
    }


def task_matrix(
    rows: Sequence[Mapping[str, Any]], tasks: Sequence[Task], arms: Sequence[str], critical: set[str]
) -> list[dict[str, Any]]:
    matrix = []
    for task in tasks:
        cells = {}
        for arm in arms:
            rs = [r for r in rows if r["task"] == task.id and r["arm"] == arm]
            cells[arm] = {
                "attempts": len(rs),
                "functional": sum(1 for r in rs if r["functional"]),
                "faithful": sum(1 for r in rs if r["faithful"]),
                "infrastructure": sum(1 for r in rs if r["status"] == "infrastructure"),
                "errors": sum(1 for r in rs if r["status"] == "error"),
            }
        matrix.append({"task": task.id, "title": task.title, "critical": task.id in critical, "arms": cells})
    return matrix


def _gate(
    summaries: Mapping[str, Mapping[str, Any]],
    matrix: Sequence[Mapping[str, Any]],
    baseline: str,
    options: ReportOptions,
    missing: int,
) -> dict[str, Any]:
    candidates = [a for a in summaries if a != baseline] or [baseline]
    verdicts = []
    for arm in candidates:
        failures: list[str] = []
        if missing:
            failures.append(f"the run is incomplete: {missing} attempt(s) have not run")
        for need in options.require:
            summary = summaries[arm]
            actual = summary[f"{need.metric}_rate"] if need.metric in RATES else summary[need.metric]["mean"]
            if not need.holds(actual):
                shown = "none" if actual is None else f"{actual:.4g}"
                failures.append(f"{need.metric} is {shown}, required {need.operator} {need.value:g}")
        if arm != baseline:
            for row in matrix:
                if not row["critical"]:
                    continue
                mine, theirs = row["arms"][arm], row["arms"][baseline]
                if (
                    mine["attempts"]
                    and theirs["attempts"]
                    and (mine["faithful"] / mine["attempts"] < theirs["faithful"] / theirs["attempts"])
                ):
                    failures.append(
                        f"critical task {row['task']} regresses: "
                        f"faithful {mine['faithful']}/{mine['attempts']} against "
                        f"{theirs['faithful']}/{theirs['attempts']} for {baseline}"
                    )
        verdicts.append({"arm": arm, "pass": not failures, "failures": failures})
    return {"pass": all(v["pass"] for v in verdicts), "arms": verdicts}


def build_report(store: Store, attempts: Sequence[Attempt], options: ReportOptions) -> dict[str, Any]:
    arms = [a.name for a in store.arms]
    baseline = options.baseline or arms[0]
    if baseline not in arms:
        raise ReplayError(f"--baseline {baseline}: no such arm (the run has {', '.join(arms)})")
    task_ids = [t.id for t in store.tasks]
    unknown = sorted(set(options.critical) - set(task_ids))
    if unknown:
        raise ReplayError(f"--critical {unknown[0]}: no such task in the task set")
    critical = {t.id for t in store.tasks if t.critical} | set(options.critical)
    rows = [attempt_row(a, store.task(a.key.task)) for a in attempts]
    summaries = {arm: arm_summary(arm, rows, task_ids) for arm in arms}
    comparisons = [compare(rows, arm, baseline, task_ids, options) for arm in arms if arm != baseline]
    matrix = task_matrix(rows, store.tasks, arms, critical)
    missing = len(list(store.keys())) - len(attempts)
    body: dict[str, Any] = {
        "schema": REPORT_SCHEMA,
        "run": {
            "directory": str(store.root),
            "digest": digest_of(dict(store.spec)),
            "task_set": dict(store.spec["task_set"]),
            "arms": list(store.spec["arms"]),
            "attempts": store.attempts,
            "complete": missing == 0,
            "missing": missing,
        },
        "options": options.as_json(baseline),
        "arms": summaries,
        "comparisons": comparisons,
        "tasks": matrix,
        "attempts": rows,
        "gate": _gate(summaries, matrix, baseline, options, missing),
    }
    body["digest"] = digest_of(body)
    return body


def options_from(body: Mapping[str, Any]) -> ReportOptions:
    """The options a report was built with, as it records them (for recomputing it)."""
    given = body["options"]
    return ReportOptions(
        baseline=given["baseline"],
        require=tuple(parse_requirement(r) for r in given["require"]),
        critical=tuple(given["critical"]),
        seed=int(given["seed"]),
        iterations=int(given["iterations"]),
        confidence=float(given["confidence"]),
    )

"""Prometheus metrics (`GET /metrics`): deliveries, jobs, GitHub calls, rate limits, queue depth.

Under `receipt serve` the worker process counts jobs and GitHub's answers and the web process
serves them: both write to prometheus-client's multiprocess directory (`metricsdir.py`), and
`exposition` reads every process's files. A gauge shows the value set last, whichever process
set it."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Final

import httpx
from prometheus_client import (
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

from bot.server.metricsdir import MULTIPROC_ENV

# prometheus_client made the same choice when it was imported, from the same variable.
MULTIPROCESS = bool(os.environ.get(MULTIPROC_ENV))

LAST: Final = "mostrecent"  # a gauge's value across processes: the one set last
DELIVERIES = Counter("receipt_deliveries_total", "Webhook deliveries answered", ["event", "outcome"])
JOBS = Counter("receipt_jobs_total", "Jobs finished", ["kind", "outcome"])
JOB_SECONDS = Histogram(
    "receipt_job_seconds", "Time from a job's claim to its end", ["kind"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300),
)  # fmt: skip
JOB_WAIT_SECONDS = Histogram(
    "receipt_job_wait_seconds", "Time from a job being due to its claim (workers busy, or a message lost)",
    ["kind"], buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900),
)  # fmt: skip
GITHUB_CALLS = Counter(
    "receipt_github_requests_total", "Answers from GitHub's API (each retry counts)", ["method", "status"]
)
RATE_REMAINING = Gauge(
    "receipt_github_rate_limit_remaining",
    "x-ratelimit-remaining of the last answer, per quota: the App's own, or an installation's",
    ["resource", "quota"],
    multiprocess_mode=LAST,
)
QUEUE_DEPTH = Gauge("receipt_queue_depth", "Messages waiting in the task queue", multiprocess_mode=LAST)
PENDING_JOBS = Gauge("receipt_pending_jobs", "Jobs in the store waiting to run", multiprocess_mode=LAST)


def github_observer(quota: str) -> Callable[[httpx.Response], None]:
    """Counts every answer by method and status; keeps the rate limit left for `quota`."""

    def observe(response: httpx.Response) -> None:
        GITHUB_CALLS.labels(method=response.request.method, status=str(response.status_code)).inc()
        remaining = response.headers.get("x-ratelimit-remaining", "")
        if remaining.isdigit():
            resource = response.headers.get("x-ratelimit-resource", "core")[:32]
            RATE_REMAINING.labels(resource=resource, quota=quota).set(int(remaining))

    return observe


def exposition() -> bytes:
    """Every metric in the text format: this process's alone, or with MULTIPROCESS every
    process's of this server (and this process's own interpreter and resource figures)."""
    if not MULTIPROCESS:
        return bytes(generate_latest())
    registry = CollectorRegistry()
    MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # untyped in prometheus_client
    for own in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
        registry.register(own)
    return bytes(generate_latest(registry))

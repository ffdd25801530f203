"""Prometheus metrics (`GET /metrics`): deliveries, jobs, GitHub calls, rate limits, queue depth."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from prometheus_client import Counter, Gauge, Histogram

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
)
QUEUE_DEPTH = Gauge("receipt_queue_depth", "Messages waiting in the task queue")
PENDING_JOBS = Gauge("receipt_pending_jobs", "Jobs in the store waiting to run")


def github_observer(quota: str) -> Callable[[httpx.Response], None]:
    """Counts every answer by method and status; keeps the rate limit left for `quota`."""

    def observe(response: httpx.Response) -> None:
        GITHUB_CALLS.labels(method=response.request.method, status=str(response.status_code)).inc()
        remaining = response.headers.get("x-ratelimit-remaining", "")
        if remaining.isdigit():
            resource = response.headers.get("x-ratelimit-resource", "core")[:32]
            RATE_REMAINING.labels(resource=resource, quota=quota).set(int(remaining))

    return observe

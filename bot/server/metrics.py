"""Prometheus metrics (`GET /metrics`): deliveries, jobs, GitHub calls, rate limits, queue depth."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

DELIVERIES = Counter("receipt_deliveries_total", "Webhook deliveries answered", ["event", "outcome"])
JOBS = Counter("receipt_jobs_total", "Jobs finished", ["kind", "outcome"])
JOB_SECONDS = Histogram(
    "receipt_job_seconds", "Time from a job's claim to its end", ["kind"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300),
)  # fmt: skip
GITHUB_CALLS = Counter("receipt_github_requests_total", "Requests to GitHub's API", ["method", "status"])
RATE_REMAINING = Gauge(
    "receipt_github_rate_limit_remaining", "x-ratelimit-remaining of the last answer", ["resource"]
)
QUEUE_DEPTH = Gauge("receipt_queue_depth", "Messages waiting in the task queue")
PENDING_JOBS = Gauge("receipt_pending_jobs", "Jobs in the store waiting to run")

"""Tables. Every duplicate and race is settled here: unique keys, conditional updates, leases."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import JSON, BigInteger, Boolean, DateTime, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# SQLite gives autoincrement only to INTEGER PRIMARY KEY; PostgreSQL gets a BIGINT identity.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: DateTime(), dict[str, Any]: JSON}  # naive UTC


class Delivery(Base):
    """A webhook delivery, recorded in the transaction that enqueues its jobs (GUID = primary key)."""

    __tablename__ = "deliveries"

    guid: Mapped[str] = mapped_column(String(64), primary_key=True)
    event: Mapped[str] = mapped_column(String(64))
    action: Mapped[str | None] = mapped_column(String(64))
    installation_id: Mapped[int | None] = mapped_column(BigInteger)
    repo: Mapped[str | None] = mapped_column(String(200))
    outcome: Mapped[str] = mapped_column(String(32))  # queued | ignored | ping
    detail: Mapped[str | None] = mapped_column(Text)
    received_at: Mapped[datetime]


class Job(Base):
    """One unit of work. `key` serializes jobs of one pull request (or merge group, or head)."""

    __tablename__ = "jobs"
    __table_args__ = (
        Index("ix_jobs_state_due", "state", "not_before"),
        Index("ix_jobs_key_state", "key", "state"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(300))
    kind: Mapped[str] = mapped_column(String(32))  # evaluate | cancel
    reason: Mapped[str] = mapped_column(String(32))  # opened | rerequested | refresh | merge_group | ...
    state: Mapped[str] = mapped_column(String(16))  # pending | running | done | cancelled | failed
    installation_id: Mapped[int | None] = mapped_column(BigInteger)
    repo: Mapped[str] = mapped_column(String(200))
    head_sha: Mapped[str] = mapped_column(String(64), index=True)
    pr: Mapped[int | None] = mapped_column(Integer)
    spec: Mapped[dict[str, Any]] = mapped_column(JSON)
    delivery_guid: Mapped[str | None] = mapped_column(String(64))
    superseded_by: Mapped[str | None] = mapped_column(String(64))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    concluding: Mapped[bool] = mapped_column(
        Boolean, default=False
    )  # gave up: ending the run with the reason
    last_error: Mapped[str | None] = mapped_column(Text)
    # looks at GitHub's test merge that found it not computed yet (work.py puts the job back)
    merge_looks: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    not_before: Mapped[datetime | None]
    lease_until: Mapped[datetime | None]
    enqueued_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class CheckRun(Base):
    """A `receipt` check run the App posted, so later events can update it (found by head SHA)."""

    __tablename__ = "check_runs"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)  # GitHub's id
    repo: Mapped[str] = mapped_column(String(200))
    head_sha: Mapped[str] = mapped_column(String(64), index=True)
    pr: Mapped[int | None] = mapped_column(Integer)
    key: Mapped[str] = mapped_column(String(300))
    installation_id: Mapped[int | None] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16))  # in_progress | completed
    conclusion: Mapped[str | None] = mapped_column(String(32))
    annotations_sent: Mapped[int] = mapped_column(Integer, default=0)
    spec: Mapped[dict[str, Any]] = mapped_column(JSON)  # the pull request or merge group it judged
    waiting: Mapped[dict[str, Any]] = mapped_column(JSON)  # {"checks": [names]} while semantic is pending
    deadline: Mapped[datetime | None]  # when waiting for test checks ends as timed_out
    receipt_id: Mapped[str | None] = mapped_column(String(64))
    digest: Mapped[str | None] = mapped_column(String(80))  # what it shows: no update when unchanged
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class StoredReceipt(Base):
    """A receipt as published, kept beyond GitHub's check retention; read with its capability token."""

    __tablename__ = "receipts"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    repo: Mapped[str] = mapped_column(String(200))
    pr: Mapped[int | None] = mapped_column(Integer)
    head_sha: Mapped[str] = mapped_column(String(64), index=True)
    conclusion: Mapped[str] = mapped_column(String(32))
    body: Mapped[str] = mapped_column(Text)
    whatif: Mapped[str | None] = mapped_column(Text)  # JSON: a manifest-editing pull request's what-if
    created_at: Mapped[datetime]


class Lease(Base):
    """A named lease: periodic work runs once across the fleet, whoever takes the lease."""

    __tablename__ = "leases"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    held_until: Mapped[datetime]
    holder: Mapped[str] = mapped_column(String(200))


class Redelivery(Base):
    """A failed delivery the App asked GitHub to send again (at most a few times per GUID)."""

    __tablename__ = "redeliveries"

    guid: Mapped[str] = mapped_column(String(64), primary_key=True)
    delivery_id: Mapped[int] = mapped_column(BigInteger)  # the failed attempt redelivered last
    event: Mapped[str] = mapped_column(String(64))
    action: Mapped[str | None] = mapped_column(String(64))
    requests: Mapped[int] = mapped_column(Integer)
    requested_at: Mapped[datetime]
    error: Mapped[str | None] = mapped_column(Text)  # why GitHub refused the last request


class DeliveryScan(Base):
    """The next pass over GitHub's delivery list may stop here: every delivery before was examined."""

    __tablename__ = "delivery_scans"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    covered_to: Mapped[datetime]


class Dispatch(Base):
    """A `tests.dispatch` workflow the App started for a head (once per head)."""

    __tablename__ = "dispatches"

    repo: Mapped[str] = mapped_column(String(200), primary_key=True)
    head_sha: Mapped[str] = mapped_column(String(64), primary_key=True)
    workflow: Mapped[str] = mapped_column(String(200), primary_key=True)
    requested_at: Mapped[datetime]
    error: Mapped[str | None] = mapped_column(Text)

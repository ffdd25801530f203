"""The first tables: deliveries, jobs, check runs, receipts, leases.

Revision ID: 0001
Revises: nothing (the first migration)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "check_runs",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("repo", sa.String(length=200), nullable=False),
        sa.Column("head_sha", sa.String(length=64), nullable=False),
        sa.Column("pr", sa.Integer(), nullable=True),
        sa.Column("key", sa.String(length=300), nullable=False),
        sa.Column("installation_id", sa.BigInteger(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("conclusion", sa.String(length=32), nullable=True),
        sa.Column("annotations_sent", sa.Integer(), nullable=False),
        sa.Column("spec", sa.JSON(), nullable=False),
        sa.Column("waiting", sa.JSON(), nullable=False),
        sa.Column("deadline", sa.DateTime(), nullable=True),
        sa.Column("receipt_id", sa.String(length=64), nullable=True),
        sa.Column("digest", sa.String(length=80), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("check_runs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_check_runs_head_sha"), ["head_sha"], unique=False)

    op.create_table(
        "deliveries",
        sa.Column("guid", sa.String(length=64), nullable=False),
        sa.Column("event", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=True),
        sa.Column("installation_id", sa.BigInteger(), nullable=True),
        sa.Column("repo", sa.String(length=200), nullable=True),
        sa.Column("outcome", sa.String(length=32), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("received_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guid"),
    )
    op.create_table(
        "jobs",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False
        ),
        sa.Column("key", sa.String(length=300), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("installation_id", sa.BigInteger(), nullable=True),
        sa.Column("repo", sa.String(length=200), nullable=False),
        sa.Column("head_sha", sa.String(length=64), nullable=False),
        sa.Column("pr", sa.Integer(), nullable=True),
        sa.Column("spec", sa.JSON(), nullable=False),
        sa.Column("delivery_guid", sa.String(length=64), nullable=True),
        sa.Column("superseded_by", sa.String(length=64), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("concluding", sa.Boolean(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("not_before", sa.DateTime(), nullable=True),
        sa.Column("lease_until", sa.DateTime(), nullable=True),
        sa.Column("enqueued_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_jobs_head_sha"), ["head_sha"], unique=False)
        batch_op.create_index("ix_jobs_key_state", ["key", "state"], unique=False)
        batch_op.create_index("ix_jobs_state_due", ["state", "not_before"], unique=False)

    op.create_table(
        "leases",
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("held_until", sa.DateTime(), nullable=False),
        sa.Column("holder", sa.String(length=200), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    op.create_table(
        "receipts",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("repo", sa.String(length=200), nullable=False),
        sa.Column("pr", sa.Integer(), nullable=True),
        sa.Column("head_sha", sa.String(length=64), nullable=False),
        sa.Column("conclusion", sa.String(length=32), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("receipts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_receipts_head_sha"), ["head_sha"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("receipts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_receipts_head_sha"))

    op.drop_table("receipts")
    op.drop_table("leases")
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_state_due")
        batch_op.drop_index("ix_jobs_key_state")
        batch_op.drop_index(batch_op.f("ix_jobs_head_sha"))

    op.drop_table("jobs")
    op.drop_table("deliveries")
    with op.batch_alter_table("check_runs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_check_runs_head_sha"))

    op.drop_table("check_runs")

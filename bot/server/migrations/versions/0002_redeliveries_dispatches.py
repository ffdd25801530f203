"""Redelivered webhook deliveries, the redelivery pass's high-water mark, dispatched workflows.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "redeliveries",
        sa.Column("guid", sa.String(length=64), nullable=False),
        sa.Column("delivery_id", sa.BigInteger(), nullable=False),
        sa.Column("event", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=True),
        sa.Column("requests", sa.Integer(), nullable=False),
        sa.Column("requested_at", sa.DateTime(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("guid"),
    )
    op.create_table(
        "delivery_scans",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("covered_to", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    op.create_table(
        "dispatches",
        sa.Column("repo", sa.String(length=200), nullable=False),
        sa.Column("head_sha", sa.String(length=64), nullable=False),
        sa.Column("workflow", sa.String(length=200), nullable=False),
        sa.Column("requested_at", sa.DateTime(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("repo", "head_sha", "workflow"),
    )


def downgrade() -> None:
    op.drop_table("dispatches")
    op.drop_table("delivery_scans")
    op.drop_table("redeliveries")

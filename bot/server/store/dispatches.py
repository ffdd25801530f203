"""`tests.dispatch` workflows started by the App: one row per head and workflow, written before
the request, so two workers evaluating one head never both start it."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError

from bot.server.store.db import Database, utcnow
from bot.server.store.models import Dispatch


def claim_dispatch(db: Database, repo: str, head_sha: str, workflow: str) -> bool:
    """True for the one caller that is to start `workflow` for this head."""
    try:
        with db.session() as session:
            if session.get(Dispatch, (repo, head_sha, workflow)) is not None:
                return False
            session.add(Dispatch(repo=repo, head_sha=head_sha, workflow=workflow, requested_at=utcnow()))
        return True
    except IntegrityError:
        return False


def dispatch_failed(db: Database, repo: str, head_sha: str, workflow: str, error: str) -> None:
    with db.session() as session:
        row = session.get(Dispatch, (repo, head_sha, workflow))
        if row is not None:
            row.error = error[:2000]


def dispatch_error(db: Database, repo: str, head_sha: str, workflow: str) -> str | None:
    """Why GitHub refused to start it, when it did."""
    with db.read() as session:
        row = session.get(Dispatch, (repo, head_sha, workflow))
        return row.error if row is not None else None


def release_dispatch(db: Database, repo: str, head_sha: str, workflow: str) -> None:
    """Give the claim up (GitHub did not answer): the job's retry claims it again."""
    with db.session() as session:
        row = session.get(Dispatch, (repo, head_sha, workflow))
        if row is not None:
            session.delete(row)

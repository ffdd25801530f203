"""The check runs the App posted and the receipts it keeps (read back with a capability token)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from bot.server.store.db import Database, utcnow
from bot.server.store.models import CheckRun, StoredReceipt


@dataclass(frozen=True, slots=True)
class ReceiptLink:
    id: str
    token: str


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def store_receipt(
    db: Database,
    *,
    body: str,
    repo: str,
    pr: int | None,
    head_sha: str,
    conclusion: str,
    whatif: str | None = None,
) -> ReceiptLink:
    """Keep a receipt (and the JSON of its what-if, if any); the token is shown once (in the link)
    and only its hash is stored."""
    link = ReceiptLink(secrets.token_hex(16), secrets.token_urlsafe(32))
    with db.session() as session:
        session.add(
            StoredReceipt(
                id=link.id,
                token_hash=_hash(link.token),
                repo=repo,
                pr=pr,
                head_sha=head_sha,
                conclusion=conclusion,
                body=body,
                whatif=whatif,
                created_at=utcnow(),
            )
        )
    return link


def load_receipt(db: Database, receipt_id: str, token: str | None) -> StoredReceipt | None:
    """The receipt when the token matches (constant time); None otherwise, whichever part was wrong."""
    if not token or len(receipt_id) > 64 or len(token) > 200:
        return None
    with db.read() as session:
        found = session.get(StoredReceipt, receipt_id)
    expected = found.token_hash if found is not None else _hash("")
    if not hmac.compare_digest(expected, _hash(token)) or found is None:
        return None
    return found


def latest_run(db: Database, repo: str, head_sha: str) -> CheckRun | None:
    with db.read() as session:
        query = (
            select(CheckRun)
            .where(CheckRun.repo == repo, CheckRun.head_sha == head_sha)
            .order_by(CheckRun.created_at.desc(), CheckRun.id.desc())
            .limit(1)
        )
        return session.scalars(query).first()


def get_run(db: Database, run_id: int) -> CheckRun | None:
    with db.read() as session:
        return session.get(CheckRun, run_id)


def save_run(
    db: Database,
    *,
    run_id: int,
    repo: str,
    head_sha: str,
    pr: int | None,
    key: str,
    installation_id: int | None,
    status: str,
    conclusion: str | None,
    annotations_sent: int,
    spec: dict[str, Any],
    waiting: list[str],
    deadline: datetime | None,
    receipt_id: str | None,
    digest: str | None,
) -> None:
    now = utcnow()
    with db.session() as session:
        run = session.get(CheckRun, run_id)
        if run is None:
            run = CheckRun(id=run_id, repo=repo, head_sha=head_sha, key=key, created_at=now)
            session.add(run)
        run.pr, run.installation_id = pr, installation_id
        run.status, run.conclusion = status, conclusion
        run.annotations_sent, run.spec = annotations_sent, spec
        run.waiting, run.deadline, run.receipt_id = {"checks": waiting}, deadline, receipt_id
        run.digest = digest
        run.updated_at = now


def overdue_runs(db: Database, now: datetime) -> list[CheckRun]:
    """Runs still waiting for test checks past their deadline."""
    with db.read() as session:
        query = select(CheckRun).where(
            CheckRun.status == "in_progress", CheckRun.deadline.is_not(None), CheckRun.deadline < now
        )
        return list(session.scalars(query))

"""What the App asked GitHub to redeliver, and how far back its passes over the delivery list
have looked. Who redelivers a GUID is settled by the row: inserted, or moved on to a newer failed
attempt by one conditional UPDATE, so two passes never both ask for the same attempt."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from bot.server.store.db import Database, utcnow
from bot.server.store.models import Delivery, DeliveryScan, Redelivery


def known_deliveries(db: Database, guids: Collection[str]) -> set[str]:
    """The GUIDs among `guids` the App has recorded (it answered one of their attempts)."""
    found: set[str] = set()
    wanted = list(guids)
    with db.read() as session:
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            found.update(session.scalars(select(Delivery.guid).where(Delivery.guid.in_(chunk))))
    return found


def requested(db: Database, guids: Collection[str]) -> dict[str, tuple[int, int]]:
    """GUID -> (the attempt redelivered last, how many times the App asked)."""
    found: dict[str, tuple[int, int]] = {}
    wanted = list(guids)
    with db.read() as session:
        for start in range(0, len(wanted), 500):
            query = select(Redelivery).where(Redelivery.guid.in_(wanted[start : start + 500]))
            found.update((r.guid, (r.delivery_id, r.requests)) for r in session.scalars(query))
    return found


def claim_redelivery(
    db: Database, *, guid: str, delivery_id: int, event: str, action: str | None, most: int
) -> bool:
    """True for the one caller that is to ask for attempt `delivery_id` of `guid` to be redelivered."""
    now = utcnow()
    try:
        with db.session() as session:
            moved = session.execute(
                update(Redelivery)
                .where(
                    Redelivery.guid == guid,
                    Redelivery.delivery_id < delivery_id,
                    Redelivery.requests < most,
                )
                .values(
                    delivery_id=delivery_id, requests=Redelivery.requests + 1, requested_at=now, error=None
                )
            )
            if moved.rowcount == 1:  # type: ignore[attr-defined]
                return True
            if session.get(Redelivery, guid) is not None:
                return False
            row = Redelivery(guid=guid, delivery_id=delivery_id, event=event[:64],
                             action=action and action[:64], requests=1, requested_at=now)  # fmt: skip
            session.add(row)
        return True
    except IntegrityError:
        return False


def redelivery_refused(db: Database, guid: str, error: str) -> None:
    with db.session() as session:
        row = session.get(Redelivery, guid)
        if row is not None:
            row.error = error[:2000]


def covered_to(db: Database, name: str) -> datetime | None:
    with db.read() as session:
        row = session.get(DeliveryScan, name)
        return row.covered_to if row is not None else None


def set_covered_to(db: Database, name: str, when: datetime) -> None:
    try:
        with db.session() as session:
            row = session.get(DeliveryScan, name)
            if row is None:
                session.add(DeliveryScan(name=name, covered_to=when))
            elif row.covered_to < when:
                row.covered_to = when
    except IntegrityError:  # another pass recorded its own at the same moment: either will do
        return

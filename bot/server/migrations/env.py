"""Alembic's environment: the engine comes from `Database` (config.attributes), never from an ini."""

from __future__ import annotations

from alembic import context

from bot.server.store.models import Base

engine = context.config.attributes["engine"]
with engine.begin() as connection:
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()

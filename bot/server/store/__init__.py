"""The App's durable store (SQLAlchemy 2, migrated by Alembic): deliveries, jobs, check runs, receipts."""

"""Alembic environment: always run programmatically on a connection handed in by the store."""

from __future__ import annotations

from alembic import context
from sqlalchemy import text

from feedback_intelligence.store.schema import metadata

connection = context.config.attributes["connection"]
if connection.dialect.name == "postgresql":
    # Several replicas may boot at once: one migrates, the others wait for it.
    connection.execute(text("SELECT pg_advisory_xact_lock(48151623)"))
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()

"""The manager's search at a chain's scale (ADR 0066): on PostgreSQL a trigram index (``pg_trgm``'s GIN
operator class) on ``feedback.text_folded``, so ``q`` — every word a substring of the folded text, the
same ``LIKE '%word%'`` as before — is read from the index instead of the window's rows. The answers do not
change; only how they are found. SQLite gets nothing (a store's database is small; it scans).

``pg_trgm`` is a trusted extension (PostgreSQL 13 and later): the database's owner may create it. Where it
cannot be created (an older server, a role without the right), the migration says so in the log and goes
on without the index: search stays exact, only slower (docs/operations/reports.md).

Revision ID: 0018
Revises: 0017
"""

import logging

from alembic import op
from sqlalchemy.exc import DBAPIError

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

log = logging.getLogger(__name__)
INDEX = "ix_feedback_text_folded_trgm"


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    try:
        with bind.begin_nested():  # a savepoint: a refused extension must not abort the migration
            op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except DBAPIError as exc:
        log.warning("search index skipped: the pg_trgm extension could not be created (%s)", exc.orig)
        return
    op.create_index(
        INDEX, "feedback", ["text_folded"], postgresql_using="gin", postgresql_ops={"text_folded": "gin_trgm_ops"}
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP INDEX IF EXISTS {INDEX}")

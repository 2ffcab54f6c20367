"""Who wrote an item, and the alert screen's verdict kept on the item (issues 26 and 28; ADR 0024).

``author`` is ``account:<id>`` with accounts, ``visitor:<16 hex of SHA-256 of the visitor key>`` under
``FI_AUTH=none``; null on rows written before it (docs/data-model.md). Planned as 0006, it ships as 0009
because 0007 and 0008 were already applied on development databases when it was built: a revision
inserted below an applied head would be taken as applied without its columns.

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("feedback") as batch:
        batch.add_column(sa.Column("author", sa.String(64), nullable=True))
        batch.add_column(sa.Column("screen_verdict", sa.String(8), nullable=True))
        batch.add_column(sa.Column("screen_reason", sa.Text(), nullable=True))
        batch.add_column(sa.Column("screened_at", sa.String(33), nullable=True))
    op.create_index("ix_feedback_author_timestamp", "feedback", ["author", "timestamp"])


def downgrade() -> None:
    op.drop_index("ix_feedback_author_timestamp", table_name="feedback")
    with op.batch_alter_table("feedback") as batch:
        for column in ("screened_at", "screen_reason", "screen_verdict", "author"):
            batch.drop_column(column)

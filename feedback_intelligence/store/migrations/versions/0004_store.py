"""The store an item belongs to, and its index for a store's windows (ADR 0024, docs/data-model.md).

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("feedback") as batch:
        batch.add_column(sa.Column("store", sa.String(32), nullable=True))
        batch.create_index("ix_feedback_store_timestamp", ["store", "timestamp"])


def downgrade() -> None:
    with op.batch_alter_table("feedback") as batch:
        batch.drop_index("ix_feedback_store_timestamp")
        batch.drop_column("store")

"""A case past its due time is told to its store's managers once (ADR 0061): ``overdue_at``, when that
escalation was enqueued; null for every case before and for one not yet overdue.

Revision ID: 0019
Revises: 0018
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("cases") as batch:
        batch.add_column(sa.Column("overdue_at", sa.String(33), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("cases") as batch:
        batch.drop_column("overdue_at")

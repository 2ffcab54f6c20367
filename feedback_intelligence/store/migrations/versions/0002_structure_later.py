"""The structuring worker's queue in the feedback row: due flag, attempts, claim lease.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("feedback") as batch:
        batch.add_column(sa.Column("structure_due", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("structure_attempts", sa.Integer, nullable=False, server_default=sa.text("0")))
        batch.add_column(sa.Column("lease_owner", sa.String(64), nullable=True))
        batch.add_column(sa.Column("lease_until_ms", sa.BigInteger, nullable=True))
    op.create_index("ix_feedback_structure_due", "feedback", ["structure_due", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_feedback_structure_due", table_name="feedback")
    with op.batch_alter_table("feedback") as batch:
        batch.drop_column("lease_until_ms")
        batch.drop_column("lease_owner")
        batch.drop_column("structure_attempts")
        batch.drop_column("structure_due")

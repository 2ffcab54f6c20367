"""How often a row's structuring call was preempted by a waiting visitor (aging, ADR 0017).

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("feedback") as batch:
        batch.add_column(sa.Column("structure_preemptions", sa.Integer, nullable=False, server_default=sa.text("0")))


def downgrade() -> None:
    with op.batch_alter_table("feedback") as batch:
        batch.drop_column("structure_preemptions")

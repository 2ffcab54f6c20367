"""Where a rule disagrees with a person's structure (ADR 0045): ``rule_advice_json``, a JSON list of
``{field, value, rule, words}``; null when no rule does, and on every row written before it.

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("feedback") as batch:
        batch.add_column(sa.Column("rule_advice_json", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("feedback") as batch:
        batch.drop_column("rule_advice_json")

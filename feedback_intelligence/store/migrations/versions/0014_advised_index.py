"""The rows a rule disagrees with, by time (ADR 0045): a partial index on ``timestamp`` where
``rule_advice_json`` is set, so the manager's list of disagreements (``/report/items?advice=true``) and the
report's count of them read the few advised rows instead of the window.

Revision ID: 0014
Revises: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

ADVISED = sa.text("rule_advice_json IS NOT NULL")


def upgrade() -> None:
    op.create_index(
        "ix_feedback_advised_timestamp",
        "feedback",
        ["timestamp"],
        sqlite_where=ADVISED,
        postgresql_where=ADVISED,
    )


def downgrade() -> None:
    op.drop_index("ix_feedback_advised_timestamp", table_name="feedback")

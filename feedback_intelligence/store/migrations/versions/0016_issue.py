"""The item's issue (deterministic/issue.py, ADR 0055): the problem it reports, across departments;
a derived column like ``category``. Null on every row written before it; the derivation version moved
with it, so those rows read stale and the re-derivation pass (``feedctl rederive``, or the background
pass at start-up) fills it.

Revision ID: 0016
Revises: 0015
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("feedback") as batch:
        batch.add_column(sa.Column("issue", sa.String(64), nullable=True))
        batch.create_index("ix_feedback_issue_timestamp", ["issue", "timestamp"])


def downgrade() -> None:
    with op.batch_alter_table("feedback") as batch:
        batch.drop_index("ix_feedback_issue_timestamp")
        batch.drop_column("issue")

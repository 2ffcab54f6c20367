"""The feedback table and the persistent counters.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "feedback",
        sa.Column("id", sa.String(100), primary_key=True),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("timestamp", sa.String(33), nullable=False),
        sa.Column("created_at", sa.String(33), nullable=False),
        sa.Column("structure_json", sa.Text, nullable=True),
        sa.Column("structure_failed", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("model_failed", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("salvage_notes_json", sa.Text, nullable=False, server_default=sa.text("'[]'")),
        sa.Column("alerts_json", sa.Text, nullable=False, server_default=sa.text("'[]'")),
        sa.Column("corrections_json", sa.Text, nullable=True),
        sa.Column("needs_review", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("review_flags_json", sa.Text, nullable=False, server_default=sa.text("'[]'")),
    )
    op.create_index("ix_feedback_timestamp", "feedback", ["timestamp"])
    op.create_table(
        "counters",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    )


def downgrade() -> None:
    op.drop_table("counters")
    op.drop_index("ix_feedback_timestamp", table_name="feedback")
    op.drop_table("feedback")

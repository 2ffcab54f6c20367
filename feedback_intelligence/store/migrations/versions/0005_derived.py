"""The derived columns, the alert hits' child table and their indexes (ADR 0024 sections 2–3).

Every row reads stale after this (``derived_rev`` null) until the re-derivation pass has run
(``feedctl rederive``, or the background pass at start-up).

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

THEME_MAX_CHARS = 60  # text/bounds.py at the time of writing: a migration does not move with the code


def upgrade() -> None:
    with op.batch_alter_table("feedback") as batch:
        batch.add_column(sa.Column("category", sa.String(64), nullable=True))
        batch.add_column(sa.Column("severity", sa.String(64), nullable=True))
        batch.add_column(sa.Column("type", sa.String(64), nullable=True))
        batch.add_column(sa.Column("sentiment", sa.String(64), nullable=True))
        batch.add_column(sa.Column("language", sa.String(35), nullable=True))
        batch.add_column(sa.Column("severity_rank", sa.SmallInteger, nullable=True))
        batch.add_column(sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("theme_base", sa.String(THEME_MAX_CHARS), nullable=True))
        batch.add_column(sa.Column("alert", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("text_folded", sa.Text, nullable=True))
        batch.add_column(sa.Column("corrected_fields", sa.String(200), nullable=True))
        batch.add_column(sa.Column("derived_rev", sa.String(32), nullable=True))
        batch.create_index("ix_feedback_category_timestamp", ["category", "timestamp"])
        # a group's sources (most severe first, then newest) by LIMIT per rank (docs/adr/0026)
        batch.create_index("ix_feedback_category_rank_timestamp", ["category", "severity_rank", "timestamp"])
        batch.create_index("ix_feedback_alert_timestamp", ["alert", "timestamp"])
    op.create_table(
        "feedback_alerts",
        sa.Column("feedback_id", sa.String(100), sa.ForeignKey("feedback.id"), primary_key=True),
        sa.Column("seq", sa.SmallInteger, primary_key=True),
        sa.Column("category", sa.String(64), nullable=False),
        sa.Column("pattern", sa.Text, nullable=False),
        sa.Column("words_json", sa.Text, nullable=False),
    )
    op.create_index("ix_feedback_alerts_category_feedback", "feedback_alerts", ["category", "feedback_id"])


def downgrade() -> None:
    op.drop_index("ix_feedback_alerts_category_feedback", table_name="feedback_alerts")
    op.drop_table("feedback_alerts")
    with op.batch_alter_table("feedback") as batch:
        batch.drop_index("ix_feedback_alert_timestamp")
        batch.drop_index("ix_feedback_category_rank_timestamp")
        batch.drop_index("ix_feedback_category_timestamp")
        for column in (
            "derived_rev",
            "corrected_fields",
            "text_folded",
            "alert",
            "theme_base",
            "rated",
            "severity_rank",
            "language",
            "sentiment",
            "type",
            "severity",
            "category",
        ):
            batch.drop_column(column)

"""The report's rollups: the chain's grouped counts per UTC day and hour (ADR 0033, ADR 0024 section 3).

Filled here from the rows' derived columns (no domain needed: the columns are already written), so a
migrated database answers from them at once; from then on every write of ``feedback`` adjusts them in
its own transaction (store/rollups.py). ``feedctl rollups rebuild`` refills them the same way.

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

THEME_MAX_CHARS = 60  # text/bounds.py at the time of writing: a migration does not move with the code
#: What the timestamp index carries on PostgreSQL from now on (index-only counts over a window's edges).
COVERED = [
    "category",
    "severity",
    "severity_rank",
    "sentiment",
    "rated",
    "alert",
    "needs_review",
    "structure_failed",
    "theme_base",
    "id",
]

# The fill, frozen as of this revision (store/rollups.py builds the same statements for a rebuild).
FILLS = (
    """
    INSERT INTO feedback_daily (day, category, severity, severity_rank, sentiment, rated, alert, needs_review,
                                structure_failed, items)
    SELECT substr(timestamp, 1, 10), coalesce(category, ''), coalesce(severity, ''), coalesce(severity_rank, 0),
           coalesce(sentiment, ''), rated, alert, needs_review, structure_failed, count(*)
    FROM feedback
    GROUP BY substr(timestamp, 1, 10), coalesce(category, ''), coalesce(severity, ''), coalesce(severity_rank, 0),
             coalesce(sentiment, ''), rated, alert, needs_review, structure_failed
    """,
    """
    INSERT INTO feedback_hourly (hour, category, alert, items)
    SELECT substr(timestamp, 1, 13), coalesce(category, ''), alert, count(*)
    FROM feedback
    GROUP BY substr(timestamp, 1, 13), coalesce(category, ''), alert
    """,
    """
    INSERT INTO theme_daily (day, category, theme_base, items, newest)
    SELECT substr(timestamp, 1, 10), category, theme_base, count(*), max(timestamp || ' ' || id)
    FROM feedback
    WHERE category IS NOT NULL AND theme_base IS NOT NULL
    GROUP BY substr(timestamp, 1, 10), category, theme_base
    """,
)


def upgrade() -> None:
    op.create_table(
        "feedback_daily",
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("category", sa.String(64), nullable=False),
        sa.Column("severity", sa.String(64), nullable=False),
        sa.Column("severity_rank", sa.SmallInteger, nullable=False),
        sa.Column("sentiment", sa.String(64), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("alert", sa.Boolean, nullable=False),
        sa.Column("needs_review", sa.Boolean, nullable=False),
        sa.Column("structure_failed", sa.Boolean, nullable=False),
        sa.Column("items", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint(
            "day",
            "category",
            "severity",
            "severity_rank",
            "sentiment",
            "rated",
            "alert",
            "needs_review",
            "structure_failed",
            name="pk_feedback_daily",
        ),
    )
    op.create_table(
        "theme_daily",
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("category", sa.String(64), nullable=False),
        sa.Column("theme_base", sa.String(THEME_MAX_CHARS), nullable=False),
        sa.Column("items", sa.BigInteger, nullable=False),
        sa.Column("newest", sa.String(140), nullable=False),
        sa.PrimaryKeyConstraint("day", "category", "theme_base", name="pk_theme_daily"),
    )
    op.create_table(
        "feedback_hourly",
        sa.Column("hour", sa.String(13), nullable=False),
        sa.Column("category", sa.String(64), nullable=False),
        sa.Column("alert", sa.Boolean, nullable=False),
        sa.Column("items", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("hour", "category", "alert", name="pk_feedback_hourly"),
    )
    for fill in FILLS:
        op.execute(fill)
    op.drop_index("ix_feedback_timestamp", table_name="feedback")
    op.create_index("ix_feedback_timestamp", "feedback", ["timestamp"], postgresql_include=COVERED)


def downgrade() -> None:
    op.drop_index("ix_feedback_timestamp", table_name="feedback")
    op.create_index("ix_feedback_timestamp", "feedback", ["timestamp"])
    op.drop_table("feedback_hourly")
    op.drop_table("theme_daily")
    op.drop_table("feedback_daily")

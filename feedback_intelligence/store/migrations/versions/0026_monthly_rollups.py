"""The counts' and the issue view's rollups per UTC month (ADR 0087): ``feedback_monthly`` (``feedback_daily``'s
keys with the month for the day) and ``issue_monthly`` (``issue_daily``'s). A long window reads its whole
months here and only the days around them from the daily rollups. Filled from the daily rollups they add up,
in the order of their key; every write of ``feedback`` keeps them from then on (store/rollups.py). Both
engines.

Revision ID: 0026
Revises: 0025
"""

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None

COUNT_KEY = ("category", "severity", "severity_rank", "sentiment", "rated", "alert", "needs_review", "structure_failed")

#: The fills, frozen as of this revision (store/rollups.py builds the same from the rows for a rebuild).
_COUNTS = "substr(day, 1, 7), " + ", ".join(COUNT_KEY)
_ISSUES = "substr(day, 1, 7), issue, store"
FILLS = (
    f"INSERT INTO feedback_monthly (month, {', '.join(COUNT_KEY)}, items) "
    f"SELECT {_COUNTS}, sum(items) FROM feedback_daily GROUP BY {_COUNTS} ORDER BY {_COUNTS}",
    f"INSERT INTO issue_monthly (month, issue, store, items, ranks) "
    f"SELECT {_ISSUES}, sum(items), sum(ranks) FROM issue_daily GROUP BY {_ISSUES} ORDER BY {_ISSUES}",
)


def upgrade() -> None:
    op.create_table(
        "feedback_monthly",
        sa.Column("month", sa.String(7), nullable=False),
        sa.Column("category", sa.String(64), nullable=False),
        sa.Column("severity", sa.String(64), nullable=False),
        sa.Column("severity_rank", sa.SmallInteger, nullable=False),
        sa.Column("sentiment", sa.String(64), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("alert", sa.Boolean, nullable=False),
        sa.Column("needs_review", sa.Boolean, nullable=False),
        sa.Column("structure_failed", sa.Boolean, nullable=False),
        sa.Column("items", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("month", *COUNT_KEY, name="pk_feedback_monthly"),
    )
    op.create_table(
        "issue_monthly",
        sa.Column("month", sa.String(7), nullable=False),
        sa.Column("issue", sa.String(64), nullable=False),
        sa.Column("store", sa.String(32), nullable=False),
        sa.Column("items", sa.BigInteger, nullable=False),
        sa.Column("ranks", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("month", "issue", "store", name="pk_issue_monthly"),
    )
    for fill in FILLS:
        op.execute(fill)


def downgrade() -> None:
    op.drop_table("issue_monthly")
    op.drop_table("feedback_monthly")

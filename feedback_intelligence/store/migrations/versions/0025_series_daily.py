"""The series' daily rollup (ADR 0085): ``series_daily``, items per UTC day, category ('' for none) and
operational alert, the day's grain of ``feedback_hourly``. A series grouped into weeks reads its whole days
here and only the hours a bucket's bound cuts off from ``feedback_hourly``. Filled from the hourly rollup it
adds up, in the order of its key (a window's rows on its own pages); every write of ``feedback`` keeps it
from then on (store/rollups.py). Both engines.

Revision ID: 0025
Revises: 0024
"""

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None

#: The fill, frozen as of this revision (store/rollups.py builds the same from the rows for a rebuild).
KEYS = "substr(hour, 1, 10), category, alert"
FILL = (
    f"INSERT INTO series_daily (day, category, alert, items) "
    f"SELECT {KEYS}, sum(items) FROM feedback_hourly GROUP BY {KEYS} ORDER BY {KEYS}"
)


def upgrade() -> None:
    op.create_table(
        "series_daily",
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("category", sa.String(64), nullable=False),
        sa.Column("alert", sa.Boolean, nullable=False),
        sa.Column("items", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("day", "category", "alert", name="pk_series_daily"),
    )
    op.execute(FILL)


def downgrade() -> None:
    op.drop_table("series_daily")

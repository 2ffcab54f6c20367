"""The issue view's rollups per UTC day (ADR 0079): ``issue_daily`` (items and their severity ranks by
issue and store, '' for none), ``issue_category_daily`` (items by issue and category) and
``issue_theme_daily`` (items and the newest ``timestamp id`` by issue and shown theme). Filled here from the rows, as
``feedctl rollups rebuild`` refills them; every write of ``feedback`` keeps them from then on
(store/rollups.py). Both engines.

Revision ID: 0024
Revises: 0023
"""

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

THEME_MAX_CHARS = 60  # text/bounds.py at the time of writing: a migration does not move with the code

#: The fills, frozen as of this revision (store/rollups.py builds the same statements for a rebuild).
DAY = "substr(timestamp, 1, 10)"
STORE_KEYS = f"{DAY}, issue, coalesce(store, '')"
CATEGORY_KEYS = f"{DAY}, issue, category"
THEME_KEYS = f"{DAY}, issue, theme_base"
FILLS = (
    f"INSERT INTO issue_daily (day, issue, store, items, ranks) "
    f"SELECT {STORE_KEYS}, count(*), coalesce(sum(severity_rank), 0) FROM feedback "
    f"WHERE issue IS NOT NULL GROUP BY {STORE_KEYS}",
    f"INSERT INTO issue_category_daily (day, issue, category, items) "
    f"SELECT {CATEGORY_KEYS}, count(*) FROM feedback "
    f"WHERE issue IS NOT NULL AND category IS NOT NULL GROUP BY {CATEGORY_KEYS}",
    f"INSERT INTO issue_theme_daily (day, issue, theme_base, items, newest) "
    f"SELECT {THEME_KEYS}, count(*), max(timestamp || ' ' || id) FROM feedback "
    f"WHERE issue IS NOT NULL AND theme_base IS NOT NULL GROUP BY {THEME_KEYS}",
)


def upgrade() -> None:
    op.create_table(
        "issue_daily",
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("issue", sa.String(64), nullable=False),
        sa.Column("store", sa.String(32), nullable=False),
        sa.Column("items", sa.BigInteger, nullable=False),
        sa.Column("ranks", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("day", "issue", "store", name="pk_issue_daily"),
    )
    op.create_table(
        "issue_category_daily",
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("issue", sa.String(64), nullable=False),
        sa.Column("category", sa.String(64), nullable=False),
        sa.Column("items", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("day", "issue", "category", name="pk_issue_category_daily"),
    )
    op.create_table(
        "issue_theme_daily",
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("issue", sa.String(64), nullable=False),
        sa.Column("theme_base", sa.String(THEME_MAX_CHARS), nullable=False),
        sa.Column("items", sa.BigInteger, nullable=False),
        sa.Column("newest", sa.String(140), nullable=False),
        sa.PrimaryKeyConstraint("day", "issue", "theme_base", name="pk_issue_theme_daily"),
    )
    for fill in FILLS:
        op.execute(fill)


def downgrade() -> None:
    op.drop_table("issue_theme_daily")
    op.drop_table("issue_category_daily")
    op.drop_table("issue_daily")

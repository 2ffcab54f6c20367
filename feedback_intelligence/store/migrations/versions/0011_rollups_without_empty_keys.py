"""The rollups keep no key that no item holds (ADR 0039): the rows of 0 that writes before this revision
left behind are deleted. Such a row named what its last item had (a day, a category, a theme in base
form: words of the customer's), after the item itself was corrected away or erased.

From this revision on every write deletes a key it takes to 0 in its own transaction (store/rollups.py).
Nothing to undo: a row of 0 counted nothing.

Revision ID: 0011
Revises: 0010
"""

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

ROLLUPS = ("feedback_daily", "theme_daily", "feedback_hourly")


def upgrade() -> None:
    for table in ROLLUPS:
        op.execute(f"DELETE FROM {table} WHERE items = 0")


def downgrade() -> None:
    pass

"""The outbox also carries the day's digest (ADR 0057): a row's ``feedback_id`` is an item's id or a digest's
(``digest-2026-12-05``), so it no longer references ``feedback.id``. Erasure still deletes an item's rows
(store/outbox.py ``delete_item``), which is what the foreign key never did by itself.

Revision ID: 0013
Revises: 0012
"""

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

# SQLite's copy of the table names its foreign key nowhere: batch mode finds it by this convention.
SQLITE_NAMES = {"fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s"}


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint("outbox_feedback_id_fkey", "outbox", type_="foreignkey")
        return
    with op.batch_alter_table("outbox", naming_convention=SQLITE_NAMES, recreate="always") as batch:
        batch.drop_constraint("fk_outbox_feedback_id_feedback", type_="foreignkey")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.create_foreign_key("outbox_feedback_id_fkey", "outbox", "feedback", ["feedback_id"], ["id"])
        return
    with op.batch_alter_table("outbox", recreate="always") as batch:
        batch.create_foreign_key("fk_outbox_feedback_id_feedback", "feedback", ["feedback_id"], ["id"])

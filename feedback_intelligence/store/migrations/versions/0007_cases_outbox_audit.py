"""Cases, their notes, the notification outbox and the audit log (issue 27; ADR 0024, docs/data-model.md).

Revision ID: 0007
Revises: 0004 (0005 and 0006 land first on main; the lead rewrites ``down_revision`` at merge)
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0004"
branch_labels = None
depends_on = None

SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "audit_log",
        sa.Column("id", SERIAL, primary_key=True, autoincrement=True),
        sa.Column("at", sa.String(33), nullable=False),
        sa.Column("change_id", sa.String(32), nullable=False),
        sa.Column("actor_kind", sa.String(12), nullable=False),
        sa.Column("actor_id", sa.String(64), nullable=True),
        sa.Column("actor_name", sa.String(100), nullable=True),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("feedback_id", sa.String(100), nullable=True),
        sa.Column("field", sa.String(32), nullable=True),
        sa.Column("old_value", sa.Text, nullable=True),
        sa.Column("new_value", sa.Text, nullable=True),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("redacted", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_index("ix_audit_log_feedback_at", "audit_log", ["feedback_id", "at"])
    op.create_index("ix_audit_log_at", "audit_log", ["at"])


def downgrade() -> None:
    op.drop_index("ix_audit_log_at", table_name="audit_log")
    op.drop_index("ix_audit_log_feedback_at", table_name="audit_log")
    op.drop_table("audit_log")

"""Cases, their notes, the notification outbox and the audit log (ADR 0024, ADR 0029, docs/data-model.md).

Revision ID: 0007
Revises: 0005 (the manager's report brought no migration of its own: the revision 0006 of the plan is unused)
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0005"
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
    op.create_table(
        "outbox",
        sa.Column("id", SERIAL, primary_key=True, autoincrement=True),
        sa.Column("feedback_id", sa.String(100), sa.ForeignKey("feedback.id"), nullable=False),
        sa.Column("event", sa.String(16), nullable=False),
        sa.Column("route", sa.String(64), nullable=False),
        sa.Column("dedupe_key", sa.String(240), nullable=False, unique=True),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("next_attempt_at_ms", sa.BigInteger, nullable=False),
        sa.Column("lease_owner", sa.String(64), nullable=True),
        sa.Column("lease_until_ms", sa.BigInteger, nullable=True),
        sa.Column("created_at", sa.String(33), nullable=False),
        sa.Column("delivered_at", sa.String(33), nullable=True),
        sa.Column("last_error", sa.String(300), nullable=True),
    )
    op.create_index("ix_outbox_state_next", "outbox", ["state", "next_attempt_at_ms"])
    op.create_table(
        "cases",
        sa.Column("feedback_id", sa.String(100), sa.ForeignKey("feedback.id"), primary_key=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("opened_at", sa.String(33), nullable=False),
        sa.Column("acknowledged_at", sa.String(33), nullable=True),
        sa.Column("closed_at", sa.String(33), nullable=True),
        sa.Column("dismiss_reason", sa.Text, nullable=True),
        sa.Column("escalated_at", sa.String(33), nullable=True),
        sa.Column("owner_kind", sa.String(8), nullable=True),
        sa.Column("owner_id", sa.String(64), nullable=True),
        sa.Column("owner_name", sa.String(100), nullable=True),
        sa.Column("revision", sa.Integer, nullable=False, server_default=sa.text("1")),
        sa.Column("updated_at", sa.String(33), nullable=False),
    )
    op.create_index("ix_cases_state_opened", "cases", ["state", "opened_at"])
    op.create_table(
        "case_notes",
        sa.Column("id", SERIAL, primary_key=True, autoincrement=True),
        sa.Column("feedback_id", sa.String(100), sa.ForeignKey("cases.feedback_id"), nullable=False),
        sa.Column("at", sa.String(33), nullable=False),
        sa.Column("author_kind", sa.String(8), nullable=True),
        sa.Column("author_id", sa.String(64), nullable=True),
        sa.Column("author_name", sa.String(100), nullable=True),
        sa.Column("text", sa.Text, nullable=False),
    )
    op.create_index("ix_case_notes_feedback_at", "case_notes", ["feedback_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_case_notes_feedback_at", table_name="case_notes")
    op.drop_table("case_notes")
    op.drop_index("ix_cases_state_opened", table_name="cases")
    op.drop_table("cases")
    op.drop_index("ix_outbox_state_next", table_name="outbox")
    op.drop_table("outbox")
    op.drop_index("ix_audit_log_at", table_name="audit_log")
    op.drop_index("ix_audit_log_feedback_at", table_name="audit_log")
    op.drop_table("audit_log")

"""A case counts the reports of its incident (ADR 0060): ``reports``, its own item and the items of the same
store and alert category that joined it within ``FI_CASE_INCIDENT_WINDOW_H``; 1 for every case before. And a
partial index of the audit log's ``case.report`` rows by the report's id: which case a report joined.

Revision ID: 0017
Revises: 0016
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

REPORTS = "action = 'case.report'"


def upgrade() -> None:
    with op.batch_alter_table("cases") as batch:
        batch.add_column(sa.Column("reports", sa.Integer(), nullable=False, server_default=sa.text("1")))
    op.create_index(
        "ix_audit_log_reports",
        "audit_log",
        ["new_value"],
        sqlite_where=sa.text(REPORTS),
        postgresql_where=sa.text(REPORTS),
    )


def downgrade() -> None:
    op.drop_index("ix_audit_log_reports", table_name="audit_log")
    with op.batch_alter_table("cases") as batch:
        batch.drop_column("reports")

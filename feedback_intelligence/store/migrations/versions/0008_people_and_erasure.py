"""People and permissions, correct and erase (ADR 0024 sections 6-7, ADR 0030).

Accounts, role grants and sessions (used in the live database only), the erasure tombstones, and the
item's revision (If-Match) and last-write time.

Revision ID: 0008
Revises: 0007 (the audit log, from feat-alerts; the lead rewrites down_revision at merge)
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("feedback") as batch:
        batch.add_column(sa.Column("revision", sa.Integer(), nullable=False, server_default=sa.text("1")))
        batch.add_column(sa.Column("updated_at", sa.String(33), nullable=True))
    op.create_table(
        "erased_items",
        sa.Column("feedback_id", sa.String(100), primary_key=True),
        sa.Column("erased_at", sa.String(33), nullable=False),
        sa.Column("store", sa.String(32), nullable=True),
    )
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("username", sa.String(100), nullable=False, unique=True),
        sa.Column("display_name", sa.String(200), nullable=False),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("password_hash", sa.String(200), nullable=True),
        sa.Column("auth_source", sa.String(8), nullable=False),
        sa.Column("subject", sa.String(255), nullable=True),
        sa.Column("created_at", sa.String(33), nullable=False),
        sa.Column("updated_at", sa.String(33), nullable=False),
        sa.Column("last_signin_at", sa.String(33), nullable=True),
        sa.Column("disabled_at", sa.String(33), nullable=True),
        sa.UniqueConstraint("auth_source", "subject", name="uq_accounts_source_subject"),
    )
    op.create_table(
        "role_grants",
        sa.Column("account_id", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("store", sa.String(32), nullable=False),
        sa.Column("origin", sa.String(8), nullable=False),
        sa.PrimaryKeyConstraint("account_id", "role", "store", name="pk_role_grants"),
    )
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("last_seen_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("expires_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("revoked_at_ms", sa.BigInteger(), nullable=True),
    )
    op.create_index("ix_sessions_account_id", "sessions", ["account_id"])
    op.create_index("ix_sessions_expires_at_ms", "sessions", ["expires_at_ms"])


def downgrade() -> None:
    op.drop_index("ix_sessions_expires_at_ms", "sessions")
    op.drop_index("ix_sessions_account_id", "sessions")
    op.drop_table("sessions")
    op.drop_table("role_grants")
    op.drop_table("accounts")
    op.drop_table("erased_items")
    with op.batch_alter_table("feedback") as batch:
        batch.drop_column("updated_at")
        batch.drop_column("revision")

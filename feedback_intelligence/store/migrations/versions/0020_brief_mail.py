"""The brief by mail (ADR 0062): a person's language (null: the domain's) and their opt-in to the brief
by mail (``brief_mail``: null = none, ``weekly`` on Mondays, ``daily``). The address is ``email``, there
since the people tables (the first SSO sign-in fills it; a local account's is set by its person or an operator).

Revision ID: 0020
Revises: 0019
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("language", sa.String(8), nullable=True))
        batch.add_column(sa.Column("brief_mail", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("brief_mail")
        batch.drop_column("language")

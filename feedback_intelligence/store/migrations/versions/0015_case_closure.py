"""A handled case keeps why it happened and what was done (ADR 0058): ``root_cause`` (a key of the domain's
``caseRootCauses``), ``root_cause_text`` (the manager's words about it) and ``resolution``.

Revision ID: 0015
Revises: 0014
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

COLUMNS = (
    ("root_cause", sa.String(40)),
    ("root_cause_text", sa.Text()),
    ("resolution", sa.Text()),
)


def upgrade() -> None:
    with op.batch_alter_table("cases") as batch:
        for name, kind in COLUMNS:
            batch.add_column(sa.Column(name, kind, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("cases") as batch:
        for name, _ in reversed(COLUMNS):
            batch.drop_column(name)

"""Quality from the field (ADR 0065): which backend and model proposed the structure a person saved
(``proposal_backend``, ``proposal_model``), and the rollup of saved proposals and corrected fields per UTC
day, store, backend and model (``correction_daily``).

Rows before this revision did not record who proposed: a desk entry a person saved from an interpretation
(a structure, no failed model, not waiting for the worker) is marked ``unknown``/``unknown``; the rollup is
filled from the rows, as ``feedctl rollups rebuild`` refills it.

Revision ID: 0021
Revises: 0020
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

#: The corrected fields as of this revision (domain SCHEMA_FIELDS and OPTIONAL_FIELDS; frozen here).
FIELDS = ("category", "theme", "severity", "type", "language", "sentiment")
KEYS = "substr(timestamp, 1, 10), coalesce(store, ''), proposal_backend, coalesce(proposal_model, '')"


def upgrade() -> None:
    with op.batch_alter_table("feedback") as batch:
        batch.add_column(sa.Column("proposal_backend", sa.String(64), nullable=True))
        batch.add_column(sa.Column("proposal_model", sa.String(100), nullable=True))
    op.create_table(
        "correction_daily",
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("store", sa.String(32), nullable=False),
        sa.Column("backend", sa.String(64), nullable=False),
        sa.Column("model", sa.String(100), nullable=False),
        sa.Column("field", sa.String(16), nullable=False),
        sa.Column("items", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("day", "store", "backend", "model", "field", name="pk_correction_daily"),
    )
    op.execute(
        "UPDATE feedback SET proposal_backend = 'unknown', proposal_model = 'unknown' "
        "WHERE source = 'desk' AND structure_json IS NOT NULL AND model_failed = false AND structure_due = false"
    )
    op.execute(
        f"INSERT INTO correction_daily (day, store, backend, model, field, items) "
        f"SELECT {KEYS}, '', count(*) FROM feedback WHERE proposal_backend IS NOT NULL GROUP BY {KEYS}"
    )
    for name in FIELDS:
        op.execute(
            f"INSERT INTO correction_daily (day, store, backend, model, field, items) "
            f"SELECT {KEYS}, '{name}', count(*) FROM feedback "
            f"WHERE proposal_backend IS NOT NULL AND corrected_fields LIKE '%,{name},%' GROUP BY {KEYS}"
        )


def downgrade() -> None:
    op.drop_table("correction_daily")
    with op.batch_alter_table("feedback") as batch:
        batch.drop_column("proposal_model")
        batch.drop_column("proposal_backend")

"""Table definitions (SQLAlchemy Core). The migrations under ``migrations/`` create exactly these."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    false,
    text,
)

#: A serial primary key: BigInteger, but Integer on SQLite so that it is ``INTEGER PRIMARY KEY`` (autoincrements).
Serial = BigInteger().with_variant(Integer(), "sqlite")

metadata = MetaData()

feedback = Table(
    "feedback",
    metadata,
    Column("id", String(100), primary_key=True),
    Column("source", String(64), nullable=False),
    Column("text", Text, nullable=False),  # raw, always preserved
    # Normalised UTC in one fixed-width form, so string order is instant order (see deterministic.timestamps).
    Column("timestamp", String(33), nullable=False),
    Column("created_at", String(33), nullable=False),
    Column("structure_json", Text, nullable=True),
    Column("structure_failed", Boolean, nullable=False, server_default=false()),
    Column("model_failed", Boolean, nullable=False, server_default=false()),
    Column("salvage_notes_json", Text, nullable=False, server_default=text("'[]'")),
    Column("alerts_json", Text, nullable=False, server_default=text("'[]'")),
    Column("corrections_json", Text, nullable=True),
    Column("needs_review", Boolean, nullable=False, server_default=false()),
    Column("review_flags_json", Text, nullable=False, server_default=text("'[]'")),
    # The structuring worker's queue lives in the row itself (services/structuring_worker.py): a row
    # is due until a worker has structured it; a claim is a lease (owner token + expiry, epoch ms)
    # that lapses when the replica holding it dies, so another replica takes the work over.
    Column("structure_due", Boolean, nullable=False, server_default=false()),
    Column("structure_attempts", Integer, nullable=False, server_default=text("0")),
    # How often a waiting visitor preempted the row's call (not an attempt: aging, docs/adr/0017).
    Column("structure_preemptions", Integer, nullable=False, server_default=text("0")),
    Column("lease_owner", String(64), nullable=True),
    Column("lease_until_ms", BigInteger, nullable=True),
    # The shop the item belongs to (FI_STORES / FI_STORE_PATTERN); null = no store (docs/data-model.md).
    Column("store", String(32), nullable=True),
    Index("ix_feedback_timestamp", "timestamp"),
    Index("ix_feedback_store_timestamp", "store", "timestamp"),
    Index("ix_feedback_structure_due", "structure_due", "created_at"),
)

# Small named counters that must survive a restart, e.g. the channel's change version.
counters = Table(
    "counters",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("value", BigInteger, nullable=False, server_default=text("0")),
)

# Who changed what, when (docs/data-model.md, ADR 0024 section 8): appended in the change's own
# transaction by store/audit.py; the item's erasure redacting its rows is the only update.
audit_log = Table(
    "audit_log",
    metadata,
    Column("id", Serial, primary_key=True, autoincrement=True),
    Column("at", String(33), nullable=False),
    Column("change_id", String(32), nullable=False),
    Column("actor_kind", String(12), nullable=False),
    Column("actor_id", String(64), nullable=True),
    Column("actor_name", String(100), nullable=True),
    Column("action", String(40), nullable=False),
    Column("feedback_id", String(100), nullable=True),
    Column("field", String(32), nullable=True),
    Column("old_value", Text, nullable=True),
    Column("new_value", Text, nullable=True),
    Column("reason", Text, nullable=True),
    Column("redacted", Boolean, nullable=False, server_default=false()),
    Index("ix_audit_log_feedback_at", "feedback_id", "at"),
    Index("ix_audit_log_at", "at"),
)

# One row per (item, notify route, event), written in the item's save transaction (ADR 0024 section 4,
# store/outbox.py). No payload: the message is rendered from the item at delivery.
outbox = Table(
    "outbox",
    metadata,
    Column("id", Serial, primary_key=True, autoincrement=True),
    Column("feedback_id", String(100), ForeignKey("feedback.id"), nullable=False),
    Column("event", String(16), nullable=False),
    Column("route", String(64), nullable=False),
    Column("dedupe_key", String(240), nullable=False, unique=True),
    Column("state", String(12), nullable=False),
    Column("attempts", Integer, nullable=False, server_default=text("0")),
    Column("next_attempt_at_ms", BigInteger, nullable=False),
    Column("lease_owner", String(64), nullable=True),
    Column("lease_until_ms", BigInteger, nullable=True),
    Column("created_at", String(33), nullable=False),
    Column("delivered_at", String(33), nullable=True),
    Column("last_error", String(300), nullable=True),
    Index("ix_outbox_state_next", "state", "next_attempt_at_ms"),
)

# One case per alert item (ADR 0024 section 5, store/cases.py); severity, store and text are the item's.
cases = Table(
    "cases",
    metadata,
    Column("feedback_id", String(100), ForeignKey("feedback.id"), primary_key=True),
    Column("state", String(16), nullable=False),
    Column("opened_at", String(33), nullable=False),
    Column("acknowledged_at", String(33), nullable=True),
    Column("closed_at", String(33), nullable=True),
    Column("dismiss_reason", Text, nullable=True),
    Column("escalated_at", String(33), nullable=True),
    Column("owner_kind", String(8), nullable=True),
    Column("owner_id", String(64), nullable=True),
    Column("owner_name", String(100), nullable=True),
    Column("revision", Integer, nullable=False, server_default=text("1")),
    Column("updated_at", String(33), nullable=False),
    Index("ix_cases_state_opened", "state", "opened_at"),
)

case_notes = Table(
    "case_notes",
    metadata,
    Column("id", Serial, primary_key=True, autoincrement=True),
    Column("feedback_id", String(100), ForeignKey("cases.feedback_id"), nullable=False),
    Column("at", String(33), nullable=False),
    Column("author_kind", String(8), nullable=True),
    Column("author_id", String(64), nullable=True),
    Column("author_name", String(100), nullable=True),
    Column("text", Text, nullable=False),
    Index("ix_case_notes_feedback_at", "feedback_id", "at"),
)

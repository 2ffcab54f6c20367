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
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
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
    # +1 on every write of the row after the insert (worker, restructure, correction): If-Match (0008)
    Column("revision", Integer, nullable=False, server_default=text("1")),
    Column("updated_at", String(33), nullable=True),
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

# ── Issue 28 (0008): tombstones, and the people (read and written in the live database only) ──────

# An erased item leaves only this: no text, no derived field, no author (docs/data-model.md).
erased_items = Table(
    "erased_items",
    metadata,
    Column("feedback_id", String(100), primary_key=True),
    Column("erased_at", String(33), nullable=False),
    Column("store", String(32), nullable=True),
)

accounts = Table(
    "accounts",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("username", String(100), nullable=False, unique=True),  # case-folded
    Column("display_name", String(200), nullable=False),
    Column("email", String(254), nullable=True),
    Column("password_hash", String(200), nullable=True),  # Argon2 (local); null for SSO
    Column("auth_source", String(8), nullable=False),  # local | oidc | proxy
    Column("subject", String(255), nullable=True),  # OIDC iss+sub, or the proxy's user
    Column("created_at", String(33), nullable=False),
    Column("updated_at", String(33), nullable=False),
    Column("last_signin_at", String(33), nullable=True),
    Column("disabled_at", String(33), nullable=True),
    UniqueConstraint("auth_source", "subject", name="uq_accounts_source_subject"),
)

role_grants = Table(
    "role_grants",
    metadata,
    Column("account_id", String(32), ForeignKey("accounts.id"), nullable=False),
    Column("role", String(16), nullable=False),  # clerk | manager | operator
    Column("store", String(32), nullable=False),  # a store id, or * = the chain
    Column("origin", String(8), nullable=False),  # manual | claims
    PrimaryKeyConstraint("account_id", "role", "store", name="pk_role_grants"),
)

sessions = Table(
    "sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),  # SHA-256 of the cookie's token, never the token
    Column("account_id", String(32), ForeignKey("accounts.id"), nullable=False),
    Column("created_at_ms", BigInteger, nullable=False),
    Column("last_seen_at_ms", BigInteger, nullable=False),
    Column("expires_at_ms", BigInteger, nullable=False),
    Column("revoked_at_ms", BigInteger, nullable=True),
    Index("ix_sessions_account_id", "account_id"),
    Index("ix_sessions_expires_at_ms", "expires_at_ms"),
)

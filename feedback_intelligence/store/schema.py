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
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    text,
)

from feedback_intelligence.text.bounds import THEME_MAX_CHARS

#: A serial primary key: BigInteger, but Integer on SQLite so that it is ``INTEGER PRIMARY KEY`` (autoincrements).
Serial = BigInteger().with_variant(Integer(), "sqlite")

metadata = MetaData()

#: The columns the report's count statements group by: the key of the daily rollup (0010).
COUNT_KEY = ("category", "severity", "severity_rank", "sentiment", "rated", "alert", "needs_review", "structure_failed")
#: The columns the report's count and theme statements read, carried by the timestamp index (0010).
COVERED = (*COUNT_KEY, "theme_base", "id", "issue", "store")  # the issue view's counts too (0023)

feedback = Table(
    "feedback",
    metadata,
    Column("id", String(100), primary_key=True),
    Column("source", String(64), nullable=False),
    Column("text", Text, nullable=False),  # raw, always preserved
    # Normalised UTC in one fixed-width form, so string order is instant order (see instants.timestamps).
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
    # The structuring worker's queue lives in the row itself (workers/structuring_worker.py): a row
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
    # Derived columns (0005): written by derivation.derive in the transaction of every write of the
    # record, never by hand; what the report groups and filters on (docs/adr/0024, sections 2–3).
    Column("category", String(64), nullable=True),
    # The problem the item reports, across departments (0016; deterministic/issue.py, ADR 0055).
    Column("issue", String(64), nullable=True),
    Column("severity", String(64), nullable=True),
    Column("type", String(64), nullable=True),
    Column("sentiment", String(64), nullable=True),
    Column("language", String(35), nullable=True),
    Column("severity_rank", SmallInteger, nullable=True),
    Column("rated", Boolean, nullable=False, server_default=false()),
    Column("theme_base", String(THEME_MAX_CHARS), nullable=True),
    Column("alert", Boolean, nullable=False, server_default=false()),
    Column("text_folded", Text, nullable=True),
    Column("corrected_fields", String(200), nullable=True),
    Column("derived_rev", String(32), nullable=True),
    # +1 on every write of the row after the insert (worker, restructure, correction): If-Match (0008)
    Column("revision", Integer, nullable=False, server_default=text("1")),
    Column("updated_at", String(33), nullable=True),
    # Who wrote it (0009): "account:<id>", or "visitor:<16 hex>" without accounts; null before 0009.
    Column("author", String(64), nullable=True),
    # The report's model alert screen of a keyword-silent item, done once (0009): "yes" / "no" / null.
    Column("screen_verdict", String(8), nullable=True),
    Column("screen_reason", Text, nullable=True),
    Column("screened_at", String(33), nullable=True),
    # Where a rule disagrees with a person's structure (0012; records.RuleAdvice, ADR 0045): a JSON list,
    # null when none does.
    Column("rule_advice_json", Text, nullable=True),
    # Which backend and model proposed the structure a person saved (0021, ADR 0065): set by a save that
    # carries a proposal (the desk's after an interpretation), "unknown" for such rows before 0021; null
    # for rows no person saved from a proposal. A model-made structure clears them.
    Column("proposal_backend", String(64), nullable=True),
    Column("proposal_model", String(100), nullable=True),
    # PostgreSQL: covering (0010), so the report's counts over a window's edges are index-only scans
    Index("ix_feedback_timestamp", "timestamp", postgresql_include=list(COVERED)),
    Index("ix_feedback_store_timestamp", "store", "timestamp"),
    Index("ix_feedback_structure_due", "structure_due", "created_at"),
    Index("ix_feedback_category_timestamp", "category", "timestamp"),
    Index("ix_feedback_issue_timestamp", "issue", "timestamp"),
    Index("ix_feedback_category_rank_timestamp", "category", "severity_rank", "timestamp"),
    Index("ix_feedback_alert_timestamp", "alert", "timestamp"),
    Index("ix_feedback_author_timestamp", "author", "timestamp"),
    # the few rows a rule disagrees with (0014): the manager's list and the report's count of them
    Index(
        "ix_feedback_advised_timestamp",
        "timestamp",
        sqlite_where=text("rule_advice_json IS NOT NULL"),
        postgresql_where=text("rule_advice_json IS NOT NULL"),
    ),
    # PostgreSQL: the manager's search (``q``, each word a substring of the folded text) read from a trigram
    # index instead of the window's rows (0018, ADR 0066); SQLite's is an FTS5 table beside this one, made by
    # migration 0022 and not declared here (store/search.py, ADR 0070)
    Index(
        "ix_feedback_text_folded_trgm",
        "text_folded",
        postgresql_using="gin",
        postgresql_ops={"text_folded": "gin_trgm_ops"},
    ).ddl_if(dialect="postgresql"),
)

# One row per alert hit of an item, with the words it matched (0005); rewritten with alerts_json.
feedback_alerts = Table(
    "feedback_alerts",
    metadata,
    Column("feedback_id", String(100), ForeignKey("feedback.id"), primary_key=True),
    Column("seq", SmallInteger, primary_key=True),
    Column("category", String(64), nullable=False),
    Column("pattern", Text, nullable=False),
    Column("words_json", Text, nullable=False),
    Index("ix_feedback_alerts_category_feedback", "category", "feedback_id"),
)


# The report's rollups of the chain per UTC bucket (0010, store/rollups.py, ADR 0033): the derived
# columns the deterministic answer groups by, '' for none so the key has no nulls, severity_rank 0 for
# none (as the answer reads it). Adjusted in the transaction of every write of `feedback`; a key no item
# holds any longer has no row (its theme, day and category leave with its last item).
def _count_rollup(name: str, bucket: Column[str]) -> Table:
    """A rollup of the count statement's key per UTC ``bucket`` (its first column and key part)."""
    return Table(
        name,
        metadata,
        bucket,
        Column("category", String(64), nullable=False),
        Column("severity", String(64), nullable=False),
        Column("severity_rank", SmallInteger, nullable=False),
        Column("sentiment", String(64), nullable=False),
        Column("rated", Boolean, nullable=False),
        Column("alert", Boolean, nullable=False),
        Column("needs_review", Boolean, nullable=False),
        Column("structure_failed", Boolean, nullable=False),
        Column("items", BigInteger, nullable=False),
        PrimaryKeyConstraint(bucket.name, *COUNT_KEY, name=f"pk_{name}"),
    )


# substr(timestamp, 1, 10): the UTC date
feedback_daily = _count_rollup("feedback_daily", Column("day", String(10), nullable=False))
# Its grain of a UTC month, substr(timestamp, 1, 7) (0026, ADR 0087): the whole months of a long window, where
# a year of days was ~120,000 rows of a chain to sum.
feedback_monthly = _count_rollup("feedback_monthly", Column("month", String(7), nullable=False))

# Items per UTC day, category and shown theme (0010), with the newest "timestamp id" of the key: the
# leading themes' tie rule. Only rows with a category and a theme (what the theme counts read).
theme_daily = Table(
    "theme_daily",
    metadata,
    Column("day", String(10), nullable=False),
    Column("category", String(64), nullable=False),
    Column("theme_base", String(THEME_MAX_CHARS), nullable=False),
    Column("items", BigInteger, nullable=False),
    Column("newest", String(140), nullable=False),  # max(timestamp || ' ' || id)
    PrimaryKeyConstraint("day", "category", "theme_base", name="pk_theme_daily"),
)

# Items per UTC hour, category and operational alert (0010): the series (report/series.py).
feedback_hourly = Table(
    "feedback_hourly",
    metadata,
    Column("hour", String(13), nullable=False),  # substr(timestamp, 1, 13)
    Column("category", String(64), nullable=False),
    Column("alert", Boolean, nullable=False),
    Column("items", BigInteger, nullable=False),
    PrimaryKeyConstraint("hour", "category", "alert", name="pk_feedback_hourly"),
)

# Items per UTC day, category ('' for none) and operational alert (0025, ADR 0085): the day's grain of
# feedback_hourly, for a series whose buckets hold whole days.
series_daily = Table(
    "series_daily",
    metadata,
    Column("day", String(10), nullable=False),
    Column("category", String(64), nullable=False),
    Column("alert", Boolean, nullable=False),
    Column("items", BigInteger, nullable=False),
    PrimaryKeyConstraint("day", "category", "alert", name="pk_series_daily"),
)


# The issue view's rollups per UTC day (0024, ADR 0079), one a facet so that none multiplies another's keys:
# items and their severity ranks by issue and store ('' for none), items by issue and category (rows with
# a category), items by issue and shown theme with the newest "timestamp id" (rows with a theme). Only rows
# with an issue, as the issue statements read.
def _issue_rollup(name: str, bucket: Column[str]) -> Table:
    """Items and their severity ranks by issue and store ('' for none) per UTC ``bucket``."""
    return Table(
        name,
        metadata,
        bucket,
        Column("issue", String(64), nullable=False),
        Column("store", String(32), nullable=False),
        Column("items", BigInteger, nullable=False),
        Column("ranks", BigInteger, nullable=False),  # sum of severity_rank
        PrimaryKeyConstraint(bucket.name, "issue", "store", name=f"pk_{name}"),
    )


issue_daily = _issue_rollup("issue_daily", Column("day", String(10), nullable=False))
# Its grain of a UTC month (0026, ADR 0087).
issue_monthly = _issue_rollup("issue_monthly", Column("month", String(7), nullable=False))

issue_category_daily = Table(
    "issue_category_daily",
    metadata,
    Column("day", String(10), nullable=False),
    Column("issue", String(64), nullable=False),
    Column("category", String(64), nullable=False),
    Column("items", BigInteger, nullable=False),
    PrimaryKeyConstraint("day", "issue", "category", name="pk_issue_category_daily"),
)

issue_theme_daily = Table(
    "issue_theme_daily",
    metadata,
    Column("day", String(10), nullable=False),
    Column("issue", String(64), nullable=False),
    Column("theme_base", String(THEME_MAX_CHARS), nullable=False),
    Column("items", BigInteger, nullable=False),
    Column("newest", String(140), nullable=False),  # max(timestamp || ' ' || id)
    PrimaryKeyConstraint("day", "issue", "theme_base", name="pk_issue_theme_daily"),
)

# Saved proposals and the fields people corrected in them per UTC day, store, backend and model (0021,
# store/rollups.py, ADR 0065): ``field`` '' counts the saved proposals, a field's name those in which that
# field was corrected. Kept with the report's rollups in the transaction of every write of ``feedback``.
correction_daily = Table(
    "correction_daily",
    metadata,
    Column("day", String(10), nullable=False),
    Column("store", String(32), nullable=False),  # '' for none
    Column("backend", String(64), nullable=False),
    Column("model", String(100), nullable=False),
    Column("field", String(16), nullable=False),
    Column("items", BigInteger, nullable=False),
    PrimaryKeyConstraint("day", "store", "backend", "model", "field", name="pk_correction_daily"),
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
    # which case a report joined (ADR 0060): its item's id is the case.report row's new value (0017)
    Index(
        "ix_audit_log_reports",
        "new_value",
        sqlite_where=text("action = 'case.report'"),
        postgresql_where=text("action = 'case.report'"),
    ),
)

# One row per (item, notify route, event), written in the item's save transaction (ADR 0024 section 4,
# store/outbox.py). No payload: the message is rendered from the item at delivery.
outbox = Table(
    "outbox",
    metadata,
    Column("id", Serial, primary_key=True, autoincrement=True),
    # an item's id, or a day's digest (``digest-2026-12-05``, workers/alert_digest.py): no foreign key (0013)
    Column("feedback_id", String(100), nullable=False),
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
    Column("root_cause", String(40), nullable=True),
    Column("root_cause_text", Text, nullable=True),
    Column("resolution", Text, nullable=True),
    Column("revision", Integer, nullable=False, server_default=text("1")),
    Column("updated_at", String(33), nullable=False),
    # how many items report the case's incident: its own and those that joined it (0017, ADR 0060)
    Column("reports", Integer, nullable=False, server_default=text("1")),
    # when its overdue escalation to the store's managers was enqueued (0019, ADR 0061); once per case
    Column("overdue_at", String(33), nullable=True),
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

# ── People and erasure (0008): tombstones, and the people (read and written in the live database only) ──────

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
    Column("language", String(8), nullable=True),  # the person's language (fi, en); null: the domain's
    Column("brief_mail", String(8), nullable=True),  # the brief by mail: null = none, weekly, daily (ADR 0062)
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

"""The manager's search counts on a narrow copy, and the issue view reads the timestamp index alone (ADR 0076).

The copy: on PostgreSQL, ``feedback_search_rows`` holds each
item's id, instant, store and folded text, and nothing else, kept in step with ``feedback`` by a trigger in
the writing transaction, with its own trigram index. The exact count of a search that filters only by window,
store and words reads this table (about a third of ``feedback``'s pages) instead of the wide rows; the
``LIKE`` that decides is the same (store/search.py). SQLite gets nothing: its FTS5 index (0022) narrows.

Where ``pg_trgm`` is missing (0018 logged ``search index skipped``), the table and its trigger are still
made, only its trigram index is not: the count then scans the narrow table, still exact.

The issue view (ADR 0055) counts on the rows, by issue, store, category and theme: the covering
``ix_feedback_timestamp`` (0010) now carries ``issue`` and ``store`` too, so those counts over a window are
index-only scans of the window's entries instead of a fetch of each row (built again here: PostgreSQL
cannot add columns to an index).

Revision ID: 0023
Revises: 0022
"""

from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

#: Frozen here as of this revision; store/search_rows.py names the same table for the count.
CREATE = (
    """CREATE TABLE feedback_search_rows (
        id VARCHAR(100) PRIMARY KEY,
        "timestamp" VARCHAR(33) NOT NULL,
        store VARCHAR(32),
        text_folded TEXT
    )""",
    # one function for the three triggers: an erasure's delete takes the copy with it
    """CREATE FUNCTION feedback_search_rows_sync() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO feedback_search_rows (id, "timestamp", store, text_folded)
            VALUES (NEW.id, NEW."timestamp", NEW.store, NEW.text_folded);
        ELSIF TG_OP = 'UPDATE' THEN
            UPDATE feedback_search_rows
            SET id = NEW.id, "timestamp" = NEW."timestamp", store = NEW.store, text_folded = NEW.text_folded
            WHERE id = OLD.id;
        ELSE
            DELETE FROM feedback_search_rows WHERE id = OLD.id;
        END IF;
        RETURN NULL;
    END $$""",
    """CREATE TRIGGER feedback_search_rows_insert AFTER INSERT ON feedback
    FOR EACH ROW EXECUTE FUNCTION feedback_search_rows_sync()""",
    # every derived write sets text_folded again: only a change of a copied column touches the copy
    """CREATE TRIGGER feedback_search_rows_update AFTER UPDATE OF id, "timestamp", store, text_folded ON feedback
    FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD."timestamp" IS DISTINCT FROM NEW."timestamp"
        OR OLD.store IS DISTINCT FROM NEW.store OR OLD.text_folded IS DISTINCT FROM NEW.text_folded)
    EXECUTE FUNCTION feedback_search_rows_sync()""",
    """CREATE TRIGGER feedback_search_rows_delete AFTER DELETE ON feedback
    FOR EACH ROW EXECUTE FUNCTION feedback_search_rows_sync()""",
    """INSERT INTO feedback_search_rows (id, "timestamp", store, text_folded)
    SELECT id, "timestamp", store, text_folded FROM feedback""",
    # a window's or a store's search: its rows by index, ANDed with the word's hits (a chain's word is in
    # items of every year: without the first, a 30-day count read all of them to keep the window's)
    'CREATE INDEX ix_feedback_search_rows_timestamp ON feedback_search_rows ("timestamp")',
    'CREATE INDEX ix_feedback_search_rows_store_timestamp ON feedback_search_rows (store, "timestamp")',
)
TRIGRAM_INDEX = "CREATE INDEX ix_feedback_search_rows_trgm ON feedback_search_rows USING gin (text_folded gin_trgm_ops)"
#: 0010's covered columns, and what this revision adds (frozen here, as 0010 froze its own).
COVERED_BEFORE = [
    "category", "severity", "severity_rank", "sentiment", "rated", "alert", "needs_review", "structure_failed",
    "theme_base", "id",
]  # fmt: skip
COVERED = [*COVERED_BEFORE, "issue", "store"]
DROP = (
    "DROP TRIGGER IF EXISTS feedback_search_rows_delete ON feedback",
    "DROP TRIGGER IF EXISTS feedback_search_rows_update ON feedback",
    "DROP TRIGGER IF EXISTS feedback_search_rows_insert ON feedback",
    "DROP FUNCTION IF EXISTS feedback_search_rows_sync()",
    "DROP TABLE IF EXISTS feedback_search_rows",
)


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    for statement in CREATE:
        op.execute(statement)
    if bind.exec_driver_sql("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'").first() is not None:
        op.execute(TRIGRAM_INDEX)
    op.execute("ANALYZE feedback_search_rows")  # planned well from the first search, not after autovacuum's turn
    op.drop_index("ix_feedback_timestamp", table_name="feedback")
    op.create_index("ix_feedback_timestamp", "feedback", ["timestamp"], postgresql_include=COVERED)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for statement in DROP:
        op.execute(statement)
    op.drop_index("ix_feedback_timestamp", table_name="feedback")
    op.create_index("ix_feedback_timestamp", "feedback", ["timestamp"], postgresql_include=COVERED_BEFORE)

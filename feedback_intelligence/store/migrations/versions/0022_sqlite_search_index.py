"""The manager's search on SQLite read from an index (ADR 0070): an FTS5 table with the ``trigram`` tokenizer
over ``feedback.text_folded``, kept in step with the rows by triggers, filled here from the rows already
there. The search's ``LIKE`` stays and decides: the index only narrows the rows it is tried on, as the
trigram index of 0018 does on PostgreSQL, which needs nothing here.

- ``feedback_search_ids``: one row per item, its own ``INTEGER PRIMARY KEY`` as the index's rowid. The
  ``feedback`` table's rowid is not stable (its key is a string: ``VACUUM``, a ``.dump`` restore and
  Alembic's batch rebuild of the table may renumber it); this one is.
- ``feedback_search``: contentless (``content=''``): it keeps which items hold each trigram, no text and
  no positions (``detail='none'``). Nothing reads text back from it. Its per-row sizes stay (the default
  ``columnsize``): without them FTS5 refuses to scan the table, and a tool that reads every table fails.
- Three triggers on ``feedback``: insert, an update of ``id`` or ``text_folded``, delete (an erasure too).
  A migration that rebuilds ``feedback`` on SQLite (``batch_alter_table``) drops them with the old table
  and must create them again (``tests/store/test_search_index.py`` checks they are there at the head).

Revision ID: 0022
Revises: 0021
"""

from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

#: Frozen here as of this revision; store/search.py names the same tables for the queries.
CREATE = (
    "CREATE TABLE feedback_search_ids (docid INTEGER PRIMARY KEY, feedback_id VARCHAR(100) NOT NULL UNIQUE)",
    "CREATE VIRTUAL TABLE feedback_search USING fts5(text_folded, content='', detail='none', tokenize='trigram')",
    """CREATE TRIGGER feedback_search_insert AFTER INSERT ON feedback BEGIN
        INSERT INTO feedback_search_ids (feedback_id) VALUES (new.id);
        INSERT INTO feedback_search (rowid, text_folded)
            SELECT docid, new.text_folded FROM feedback_search_ids WHERE feedback_id = new.id;
    END""",
    # a contentless table forgets a row by being told the text it indexed: the old value, from the row
    """CREATE TRIGGER feedback_search_update AFTER UPDATE OF id, text_folded ON feedback
    WHEN old.id IS NOT new.id OR old.text_folded IS NOT new.text_folded BEGIN
        INSERT INTO feedback_search (feedback_search, rowid, text_folded)
            SELECT 'delete', docid, old.text_folded FROM feedback_search_ids WHERE feedback_id = old.id;
        UPDATE feedback_search_ids SET feedback_id = new.id WHERE feedback_id = old.id;
        INSERT INTO feedback_search (rowid, text_folded)
            SELECT docid, new.text_folded FROM feedback_search_ids WHERE feedback_id = new.id;
    END""",
    """CREATE TRIGGER feedback_search_delete AFTER DELETE ON feedback BEGIN
        INSERT INTO feedback_search (feedback_search, rowid, text_folded)
            SELECT 'delete', docid, old.text_folded FROM feedback_search_ids WHERE feedback_id = old.id;
        DELETE FROM feedback_search_ids WHERE feedback_id = old.id;
    END""",
)
BACKFILL = (
    "INSERT INTO feedback_search_ids (feedback_id) SELECT id FROM feedback",
    "INSERT INTO feedback_search (rowid, text_folded) "
    "SELECT i.docid, f.text_folded FROM feedback_search_ids i JOIN feedback f ON f.id = i.feedback_id",
)
DROP = (
    "DROP TRIGGER IF EXISTS feedback_search_delete",
    "DROP TRIGGER IF EXISTS feedback_search_update",
    "DROP TRIGGER IF EXISTS feedback_search_insert",
    "DROP TABLE IF EXISTS feedback_search",
    "DROP TABLE IF EXISTS feedback_search_ids",
)


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for statement in (*CREATE, *BACKFILL):
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for statement in DROP:
        op.execute(statement)

"""The exact count of a search on PostgreSQL, read from the narrow copy of migration 0023 (ADR 0076).

A word in a sixth of a chain's items matches about every page of ``feedback``: the trigram index finds the
rows at once, but the count must still read each one to recheck its ``LIKE`` and its window, and a
``feedback`` row is wide (the text twice, the structure, the alerts). ``feedback_search_rows`` holds only
id, instant, store and folded text, a trigger keeps it in step in the writing transaction, so the same
count reads about a third of the pages. The ``LIKE`` is store/search.py's, on the copy's column: the answer
is the one the wide rows give. Only a filter of window, store and words can be answered there; any other
field (a category, an alert, one added to ``ItemFilter`` later) counts on ``feedback``.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from sqlalchemy import column, func, select, table

from feedback_intelligence.store.aggregates import ItemFilter, where_clause
from feedback_intelligence.store.search import query_words

TABLE = "feedback_search_rows"
rows = table(TABLE, column("id"), column("timestamp"), column("store"), column("text_folded"))

#: Its trigram index, as migration 0023 builds it (the bench drops and builds it again around a fill).
INDEX = "ix_feedback_search_rows_trgm"
CREATE_INDEX = f"CREATE INDEX {INDEX} ON {TABLE} USING gin (text_folded gin_trgm_ops)"

#: What the copy can answer. ``channel`` is no column: the caller's choice of databases applies it.
FIELDS = frozenset({"from_", "to", "store", "q", "channel"})


#: ``work_mem`` of a search's count on PostgreSQL, for its transaction alone (``SET LOCAL``). A chain's common
#: word has over a million hits: at the default 4 MB their bitmap turned lossy and the count rechecked every
#: row of those pages (3.4 million for 8,709 answers, 1.6 s); with this, 0.37 s (bench/chain_years).
COUNT_WORK_MEM = "64MB"


def answers(flt: ItemFilter, dialect: str) -> bool:
    """May the copy count ``flt``? PostgreSQL only, a search with a word, and no field it does not hold."""
    return (
        dialect == "postgresql"
        and flt.q is not None
        and bool(query_words(flt.q))
        and all(getattr(flt, f.name) is None for f in fields(ItemFilter) if f.name not in FIELDS)
    )


def count_statement(flt: ItemFilter) -> Any:
    """``count(*)`` of ``flt`` over the copy: the same WHERE as on ``feedback``, on the copy's columns."""
    return select(func.count()).select_from(rows).where(where_clause(flt, table=rows))

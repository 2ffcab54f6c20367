"""The manager's search (``q``) in SQL, in one place: every folded word a substring of the item's folded
text (ADR 0034), and on SQLite the trigram index that narrows the rows that rule is tried on (ADR 0070).

The rule is ``text_folded LIKE '%word%' ESCAPE '\\'``, one condition a word, on both databases: it alone
decides what matches, so the index cannot change an answer, only how fast it comes. PostgreSQL's trigram
index (ADR 0066) serves that ``LIKE`` itself. SQLite's FTS5 table (migration 0022) cannot (its ``LIKE``
takes no ``ESCAPE``), so the statement also asks it, by ``MATCH``, for the items holding every trigram of
the words; a row the ``LIKE`` matches holds them all, so the narrowing keeps every answer. A search with
no word of three characters has no trigram: it stays the scan it always was.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Boolean, column, select, table, true
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.visitors import InternalTraversal, _TraverseInternalsType

from feedback_intelligence.store.schema import feedback
from feedback_intelligence.text.matching import fold

LIKE_ESCAPE = "\\"
#: The FTS5 table and the table of its rowids (migration 0022); SQLite only, not in store/schema.py.
INDEX_TABLE = "feedback_search"
IDS_TABLE = "feedback_search_ids"
TRIGGERS = ("feedback_search_insert", "feedback_search_update", "feedback_search_delete")

#: FTS5 reads ``<table> MATCH ?`` (its hidden column of the table's name) as a query over every column
_index = table(INDEX_TABLE, column("rowid"), column(INDEX_TABLE))
_ids = table(IDS_TABLE, column("docid"), column("feedback_id"))


#: Merges the index into one segment, leaving out what deleted rows left: FTS5 keeps a deleted row's trigrams
#: (and the note that deletes them) in its segments until a merge reaches them, and an erasure leaves no text.
OPTIMIZE = f"INSERT INTO {INDEX_TABLE} ({INDEX_TABLE}) VALUES ('optimize')"


def query_words(q: str) -> list[str]:
    """The folded words of ``q`` (blank words dropped): each must occur in the item's folded text."""
    return [w for w in fold(q).split() if w]


def _like_pattern(word: str) -> str:
    escaped = word.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2).replace("%", LIKE_ESCAPE + "%").replace("_", LIKE_ESCAPE + "_")
    return f"%{escaped}%"


def trigrams(words: list[str]) -> list[str]:
    """Every three-character run of the words, each once, in order of first sight. SQLite's ``LIKE`` reads
    its pattern only up to a NUL character, so a word counts only up to one: what follows constrains nothing."""
    found: dict[str, None] = {}
    for word in words:
        head = word.split("\x00", 1)[0]
        for start in range(len(head) - 2):
            found.setdefault(head[start : start + 3])
    return list(found)


def match_query(grams: list[str]) -> str:
    """An FTS5 query for rows holding every one of ``grams``: each a quoted string (a literal, whatever
    its characters; ``"`` doubled), ANDed."""
    return " AND ".join('"' + gram.replace('"', '""') + '"' for gram in grams)


class IndexNarrowing(ColumnElement[bool]):
    """``feedback.id`` among the items the SQLite index says hold every trigram; ``true`` elsewhere (on
    PostgreSQL the ``LIKE`` reads its own index). Cached by the statement it wraps, as any clause."""

    __visit_name__ = "index_narrowing"
    inherit_cache = True
    _traverse_internals: _TraverseInternalsType = [("condition", InternalTraversal.dp_clauseelement)]  # noqa: RUF012
    type = Boolean()
    _is_implicitly_boolean = True  # a predicate already: never ``… = 1``

    def __init__(self, grams: list[str]) -> None:
        hits = select(_index.c.rowid).where(_index.c[INDEX_TABLE].match(match_query(grams)))
        self.condition = feedback.c.id.in_(select(_ids.c.feedback_id).where(_ids.c.docid.in_(hits)))


@compiles(IndexNarrowing, "sqlite")
def _on_sqlite(element: IndexNarrowing, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.condition, **kw)


@compiles(IndexNarrowing)
def _elsewhere(element: IndexNarrowing, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(true(), **kw)


def conditions(
    q: str, *, use_index: bool = True, text_folded: Any = feedback.c.text_folded
) -> list[ColumnElement[bool]]:
    """The conditions ``q`` adds to a statement's WHERE (AND). ``use_index=False``: the rule alone, the scan,
    for what compares the two (the tests and ``bench/search_scale``). ``text_folded``: the column the rule
    reads (PostgreSQL's narrow copy has one too, store/search_rows.py)."""
    words = query_words(q)
    found: list[ColumnElement[bool]] = [text_folded.like(_like_pattern(word), escape=LIKE_ESCAPE) for word in words]
    grams = trigrams(words) if use_index else []
    if grams:
        found.append(IndexNarrowing(grams))
    return found

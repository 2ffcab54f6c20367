"""The feedback store of one channel (corpus or live): SQLite by default, PostgreSQL by URL."""

from __future__ import annotations

import asyncio
import errno
import functools
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import Table, bindparam, delete, event, func, insert, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from feedback_intelligence.deterministic.timestamps import utc_now_normalized
from feedback_intelligence.records import AlertHit, Correction, Derived, RuleAdvice, StoredFeedback, Structure
from feedback_intelligence.store import audit, copy_rows, rollups, tombstones
from feedback_intelligence.store.schema import (
    case_notes,
    cases,
    counters,
    feedback,
    feedback_alerts,
    outbox,
)

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
VERSION_COUNTER = "version"
#: A PostgreSQL that does not answer must not hold a request for asyncpg's default minute.
CONNECT_TIMEOUT_S = 5.0
#: A statement on a connection whose server went silent (no RST) gives up after this long.
COMMAND_TIMEOUT_S = 30.0

P = ParamSpec("P")
T = TypeVar("T")


class SaveHook(Protocol):
    """Work that must commit with a saved row (its case, its outbox rows): called inside the insert's
    transaction, after the row is written, with the rows the transaction adds; and inside a correction's,
    with the row as corrected (store/outbox.py, store/cases.py, services/alert_intake.py). ``at`` is the
    instant of the change: None for a save (each row's ``created_at``), a correction's own instant."""

    def __call__(
        self, conn: AsyncConnection, items: Sequence[StoredFeedback], *, at: str | None = None
    ) -> Awaitable[None]: ...


class DuplicateId(Exception):
    def __init__(self, feedback_id: str) -> None:
        self.feedback_id = feedback_id
        super().__init__(f"duplicate id {feedback_id!r}")


class Erased(Exception):
    """The id belongs to an erased item (its tombstone): never stored again (410 ``erased``)."""

    def __init__(self, feedback_id: str) -> None:
        super().__init__(feedback_id)
        self.feedback_id = feedback_id


class StaleRevision(Exception):
    """``If-Match`` named another revision than the row's (412)."""

    def __init__(self, feedback_id: str, current: int) -> None:
        super().__init__(feedback_id)
        self.feedback_id = feedback_id
        self.current = current


class StoreUnavailable(Exception):
    """The channel's database cannot be reached right now (refused, reset, timed out, shutting down).

    Not a bug and not the client's fault: the API answers 503 with ``Retry-After`` and nothing is
    written, so a client that retries with the same id loses nothing.
    """

    def __init__(self, store: str, detail: str) -> None:
        self.store = store
        self.detail = detail
        super().__init__(f"{store} store unavailable: {detail}")


class StoreFull(StoreUnavailable):
    """The channel's database has no room left: SQLite's ``SQLITE_FULL`` ("database or disk is full"),
    PostgreSQL's ``disk_full``, or the filesystem's ``ENOSPC``.

    Not "cannot be reached": retrying in a moment will not help until an operator frees space, so the API
    answers it with a code and message of its own, and the store reads unhealthy in ``/admin/status``
    until a save succeeds again (:attr:`FeedbackStore.storage_fault`). Nothing is half-written.
    """


SQLITE_FULL = 13
#: Methods whose success shows the database takes writes again (clears a recorded storage fault): the
#: ones that add rows. A write that only rewrites pages it has (a queue claim or an outbox claim finding
#: nothing, a counter tick, a lease renewal) proves no space came back, and background loops run those
#: all the time: with them on this list a disk-full fault a save just met read "healthy" a moment later.
#: The re-derivation pass clears it itself when it wrote rows.
WRITE_METHODS = frozenset({"insert", "insert_batch"})
#: Rows one re-derivation transaction takes (ADR 0024 section 2).
REDERIVE_BATCH = 500


class Deriver(Protocol):
    """``derivation.derive`` bound to a domain (``derivation.DomainDeriver``): the store is handed one and
    never imports the domain. ``rev`` is what a current row's ``derived_rev`` reads."""

    rev: str

    def __call__(self, record: StoredFeedback, /) -> Derived: ...


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not s for s in seen):
        seen.append(current)
        current = getattr(current, "orig", None) or current.__cause__ or current.__context__
    return seen


def _is_storage_full(exc: BaseException) -> bool:
    """Does ``exc`` (or anything it wraps) say "no room left" rather than "not there" or "bad query"?"""
    for current in _chain(exc):
        if getattr(current, "sqlite_errorcode", None) == SQLITE_FULL or "database or disk is full" in str(current):
            return True
        if getattr(current, "sqlstate", None) == "53100":  # PostgreSQL disk_full (asyncpg DiskFullError)
            return True
        if isinstance(current, OSError) and current.errno == errno.ENOSPC:
            return True
    return False


def _is_unavailability(exc: BaseException) -> bool:
    """Does ``exc`` (or anything it wraps) say "the database is not there", rather than "bad query"?"""
    try:
        import asyncpg.exceptions as pg
    except ImportError:  # pragma: no cover - asyncpg is a dependency
        pg = None
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError | PoolTimeout | OperationalError | InterfaceError):
            return True  # refused, reset, timed out (TimeoutError is an OSError), pool exhausted
        if isinstance(current, DBAPIError) and current.connection_invalidated:
            return True
        if pg is not None and isinstance(
            current,
            pg.PostgresConnectionError | pg.OperatorInterventionError | pg.TooManyConnectionsError | pg.InterfaceError,
        ):
            return True  # connection lost, server shutting down or starting up, no connection slots
        current = getattr(current, "orig", None) or current.__cause__ or current.__context__
    return False


def _translate_unavailability(method: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    writes = method.__name__ in WRITE_METHODS

    @functools.wraps(method)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        owner = args[0]
        store = getattr(owner, "store", owner)  # a StructureQueue records faults on its store
        try:
            result = await method(*args, **kwargs)
        except (StoreUnavailable, DuplicateId):
            raise
        except Exception as exc:
            name = getattr(owner, "name", "feedback")
            if _is_storage_full(exc):
                setattr(store, "storage_fault", _short(exc))  # noqa: B010 - the owner is a store or a queue
                raise StoreFull(name, _short(exc)) from exc
            if _is_unavailability(exc):
                raise StoreUnavailable(name, _short(exc)) from exc
            raise
        if writes:
            setattr(store, "storage_fault", None)  # noqa: B010
        return result

    return wrapper


def _short(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return (lines[0] if lines else type(exc).__name__)[:200]


def _upgrade_to_head(connection: Connection) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the writer
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA secure_delete=ON")  # an erased item's bytes are overwritten, not left in free pages
    cursor.close()


def create_engine_for(url: str) -> AsyncEngine:
    """The engine of a store. ``hide_parameters``: a failed statement's exception (and so a logged
    traceback) names the statement, never its values (a customer's text, a search's words)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, hide_parameters=True)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(
        url,
        hide_parameters=True,
        pool_size=10,
        max_overflow=10,
        pool_pre_ping=True,
        pool_timeout=10,
        connect_args={"timeout": CONNECT_TIMEOUT_S, "command_timeout": COMMAND_TIMEOUT_S},
    )


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _structure_from(raw: str | None) -> Structure | None:
    if not raw:
        return None
    data = json.loads(raw)
    return Structure(
        category=data["category"],
        theme=data["theme"],
        severity=data["severity"],
        type=data["type"],
        language=data["language"],
        sentiment=data.get("sentiment"),
    )


def rule_advice_json(advice: tuple[RuleAdvice, ...] | list[RuleAdvice]) -> str | None:
    """The ``rule_advice_json`` column of ``advice``: null when no rule disagrees."""
    return _dumps([a.to_json() for a in advice]) if advice else None


def _row_to_record(row: Any) -> StoredFeedback:
    corrections = json.loads(row.corrections_json) if row.corrections_json else None
    return StoredFeedback(
        id=row.id,
        source=row.source,
        text=row.text,
        timestamp=row.timestamp,
        created_at=row.created_at,
        structure=_structure_from(row.structure_json),
        structure_failed=bool(row.structure_failed),
        model_failed=bool(row.model_failed),
        salvage_notes=tuple(json.loads(row.salvage_notes_json)),
        alerts=tuple(AlertHit(a["category"], a["pattern"]) for a in json.loads(row.alerts_json)),
        corrections=(
            tuple(Correction(c["field"], c.get("modelValue"), c.get("humanValue")) for c in corrections)
            if corrections is not None
            else None
        ),
        needs_review=bool(row.needs_review),
        review_flags=tuple(json.loads(row.review_flags_json)),
        pending=bool(row.structure_due),
        structure_attempts=int(row.structure_attempts or 0),
        structure_preemptions=int(row.structure_preemptions or 0),
        store=row.store,
        author=row.author,
        rule_advice=tuple(RuleAdvice.from_json(a) for a in json.loads(row.rule_advice_json or "[]")),
    )


def _record_to_row(record: StoredFeedback) -> dict[str, Any]:
    return {
        "id": record.id,
        "source": record.source,
        "text": record.text,
        "timestamp": record.timestamp,
        "created_at": record.created_at,
        "structure_json": _dumps(record.structure.to_json()) if record.structure else None,
        "structure_failed": record.structure_failed,
        "model_failed": record.model_failed,
        "salvage_notes_json": _dumps(list(record.salvage_notes)),
        "alerts_json": _dumps([a.to_json() for a in record.alerts]),
        "corrections_json": (
            _dumps([c.to_json() for c in record.corrections]) if record.corrections is not None else None
        ),
        "needs_review": record.needs_review,
        "review_flags_json": _dumps(list(record.review_flags)),
        "structure_due": record.pending,
        "structure_attempts": record.structure_attempts,
        "structure_preemptions": record.structure_preemptions,
        "store": record.store,
        "author": record.author,
        "rule_advice_json": rule_advice_json(record.rule_advice),
    }


def _derived_values(derived: Derived, rev: str) -> dict[str, Any]:
    """The starred columns; ``derived_rev`` is the deriver's, which is what staleness is judged by (so a
    pass always ends, even under a deriver whose records name another rev)."""
    return {
        "category": derived.category,
        "severity": derived.severity,
        "type": derived.type,
        "sentiment": derived.sentiment,
        "language": derived.language,
        "severity_rank": derived.severity_rank,
        "rated": derived.rated,
        "theme_base": derived.theme_base,
        "alert": derived.alert,
        "text_folded": derived.text_folded,
        "corrected_fields": derived.corrected_fields,
        "derived_rev": rev,
    }


def _alert_rows(feedback_id: str, derived: Derived) -> list[dict[str, Any]]:
    return [
        {
            "feedback_id": feedback_id,
            "seq": seq,
            "category": hit.category,
            "pattern": hit.pattern,
            "words_json": _dumps(list(hit.words)),
        }
        for seq, hit in enumerate(derived.alerts)
    ]


async def write_derived(conn: AsyncConnection, derive: Deriver | None, feedback_ids: list[str]) -> int:
    """Re-read the rows (inside the caller's transaction, after its write), derive them and write the
    derived columns and the alert child rows: the one way a row's derived state is written after its
    insert. Without a deriver nothing is written and the rows stay stale for the re-derivation pass."""
    if derive is None or not feedback_ids:
        return 0
    rows = (await conn.execute(select(feedback).where(feedback.c.id.in_(feedback_ids)))).all()
    if not rows:
        return 0
    updates: list[dict[str, Any]] = []
    children: list[dict[str, Any]] = []
    for row in rows:
        derived = derive(_row_to_record(row))
        updates.append({"b_id": row.id, **_derived_values(derived, derive.rev)})
        children.extend(_alert_rows(row.id, derived))
    # executemany: the parameters' column keys are the SET clause
    await conn.execute(update(feedback).where(feedback.c.id == bindparam("b_id")), updates)
    ids = [row.id for row in rows]
    await conn.execute(delete(feedback_alerts).where(feedback_alerts.c.feedback_id.in_(ids)))
    if children:
        await conn.execute(insert(feedback_alerts), children)
    return len(rows)


def _rows_of(records: list[StoredFeedback], derive: Deriver | None) -> tuple[dict[str, Derived], list[dict[str, Any]]]:
    """The records' derivations (by id) and their rows as the single insert writes them."""
    derived = {r.id: derive(r) for r in records} if derive is not None else {}
    rows = []
    for record in records:
        row = _record_to_row(record)
        if derive is not None:
            row.update(_derived_values(derived[record.id], derive.rev))
        rows.append(row)
    return derived, rows


async def _insert_new(conn: AsyncConnection, rows: Sequence[Mapping[str, Any]]) -> set[str]:
    """Insert the rows whose id is neither taken nor erased (an erased item never comes back); the ids
    inserted. ``copy_rows.insert_new`` is PostgreSQL's way of the same."""
    erased = await tombstones.among(conn, [row["id"] for row in rows])
    kept = [row for row in rows if row["id"] not in erased]
    if not kept:
        return set()
    statement = _insert_ignoring_taken(conn.dialect.name).returning(feedback.c.id)
    return {row.id for row in await conn.execute(statement, kept)}


async def _insert_alert_rows(conn: AsyncConnection, rows: Sequence[Mapping[str, Any]]) -> None:
    """The alert child rows of items just inserted; ``copy_rows.insert_alert_rows`` is PostgreSQL's way."""
    if rows:
        await conn.execute(insert(feedback_alerts), rows)


def _insert_ignoring_taken(dialect: str) -> Any:
    """``INSERT INTO feedback … ON CONFLICT (id) DO NOTHING`` in the dialect's spelling."""
    if dialect == "postgresql":
        return postgresql_insert(feedback).on_conflict_do_nothing(index_elements=[feedback.c.id])
    return sqlite_insert(feedback).on_conflict_do_nothing(index_elements=[feedback.c.id])


async def _bump(conn: AsyncConnection, name: str) -> int:
    """Increment a named counter inside the caller's transaction (created at 1 on first use)."""
    increment = update(counters).where(counters.c.name == name).values(value=counters.c.value + 1)
    if (await conn.execute(increment)).rowcount == 0:
        try:
            async with conn.begin_nested():
                await conn.execute(insert(counters).values(name=name, value=1))
        except IntegrityError:  # another writer created it meanwhile
            await conn.execute(increment)
    return int(await conn.scalar(select(counters.c.value).where(counters.c.name == name)) or 0)


# Erasure (ADR 0024 section 7): every table that holds rows of an item, children first, each with the
# column that names the item; one delete per entry, in this order, in the erasure's transaction.
ERASURE_DELETES: tuple[tuple[Table, str], ...] = (
    (outbox, "feedback_id"),
    (case_notes, "feedback_id"),
    (cases, "feedback_id"),
    (feedback_alerts, "feedback_id"),
    (feedback, "id"),
)


class FeedbackStore:
    """The feedback rows and counters of one channel, in the database at ``url`` (SQLite or PostgreSQL).

    Rows are written once by ``insert`` (a taken id raises :class:`DuplicateId`) and later changed only
    by the restructure pass (``update_structure``, ``update_alerts``). Reads return
    :class:`~feedback_intelligence.records.StoredFeedback`, newest first. ``insert`` can bump a counter
    in the same transaction, so the change counter moves exactly when a row lands. A database that
    cannot be reached raises :class:`StoreUnavailable` from every method, and nothing is half-written.
    """

    def __init__(self, url: str, *, name: str = "corpus", derive: Deriver | None = None) -> None:
        self.url = url
        self.name = name
        self.engine = create_engine_for(url)
        #: Writes the derived columns with every write of a record; None (tools, old tests) leaves the
        #: rows stale for the re-derivation pass.
        self.derive = derive
        #: Why the last write failed for want of space (disk full), until a write succeeds again.
        self.storage_fault: str | None = None

    @_translate_unavailability
    async def migrate(self) -> None:
        async with self.engine.begin() as conn:
            await conn.run_sync(_upgrade_to_head)

    async def aclose(self) -> None:
        await self.engine.dispose()

    @_translate_unavailability
    async def ping(self) -> None:
        """Connect once (no table needed): raises :class:`StoreUnavailable` when the database is not there."""
        async with self.engine.connect():
            pass

    @_translate_unavailability
    async def insert(
        self, record: StoredFeedback, *, bump: str | None = None, also: SaveHook | None = None
    ) -> int | None:
        """Insert a row; with ``bump``, also move that counter in the same transaction (so a saved row
        and the version that announces it can never part) and return its new value. ``also`` writes
        what commits with the row (its case and notifications) in that same transaction. A tombstoned
        id raises :class:`Erased`."""
        try:
            derived = self.derive(record) if self.derive is not None else None
            async with self.engine.begin() as conn:
                if await tombstones.among(conn, [record.id]):
                    raise Erased(record.id)
                row = _record_to_row(record)
                if derived is not None and self.derive is not None:
                    row.update(_derived_values(derived, self.derive.rev))
                await conn.execute(insert(feedback).values(**row))
                await rollups.add_inserted(conn, [row])
                if derived is not None and derived.alerts:
                    await conn.execute(insert(feedback_alerts), _alert_rows(record.id, derived))
                if also is not None:  # what must commit with the item: its case, its outbox rows (ADR 0024)
                    await also(conn, [record])
                return await _bump(conn, bump) if bump else None
        except IntegrityError as exc:
            raise DuplicateId(record.id) from exc

    @_translate_unavailability
    async def insert_batch(
        self, records: list[StoredFeedback], *, bump: str | None = None, also: SaveHook | None = None
    ) -> set[str]:
        """Insert many rows in one transaction; an id already stored is skipped (``ON CONFLICT DO NOTHING``),
        not an error. With ``bump``, that counter moves once, in the same transaction, when any row landed;
        ``also`` runs once for the inserted rows together in that transaction, as for a single insert (their
        cases and notifications). Returns the ids inserted. Rows are made by the single insert's ``_record_to_row``,
        so every column the single insert writes, the batch writes. Ids within ``records`` must be distinct.

        On PostgreSQL the rows and their alert rows go by COPY (``store/copy_rows.py``, ADR 0037); on
        SQLite by one ``INSERT … ON CONFLICT DO NOTHING RETURNING id`` executed for many parameter sets
        (SQLAlchemy's multi-row VALUES pages).
        """
        if not records:
            return set()
        # CPU per row (base forms, folding, the rows' JSON): off the event loop, as the batch's deterministic
        # layers are (a 1,000-row batch held the loop ~80 ms when only the derivation was in the thread)
        derived, rows = await asyncio.to_thread(_rows_of, records, self.derive)
        if self.engine.dialect.name == "postgresql":
            insert_rows, insert_alerts = copy_rows.insert_new, copy_rows.insert_alert_rows
        else:
            insert_rows, insert_alerts = _insert_new, _insert_alert_rows
        async with self.engine.begin() as conn:
            ids = [r.id for r in records]
            inserted = await insert_rows(conn, rows)
            await rollups.add_inserted(conn, [row for row in rows if row["id"] in inserted])
            await insert_alerts(
                conn, [a for i in ids if i in inserted and i in derived for a in _alert_rows(i, derived[i])]
            )
            if also is not None:
                await also(conn, [record for record in records if record.id in inserted])
            if bump and inserted:
                await _bump(conn, bump)
        return inserted

    @_translate_unavailability
    async def exists(self, feedback_id: str) -> bool:
        async with self.engine.connect() as conn:
            found = await conn.scalar(select(feedback.c.id).where(feedback.c.id == feedback_id))
        return found is not None

    @_translate_unavailability
    async def erased(self, feedback_id: str) -> bool:
        return bool(await self.erased_among([feedback_id]))

    @_translate_unavailability
    async def erased_among(self, feedback_ids: Sequence[str]) -> set[str]:
        """The ids of ``feedback_ids`` this channel refuses: erased here or in another channel."""
        if not feedback_ids:
            return set()
        async with self.engine.connect() as conn:
            return await tombstones.among(conn, feedback_ids)

    @_translate_unavailability
    async def list_tombstones(self) -> list[tombstones.Tombstone]:
        async with self.engine.connect() as conn:
            return await tombstones.every(conn)

    @_translate_unavailability
    async def add_tombstones(self, added: Sequence[tombstones.Tombstone]) -> None:
        """Refuse these ids from now on (another channel's erasures): one transaction, ids kept as they are."""
        async with self.engine.begin() as conn:
            await tombstones.add(conn, added)

    @_translate_unavailability
    async def revision(self, feedback_id: str) -> tuple[int, str] | None:
        """The row's ``(revision, created_at)``, or None when there is no such row."""
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(feedback.c.revision, feedback.c.created_at).where(feedback.c.id == feedback_id)
                )
            ).first()
        return (int(row.revision), row.created_at) if row else None

    @_translate_unavailability
    async def correct(
        self,
        feedback_id: str,
        values: dict[str, Any],
        *,
        expected_revision: int | None,
        entries: list[audit.AuditEntry],
        also: SaveHook | None = None,
    ) -> int | None:
        """Write a person's correction with its audit rows and the version tick in one transaction.

        Returns the new revision; None when the row is gone; :class:`StaleRevision` when ``If-Match``
        named another. A pending row is settled: the person wins over the worker. The derived columns
        and alert rows follow in the same transaction (ADR 0024 section 7). A correction is a save:
        ``also`` (the save's hook) gets the row as corrected, in the same transaction (ADR 0041)."""
        now = utc_now_normalized()
        statement = update(feedback).where(feedback.c.id == feedback_id)
        if expected_revision is not None:
            statement = statement.where(feedback.c.revision == expected_revision)
        statement = statement.values(
            **values,
            structure_due=False,
            lease_owner=None,
            lease_until_ms=None,
            revision=feedback.c.revision + 1,
            updated_at=now,
        )
        async with self.engine.begin() as conn:
            async with rollups.tracking(conn, [feedback_id]):
                if (await conn.execute(statement)).rowcount == 0:
                    current = await conn.scalar(select(feedback.c.revision).where(feedback.c.id == feedback_id))
                    if current is None:
                        return None
                    raise StaleRevision(feedback_id, int(current))
                await write_derived(conn, self.derive, [feedback_id])  # the report groups the corrected values
            await audit.append(conn, entries)
            if also is not None:  # what the corrected item starts (a case, notifications), as at its save
                row = (await conn.execute(select(feedback).where(feedback.c.id == feedback_id))).one()
                await also(conn, [_row_to_record(row)], at=now)
            await _bump(conn, VERSION_COUNTER)
            return int(await conn.scalar(select(feedback.c.revision).where(feedback.c.id == feedback_id)) or 0)

    @_translate_unavailability
    async def erase(self, feedback_id: str, entry: audit.AuditEntry, *, expected_revision: int | None) -> bool:
        """Delete the item's rows (children first), leave its tombstone, redact its audit rows, append the
        fact, tick the version: one transaction. Then, on SQLite, truncate the WAL, so the deleted bytes
        (overwritten by ``secure_delete``) do not live on in the log. False when there is no such row."""
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(select(feedback.c.store, feedback.c.revision).where(feedback.c.id == feedback_id))
            ).first()
            if row is None:
                return False
            if expected_revision is not None and int(row.revision) != expected_revision:
                raise StaleRevision(feedback_id, int(row.revision))
            async with rollups.tracking(conn, [feedback_id]):
                for table, column in ERASURE_DELETES:
                    await conn.execute(delete(table).where(table.c[column] == feedback_id))
            # the id may be refused here already: another channel's erasure of it, or this one's spread first
            await tombstones.add(conn, [tombstones.Tombstone(feedback_id, entry.at, row.store)])
            await audit.redact_item(conn, feedback_id)
            await audit.append(conn, [entry])
            await _bump(conn, VERSION_COUNTER)
        if self.engine.dialect.name == "sqlite":
            async with self.engine.connect() as conn:
                await conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        return True

    @_translate_unavailability
    async def get(self, feedback_id: str) -> StoredFeedback | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(feedback).where(feedback.c.id == feedback_id))).first()
        return _row_to_record(row) if row else None

    @_translate_unavailability
    async def query(
        self,
        from_: str | None = None,
        to: str | None = None,
        limit: int = 200,
        source: str | None = None,
        *,
        store: str | None = None,
        author: str | None = None,
    ) -> list[StoredFeedback]:
        """Newest first; ``from_``/``to`` are normalised instants, compared as fixed-width strings;
        ``store`` keeps one store's items (the ``(store, timestamp)`` index serves it), ``author`` one
        person's (the ``(author, timestamp)`` index)."""
        statement = select(feedback)
        if store is not None:
            statement = statement.where(feedback.c.store == store)
        if author is not None:
            statement = statement.where(feedback.c.author == author)
        if from_ is not None:
            statement = statement.where(feedback.c.timestamp >= from_)
        if to is not None:
            statement = statement.where(feedback.c.timestamp <= to)
        if source is not None:
            statement = statement.where(feedback.c.source == source)
        statement = statement.order_by(feedback.c.timestamp.desc(), feedback.c.id.desc()).limit(limit)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(statement)).all()
        return [_row_to_record(r) for r in rows]

    @_translate_unavailability
    async def count(
        self, from_: str | None = None, to: str | None = None, *, needs_review: bool = False, store: str | None = None
    ) -> int:
        statement = select(func.count()).select_from(feedback)
        if store is not None:
            statement = statement.where(feedback.c.store == store)
        if from_ is not None:
            statement = statement.where(feedback.c.timestamp >= from_)
        if to is not None:
            statement = statement.where(feedback.c.timestamp <= to)
        if needs_review:
            statement = statement.where(feedback.c.needs_review.is_(True))
        async with self.engine.connect() as conn:
            return int(await conn.scalar(statement) or 0)

    @_translate_unavailability
    async def stores_in(self, from_: str | None = None, to: str | None = None) -> list[str]:
        """The distinct store ids of the items in the window, in id order (the ``(store, timestamp)`` index)."""
        statement = select(feedback.c.store).where(feedback.c.store.is_not(None)).distinct().order_by(feedback.c.store)
        if from_ is not None:
            statement = statement.where(feedback.c.timestamp >= from_)
        if to is not None:
            statement = statement.where(feedback.c.timestamp <= to)
        async with self.engine.connect() as conn:
            return [row.store for row in (await conn.execute(statement)).all()]

    @_translate_unavailability
    async def update_structure(
        self,
        feedback_id: str,
        structure: Structure | None,
        *,
        structure_failed: bool,
        salvage_notes: list[str] | tuple[str, ...],
        needs_review: bool,
        review_flags: list[str] | tuple[str, ...],
    ) -> int:
        """Replace a structure; a model-made structure clears the human audit trail (corrections, modelFailed)."""
        statement = (
            update(feedback)
            .where(feedback.c.id == feedback_id)
            .values(
                structure_json=_dumps(structure.to_json()) if structure else None,
                structure_failed=structure_failed,
                model_failed=False,
                salvage_notes_json=_dumps(list(salvage_notes)),
                corrections_json=None,
                rule_advice_json=None,  # nobody's structure for a rule to disagree with
                needs_review=needs_review,
                review_flags_json=_dumps(list(review_flags)),
                # An operator's restructure settles a pending row too; a worker's lease on it then
                # finds nothing to finish (see structure_queue.finish).
                structure_due=False,
                lease_owner=None,
                lease_until_ms=None,
                revision=feedback.c.revision + 1,
                updated_at=utc_now_normalized(),
            )
        )
        async with self.engine.begin() as conn:
            async with rollups.tracking(conn, [feedback_id]):
                rows = (await conn.execute(statement)).rowcount
                await write_derived(conn, self.derive, [feedback_id] if rows else [])
            return rows

    @_translate_unavailability
    async def update_alerts(self, feedback_id: str, alerts: list[AlertHit] | tuple[AlertHit, ...]) -> int:
        statement = (
            update(feedback)
            .where(feedback.c.id == feedback_id)
            .values(
                alerts_json=_dumps([a.to_json() for a in alerts]),
                revision=feedback.c.revision + 1,
                updated_at=utc_now_normalized(),
            )
        )
        async with self.engine.begin() as conn:
            async with rollups.tracking(conn, [feedback_id]):
                rows = (await conn.execute(statement)).rowcount
                await write_derived(conn, self.derive, [feedback_id] if rows else [])
            return rows

    @_translate_unavailability
    async def read_counter(self, name: str = VERSION_COUNTER) -> int:
        async with self.engine.connect() as conn:
            value = await conn.scalar(select(counters.c.value).where(counters.c.name == name))
        return int(value or 0)

    @_translate_unavailability
    async def bump_counter(self, name: str = VERSION_COUNTER) -> int:
        """Increment atomically and return the new value; survives restarts and is shared by replicas."""
        async with self.engine.begin() as conn:
            return await _bump(conn, name)

    # -- re-derivation (ADR 0024 section 2) ---------------------------------------------------------------

    def _stale(self) -> Any:
        assert self.derive is not None
        return or_(feedback.c.derived_rev.is_(None), feedback.c.derived_rev != self.derive.rev)

    @_translate_unavailability
    async def stale_count(self) -> int:
        """Rows whose derived columns are missing or written by another derivation (0 without a deriver)."""
        if self.derive is None:
            return 0
        async with self.engine.connect() as conn:
            return int(await conn.scalar(select(func.count()).select_from(feedback).where(self._stale())) or 0)

    @_translate_unavailability
    async def rederive_batch(self, limit: int = REDERIVE_BATCH) -> int:
        """Re-derive up to ``limit`` stale rows in one transaction; returns how many. Replicas share the
        work: on PostgreSQL the rows are taken ``FOR UPDATE SKIP LOCKED``; SQLite's single writer
        serialises. Hits are never re-matched (they are the record); the version ticks once per batch
        that changed a row, so cached reports are rebuilt over the new values."""
        if self.derive is None:
            return 0
        pick = select(feedback.c.id).where(self._stale()).order_by(feedback.c.id).limit(limit)
        async with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                pick = pick.with_for_update(skip_locked=True)
            ids = list((await conn.scalars(pick)).all())
            async with rollups.tracking(conn, ids):
                done = await write_derived(conn, self.derive, ids)
            if done:
                await _bump(conn, VERSION_COUNTER)
        if done:
            self.storage_fault = None  # rows were written: there is space again
        return done

    @_translate_unavailability
    async def rebuild_rollups(self) -> dict[str, int]:
        """Refill the report's rollups from the rows in one transaction (``feedctl rollups rebuild``);
        returns each rollup's row count."""
        async with self.engine.begin() as conn:
            return await rollups.rebuild(conn)

    async def rederive_all(self, limit: int = REDERIVE_BATCH) -> int:
        """Batches until no row is stale; returns the rows re-derived."""
        total = 0
        while batch := await self.rederive_batch(limit):
            total += batch
        return total

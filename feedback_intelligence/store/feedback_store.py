"""The feedback store of one channel (corpus or live): SQLite by default, PostgreSQL by URL."""

from __future__ import annotations

import errno
import functools
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import event, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from feedback_intelligence.records import AlertHit, Correction, StoredFeedback, Structure
from feedback_intelligence.store.schema import counters, feedback

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
VERSION_COUNTER = "version"
#: A PostgreSQL that does not answer must not hold a request for asyncpg's default minute.
CONNECT_TIMEOUT_S = 5.0
#: A statement on a connection whose server went silent (no RST) gives up after this long.
COMMAND_TIMEOUT_S = 30.0

P = ParamSpec("P")
T = TypeVar("T")

#: Work that must commit with a saved row (its case, its outbox rows): called inside the insert's
#: transaction, after the row is written (store/outbox.py, store/cases.py, services/alert_intake.py).
SaveHook = Callable[[AsyncConnection, StoredFeedback], Awaitable[None]]


class DuplicateId(Exception):
    def __init__(self, feedback_id: str) -> None:
        self.feedback_id = feedback_id
        super().__init__(f"duplicate id {feedback_id!r}")


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
    until a write succeeds again (:attr:`FeedbackStore.storage_fault`). Nothing is half-written.
    """


SQLITE_FULL = 13
#: Methods whose success shows the database takes writes again (clears a recorded storage fault).
WRITE_METHODS = frozenset(
    {
        "insert",
        "insert_batch",
        "update_structure",
        "update_alerts",
        "bump_counter",
        "claim",
        "renew",
        "finish",
        "release",
    }
)


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
    cursor.close()


def create_engine_for(url: str) -> AsyncEngine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(
        url,
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
    }


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


class FeedbackStore:
    """The feedback rows and counters of one channel, in the database at ``url`` (SQLite or PostgreSQL).

    Rows are written once by ``insert`` (a taken id raises :class:`DuplicateId`) and later changed only
    by the restructure pass (``update_structure``, ``update_alerts``). Reads return
    :class:`~feedback_intelligence.records.StoredFeedback`, newest first. ``insert`` can bump a counter
    in the same transaction, so the change counter moves exactly when a row lands. A database that
    cannot be reached raises :class:`StoreUnavailable` from every method, and nothing is half-written.
    """

    def __init__(self, url: str, *, name: str = "corpus") -> None:
        self.url = url
        self.name = name
        self.engine = create_engine_for(url)
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
        what commits with the row (its case and notifications) in that same transaction."""
        try:
            async with self.engine.begin() as conn:
                await conn.execute(insert(feedback).values(**_record_to_row(record)))
                if also is not None:
                    await also(conn, record)
                return await _bump(conn, bump) if bump else None
        except IntegrityError as exc:
            raise DuplicateId(record.id) from exc

    @_translate_unavailability
    async def insert_batch(
        self, records: list[StoredFeedback], *, bump: str | None = None, also: SaveHook | None = None
    ) -> set[str]:
        """Insert many rows in one transaction; an id already stored is skipped (``ON CONFLICT DO NOTHING``),
        not an error. With ``bump``, that counter moves once, in the same transaction, when any row landed;
        ``also`` runs for each inserted row in that transaction, as for a single insert (its case and
        notifications). Returns the ids inserted. Rows are made by the single insert's ``_record_to_row``,
        so every column the single insert writes, the batch writes. Ids within ``records`` must be distinct.

        One ``INSERT … ON CONFLICT DO NOTHING RETURNING id`` executed for many parameter sets: SQLAlchemy
        sends it as multi-row VALUES pages (its "insertmanyvalues"), on PostgreSQL and SQLite alike
        (docs/benchmarks.md, "Bulk import": measured against COPY into a temporary table).
        """
        if not records:
            return set()
        rows = [_record_to_row(record) for record in records]
        statement = _insert_ignoring_taken(self.engine.dialect.name).returning(feedback.c.id)
        async with self.engine.begin() as conn:
            inserted = {row.id for row in await conn.execute(statement, rows)}
            if also is not None:
                for record in records:
                    if record.id in inserted:
                        await also(conn, record)
            if bump and inserted:
                await _bump(conn, bump)
        return inserted

    @_translate_unavailability
    async def exists(self, feedback_id: str) -> bool:
        async with self.engine.connect() as conn:
            found = await conn.scalar(select(feedback.c.id).where(feedback.c.id == feedback_id))
        return found is not None

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
    ) -> list[StoredFeedback]:
        """Newest first; ``from_``/``to`` are normalised instants, compared as fixed-width strings;
        ``store`` keeps one store's items (the ``(store, timestamp)`` index serves it)."""
        statement = select(feedback)
        if store is not None:
            statement = statement.where(feedback.c.store == store)
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
                needs_review=needs_review,
                review_flags_json=_dumps(list(review_flags)),
                # An operator's restructure settles a pending row too; a worker's lease on it then
                # finds nothing to finish (see structure_queue.finish).
                structure_due=False,
                lease_owner=None,
                lease_until_ms=None,
            )
        )
        async with self.engine.begin() as conn:
            return (await conn.execute(statement)).rowcount

    @_translate_unavailability
    async def update_alerts(self, feedback_id: str, alerts: list[AlertHit] | tuple[AlertHit, ...]) -> int:
        statement = (
            update(feedback)
            .where(feedback.c.id == feedback_id)
            .values(alerts_json=_dumps([a.to_json() for a in alerts]))
        )
        async with self.engine.begin() as conn:
            return (await conn.execute(statement)).rowcount

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

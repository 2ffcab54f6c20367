"""The feedback store of one channel (corpus or live): SQLite by default, PostgreSQL by URL.

The rows' conversion is ``store/rows.py``, their derived columns ``store/derived_rows.py``, the engine
``store/engine.py``, the errors ``store/errors.py``; every public method here is translated by the base
class (``store/base.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import Any, ClassVar, Protocol

from sqlalchemy import Table, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.records import AlertHit, StoredFeedback, Structure
from feedback_intelligence.store import (
    audit,
    copy_rows,
    correction_evidence,
    counters,
    field_quality,
    revisions,
    rollups,
    search,
    tombstones,
    values_rows,
)
from feedback_intelligence.store.base import StoreBase
from feedback_intelligence.store.counters import VERSION_COUNTER
from feedback_intelligence.store.derived_rows import (
    Deriver,
    ReadyRows,
    alert_rows,
    derived_values,
    rows_of,
    write_derived,
)
from feedback_intelligence.store.engine import create_engine_for
from feedback_intelligence.store.errors import DuplicateId, Erased, StaleRevision
from feedback_intelligence.store.revisions import Revisions
from feedback_intelligence.store.rows import compact_json, record_to_row, row_to_record, structure_to_json
from feedback_intelligence.store.schema import case_notes, cases, feedback, feedback_alerts, outbox

MIGRATIONS_DIR = revisions.MIGRATIONS_DIR


class SaveHook(Protocol):
    """Work that must commit with a saved row (its case, its outbox rows): called inside the insert's
    transaction, after the row is written, with the rows the transaction adds; and inside a correction's,
    with the row as corrected (store/outbox.py, store/cases.py, services/alert_intake.py). ``at`` is the
    instant of the change: None for a save (each row's ``created_at``), a correction's own instant."""

    def __call__(
        self, conn: AsyncConnection, items: Sequence[StoredFeedback], *, at: str | None = None
    ) -> Awaitable[None]: ...


#: Rows one re-derivation transaction takes (ADR 0024 section 2).
REDERIVE_BATCH = 500


# Erasure (ADR 0024 section 7): every table that holds rows of an item, children first, each with the
# column that names the item; one delete per entry, in this order, in the erasure's transaction.
ERASURE_DELETES: tuple[tuple[Table, str], ...] = (
    (outbox, "feedback_id"),
    (case_notes, "feedback_id"),
    (cases, "feedback_id"),
    (feedback_alerts, "feedback_id"),
    (feedback, "id"),
)


class FeedbackStore(StoreBase):
    """The feedback rows and counters of one channel, in the database at ``url`` (SQLite or PostgreSQL).

    Rows are written once by ``insert`` (a taken id raises :class:`DuplicateId`) and later changed only
    by the restructure pass (``update_structure``, ``update_alerts``). Reads return
    :class:`~feedback_intelligence.records.StoredFeedback`, newest first. ``insert`` can bump a counter
    in the same transaction, so the change counter moves exactly when a row lands. A database that
    cannot be reached raises :class:`StoreUnavailable` from every method, and nothing is half-written.
    """

    #: The writes that add rows; the re-derivation pass clears a fault itself when it wrote rows.
    proves_space: ClassVar[frozenset[str]] = frozenset({"insert", "insert_batch"})

    def __init__(
        self, url: str, *, name: str = "corpus", derive: Deriver | None = None, clock: Clock = SYSTEM_CLOCK
    ) -> None:
        self.url = url
        self.name = name
        self.clock = clock
        self.engine = create_engine_for(url)
        #: Writes the derived columns with every write of a record; None (tools, old tests) leaves the
        #: rows stale for the re-derivation pass.
        self.derive = derive
        self.storage_fault = None

    async def migrate(self) -> Revisions:
        """Bring the database to the migrations' head (safe twice) and log the revision it is at.
        On PostgreSQL through an engine of its own without the statement timeout: building an index over a
        chain's table (the search's trigram index) takes minutes, not a request's 30 s."""
        postgres = self.engine.dialect.name == "postgresql"
        engine = create_engine_for(self.url, command_timeout_s=None) if postgres else self.engine
        try:
            async with engine.begin() as conn:
                done = await conn.run_sync(revisions.upgrade)
        finally:
            if engine is not self.engine:
                await engine.dispose()
        revisions.log_upgrade(self.name, done)
        return done

    async def schema_revision(self) -> Revisions:
        """The database's revision and the code's head, changing nothing."""
        async with self.engine.connect() as conn:
            return await conn.run_sync(revisions.look)

    async def aclose(self) -> None:
        await self.engine.dispose()

    async def ping(self) -> None:
        """Connect once (no table needed): raises :class:`StoreUnavailable` when the database is not there."""
        async with self.engine.connect():
            pass

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
                row = record_to_row(record)
                if derived is not None and self.derive is not None:
                    row.update(derived_values(derived, self.derive.rev))
                await conn.execute(insert(feedback).values(**row))
                await rollups.add_inserted(conn, [row])
                if derived is not None and derived.alerts:
                    await conn.execute(insert(feedback_alerts), alert_rows(record.id, derived))
                if also is not None:  # what must commit with the item: its case, its outbox rows (ADR 0024)
                    await also(conn, [record])
                return await counters.bump(conn, bump) if bump else None
        except IntegrityError as exc:
            raise DuplicateId(record.id) from exc

    async def insert_batch(
        self,
        records: list[StoredFeedback],
        *,
        bump: str | None = None,
        also: SaveHook | None = None,
        ready: ReadyRows | None = None,
    ) -> set[str]:
        """Insert many rows in one transaction; an id already stored is skipped (``ON CONFLICT DO NOTHING``),
        not an error. With ``bump``, that counter moves once, in the same transaction, when any row landed;
        ``also`` runs once for the inserted rows together in that transaction, as for a single insert (their
        cases and notifications). Returns the ids inserted. Rows are made by the single insert's ``rows.record_to_row``,
        so every column the single insert writes, the batch writes. Ids within ``records`` must be distinct.

        On PostgreSQL the rows and their alert rows go by COPY (``store/copy_rows.py``, ADR 0037); on
        SQLite by one ``INSERT … ON CONFLICT DO NOTHING RETURNING id`` executed for many parameter sets
        (SQLAlchemy's multi-row VALUES pages).

        ``ready``: the records' rows as ``rows_of`` made them in a worker process (docs/adr/0074), taken as
        they are when this store's deriver has the same ``rev``; else the rows are made here.
        """
        if not records:
            return set()
        if ready is not None and self.derive is not None and ready.rev == self.derive.rev:
            if [row["id"] for row in ready.rows] != [record.id for record in records]:
                raise ValueError("the ready rows are not the records' rows")
            derived, rows = ready.derived, ready.rows
        else:
            # CPU per row (base forms, folding, the rows' JSON): off the event loop, as the batch's deterministic
            # layers are (a 1,000-row batch held the loop ~80 ms when only the derivation was in the thread)
            derived, rows = await asyncio.to_thread(rows_of, records, self.derive)
        if self.engine.dialect.name == "postgresql":
            insert_rows, insert_alerts = copy_rows.insert_new, copy_rows.insert_alert_rows
        else:
            insert_rows, insert_alerts = values_rows.insert_new, values_rows.insert_alert_rows
        async with self.engine.begin() as conn:
            ids = [r.id for r in records]
            inserted = await insert_rows(conn, rows)
            await rollups.add_inserted(conn, [row for row in rows if row["id"] in inserted])
            await insert_alerts(
                conn, [a for i in ids if i in inserted and i in derived for a in alert_rows(i, derived[i])]
            )
            if also is not None:
                await also(conn, [record for record in records if record.id in inserted])
            if bump and inserted:
                await counters.bump(conn, bump)
        return inserted

    async def exists(self, feedback_id: str) -> bool:
        async with self.engine.connect() as conn:
            found = await conn.scalar(select(feedback.c.id).where(feedback.c.id == feedback_id))
        return found is not None

    async def erased(self, feedback_id: str) -> bool:
        return bool(await self.erased_among([feedback_id]))

    async def erased_among(self, feedback_ids: Sequence[str]) -> set[str]:
        """The ids of ``feedback_ids`` this channel refuses: erased here or in another channel."""
        if not feedback_ids:
            return set()
        async with self.engine.connect() as conn:
            return await tombstones.among(conn, feedback_ids)

    async def list_tombstones(self) -> list[tombstones.Tombstone]:
        async with self.engine.connect() as conn:
            return await tombstones.every(conn)

    async def add_tombstones(self, added: Sequence[tombstones.Tombstone]) -> None:
        """Refuse these ids from now on (another channel's erasures): one transaction, ids kept as they are."""
        async with self.engine.begin() as conn:
            await tombstones.add(conn, added)

    async def revision(self, feedback_id: str) -> tuple[int, str] | None:
        """The row's ``(revision, created_at)``, or None when there is no such row."""
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(feedback.c.revision, feedback.c.created_at).where(feedback.c.id == feedback_id)
                )
            ).first()
        return (int(row.revision), row.created_at) if row else None

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
        now = format_instant(self.clock.now())
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
                await also(conn, [row_to_record(row)], at=now)
            await counters.bump(conn, VERSION_COUNTER)
            return int(await conn.scalar(select(feedback.c.revision).where(feedback.c.id == feedback_id)) or 0)

    async def erase(self, feedback_id: str, entry: audit.AuditEntry, *, expected_revision: int | None) -> bool:
        """Delete the item's rows (children first), leave its tombstone, redact its audit rows, append the
        fact, tick the version: one transaction. Then, on SQLite, merge the search index (its trigrams of the
        text leave it) and truncate the WAL, so the deleted bytes (overwritten by ``secure_delete``) do not
        live on in the log. False when there is no such row."""
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
            await counters.bump(conn, VERSION_COUNTER)
        if self.engine.dialect.name == "sqlite":
            async with self.engine.begin() as conn:
                await conn.exec_driver_sql(search.OPTIMIZE)
            async with self.engine.connect() as conn:
                await conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        return True

    async def get(self, feedback_id: str) -> StoredFeedback | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(feedback).where(feedback.c.id == feedback_id))).first()
        return row_to_record(row) if row else None

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
        return [row_to_record(r) for r in rows]

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

    async def corrected(
        self, *, since: str | None = None, store: str | None = None, limit: int | None = None
    ) -> list[StoredFeedback]:
        """The entries a person saved from a model's proposal with a field corrected (``corrections`` set, the
        model not failed), oldest first; from ``since`` (a normalised instant) on, of ``store`` only. Erased
        entries are gone from the table: they never appear (ADR 0039, ADR 0065)."""
        f = feedback.c
        statement = select(feedback).where(
            f.corrections_json.is_not(None), f.structure_json.is_not(None), f.model_failed.is_(False)
        )
        if since is not None:
            statement = statement.where(f.timestamp >= since)
        if store is not None:
            statement = statement.where(f.store == store)
        statement = statement.order_by(f.timestamp, f.id).limit(limit)
        async with self.engine.connect() as conn:
            return [row_to_record(r) for r in (await conn.execute(statement)).all()]

    async def rule_evidence(
        self, since: str | None = None
    ) -> tuple[list[correction_evidence.SavedChoice], list[correction_evidence.AlertJudgement]]:
        """The saved proposals' categories and the judged alerts from ``since`` on (``feedctl rules suggest``)."""
        async with self.engine.connect() as conn:
            choices = (await conn.execute(correction_evidence.choices_statement(since))).all()
            judged = (await conn.execute(correction_evidence.judgements_statement(since))).all()
        evidence = correction_evidence
        return [evidence.choice_of(r) for r in choices], [evidence.judgement_of(r) for r in judged]

    async def correction_tallies(
        self,
        first_day: str | None = None,
        last_day: str | None = None,
        *,
        stores: Sequence[str] | None = None,
        by_day: bool = True,
    ) -> list[field_quality.Tally]:
        """Saved proposals and corrected fields per day, store, backend and model (ADR 0065): the rollup's
        rows of the UTC days ``[first_day, last_day]``, of ``stores`` (None: every row); summed over the
        days (``day`` '') unless ``by_day``."""
        statement = field_quality.tallies_statement(first_day, last_day, stores, by_day=by_day)
        async with self.engine.connect() as conn:
            return [field_quality.tally_of(row) for row in (await conn.execute(statement)).all()]

    async def stores_in(self, from_: str | None = None, to: str | None = None) -> list[str]:
        """The distinct store ids of the items in the window, in id order (the ``(store, timestamp)`` index)."""
        statement = select(feedback.c.store).where(feedback.c.store.is_not(None)).distinct().order_by(feedback.c.store)
        if from_ is not None:
            statement = statement.where(feedback.c.timestamp >= from_)
        if to is not None:
            statement = statement.where(feedback.c.timestamp <= to)
        async with self.engine.connect() as conn:
            return [row.store for row in (await conn.execute(statement)).all()]

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
                structure_json=structure_to_json(structure),
                structure_failed=structure_failed,
                model_failed=False,
                salvage_notes_json=compact_json(list(salvage_notes)),
                corrections_json=None,
                proposal_backend=None,  # no person's save of a proposal any longer (ADR 0065)
                proposal_model=None,
                rule_advice_json=None,  # nobody's structure for a rule to disagree with
                needs_review=needs_review,
                review_flags_json=compact_json(list(review_flags)),
                # An operator's restructure settles a pending row too; a worker's lease on it then
                # finds nothing to finish (see structure_queue.finish).
                structure_due=False,
                lease_owner=None,
                lease_until_ms=None,
                revision=feedback.c.revision + 1,
                updated_at=format_instant(self.clock.now()),
            )
        )
        async with self.engine.begin() as conn:
            async with rollups.tracking(conn, [feedback_id]):
                rows = (await conn.execute(statement)).rowcount
                await write_derived(conn, self.derive, [feedback_id] if rows else [])
            return rows

    async def update_alerts(self, feedback_id: str, alerts: list[AlertHit] | tuple[AlertHit, ...]) -> int:
        statement = (
            update(feedback)
            .where(feedback.c.id == feedback_id)
            .values(
                alerts_json=compact_json([a.to_json() for a in alerts]),
                revision=feedback.c.revision + 1,
                updated_at=format_instant(self.clock.now()),
            )
        )
        async with self.engine.begin() as conn:
            async with rollups.tracking(conn, [feedback_id]):
                rows = (await conn.execute(statement)).rowcount
                await write_derived(conn, self.derive, [feedback_id] if rows else [])
            return rows

    async def read_counter(self, name: str = VERSION_COUNTER) -> int:
        async with self.engine.connect() as conn:
            return await counters.read(conn, name)

    async def bump_counter(self, name: str = VERSION_COUNTER) -> int:
        """Increment atomically and return the new value; survives restarts and is shared by replicas."""
        async with self.engine.begin() as conn:
            return await counters.bump(conn, name)

    # -- re-derivation (ADR 0024 section 2) ---------------------------------------------------------------

    def _stale(self) -> Any:
        assert self.derive is not None
        return or_(feedback.c.derived_rev.is_(None), feedback.c.derived_rev != self.derive.rev)

    async def stale_count(self) -> int:
        """Rows whose derived columns are missing or written by another derivation (0 without a deriver)."""
        if self.derive is None:
            return 0
        async with self.engine.connect() as conn:
            return int(await conn.scalar(select(func.count()).select_from(feedback).where(self._stale())) or 0)

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
                await counters.bump(conn, VERSION_COUNTER)
        if done:
            self.storage_fault = None  # rows were written: there is space again
        return done

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

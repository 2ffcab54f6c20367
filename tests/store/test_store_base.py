"""Every public method of every store class translates a driver's "not there" into the store's
:class:`StoreUnavailable` (store/base.py): a method added later is translated without a decorator, and a
store class or method added without a line in :data:`CALLS` fails here first.

The database refuses every connection with SQLite's own ``OperationalError`` ("unable to open database
file"), which SQLAlchemy wraps as it wraps any driver's: what the store meets when a database is not there.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.exc import IntegrityError

import feedback_intelligence.store
from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.records import AlertHit
from feedback_intelligence.store.accounts import AccountStore, Grant, MailChoice
from feedback_intelligence.store.audit import AuditEntry
from feedback_intelligence.store.base import StoreBase, StoreView
from feedback_intelligence.store.errors import DuplicateId, StoreFull, StoreUnavailable
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.outbox import Outbox, OutboxRow
from feedback_intelligence.store.structure_queue import Claim, StructureQueue
from feedback_intelligence.store.tombstones import Tombstone
from tests.support.later_rows import MODEL, later

AT = "2026-11-30T10:00:00.0000000+00:00"
ITEM = later("item-1", 0)
ENTRY = AuditEntry(AT, "change-1", "operator", None, None, "item.correct", "item-1")
ROW = OutboxRow(1, "item-1", "alert", "hooks", "live:item-1:hooks:alert", "pending", 1, AT, token="t")
CLAIM = Claim(ITEM, "t", 0)


async def _entered(context: Any) -> None:
    async with context:
        pass


Call = Callable[[Any], Awaitable[Any]]

#: How to call each public method so that it reaches the database.
CALLS: dict[type[StoreBase], dict[str, Call]] = {
    FeedbackStore: {
        "add_tombstones": lambda s: s.add_tombstones([Tombstone("item-1", AT, None)]),
        "bump_counter": lambda s: s.bump_counter(),
        "correct": lambda s: s.correct("item-1", {"text": "x"}, expected_revision=None, entries=[ENTRY]),
        "count": lambda s: s.count(),
        "erase": lambda s: s.erase("item-1", ENTRY, expected_revision=None),
        "erased": lambda s: s.erased("item-1"),
        "erased_among": lambda s: s.erased_among(["item-1"]),
        "exists": lambda s: s.exists("item-1"),
        "get": lambda s: s.get("item-1"),
        "insert": lambda s: s.insert(ITEM),
        "insert_batch": lambda s: s.insert_batch([ITEM]),
        "list_tombstones": lambda s: s.list_tombstones(),
        "migrate": lambda s: s.migrate(),
        "ping": lambda s: s.ping(),
        "schema_revision": lambda s: s.schema_revision(),
        "query": lambda s: s.query(),
        "read_counter": lambda s: s.read_counter(),
        "rebuild_rollups": lambda s: s.rebuild_rollups(),
        "rederive_all": lambda s: s.rederive_all(),
        "rederive_batch": lambda s: s.rederive_batch(),
        "revision": lambda s: s.revision("item-1"),
        "stale_count": lambda s: s.stale_count(),
        "stores_in": lambda s: s.stores_in(),
        "correction_tallies": lambda s: s.correction_tallies(),
        "corrected": lambda s: s.corrected(),
        "rule_evidence": lambda s: s.rule_evidence(),
        "update_alerts": lambda s: s.update_alerts("item-1", [AlertHit("food_safety", "home")]),
        "update_structure": lambda s: s.update_structure(
            "item-1", MODEL, structure_failed=False, salvage_notes=[], needs_review=False, review_flags=[]
        ),
    },
    Outbox: {
        "claim": lambda s: s.claim("t", 30.0),
        "delivered": lambda s: s.delivered(ROW, AT),
        "give_up": lambda s: s.give_up(ROW, state="failed", error="x"),
        "release": lambda s: s.release(ROW),
        "renew": lambda s: s.renew(ROW, 30.0),
        "retry": lambda s: s.retry(ROW, in_s=1.0, error="x"),
        "rows_for": lambda s: s.rows_for("item-1"),
        "stats": lambda s: s.stats(),
    },
    StructureQueue: {
        "backlog": lambda s: s.backlog(),
        "refined_since": lambda s: s.refined_since("2026-11-30T10:00:00.0000000+00:00", None),
        "claim": lambda s: s.claim("t", 30.0),
        "finish": lambda s: s.finish(
            CLAIM, MODEL, structure_failed=False, salvage_notes=[], needs_review=False, review_flags=[]
        ),
        "release": lambda s: s.release(CLAIM, retry_in_s=0, refund_attempt=True),
        "renew": lambda s: s.renew(CLAIM, 30.0),
    },
    AccountStore: {
        "add_local": lambda s: s.add_local("kaisa", "Kaisa", "hash", (Grant("clerk", "*"),)),
        "brief_readers": lambda s: s.brief_readers(),
        "by_username": lambda s: s.by_username("kaisa"),
        "change_grant": lambda s: s.change_grant("kaisa", Grant("clerk", "*"), add=True),
        "change_password": lambda s: s.change_password("a1", "hash", keeps="h"),
        "count": lambda s: s.count(),
        "granted": lambda s: s.granted(("manager",), "s1"),
        "manager_addresses": lambda s: s.manager_addresses("s1"),
        "mail_choice": lambda s: s.mail_choice("kaisa"),
        "open_session": lambda s: s.open_session("a1", "h", 60),
        "person": lambda s: s.person("a1"),
        "record_refused": lambda s: s.record_refused("kaisa", "wrong"),
        "reset_password": lambda s: s.reset_password("kaisa", "hash"),
        "revoke_session": lambda s: s.revoke_session("h"),
        "session_person": lambda s: s.session_person("h"),
        "set_disabled": lambda s: s.set_disabled("kaisa", True),
        "set_mail_choice": lambda s: s.set_mail_choice("kaisa", MailChoice("k@shop.example", "fi", "weekly")),
        "upsert_external": lambda s: s.upsert_external("oidc", "sub", "kaisa", "Kaisa", None, ()),
    },
}
#: Reached through the base class by every store class.
BASE_CALLS: dict[str, Call] = {
    "connection": lambda s: _entered(s.connection()),
    "transaction": lambda s: _entered(s.transaction()),
}
#: Closing the pool never reaches the database, so it has nothing to translate.
NEVER_REACH_THE_DATABASE = {"aclose"}


def _store_classes() -> set[type[StoreBase]]:
    for module in pkgutil.iter_modules(feedback_intelligence.store.__path__):
        importlib.import_module(f"feedback_intelligence.store.{module.name}")
    found: set[type[StoreBase]] = set()
    pending = list(StoreBase.__subclasses__())
    while pending:
        cls = pending.pop()
        found.add(cls)
        pending.extend(cls.__subclasses__())
    return found - {StoreView}


def _public_methods(cls: type) -> set[str]:
    return {name for name, value in inspect.getmembers(cls) if not name.startswith("_") and callable(value)}


@pytest.fixture
def broken(tmp_path: Path) -> FeedbackStore:
    """A store whose every connection attempt meets SQLite's own error for a file it cannot open."""
    store = FeedbackStore(
        f"sqlite+aiosqlite:///{tmp_path / 'live.db'}", name="live", derive=DomainDeriver(load_domain("retail"))
    )

    def refuse(*_: Any) -> None:
        raise sqlite3.OperationalError("unable to open database file")

    event.listen(store.engine.sync_engine, "do_connect", refuse)
    return store


def test_every_store_class_and_every_public_method_has_its_call_here() -> None:
    assert _store_classes() == set(CALLS)
    for cls, calls in CALLS.items():
        assert _public_methods(cls) == set(calls) | set(BASE_CALLS) | (NEVER_REACH_THE_DATABASE & _public_methods(cls))


@pytest.mark.parametrize(
    ("cls", "method"),
    [(cls, name) for cls, calls in CALLS.items() for name in [*calls, *BASE_CALLS]],
    ids=lambda value: value if isinstance(value, str) else value.__name__,
)
async def test_a_database_that_is_not_there_raises_the_stores_unavailability(
    broken: FeedbackStore, cls: type[StoreBase], method: str
) -> None:
    store: Any = broken if cls is FeedbackStore else cls(broken)
    call = CALLS[cls].get(method) or BASE_CALLS[method]
    try:
        with pytest.raises(StoreUnavailable) as raised:
            await call(store)
    finally:
        await broken.aclose()
    assert raised.type is StoreUnavailable and raised.value.store == "live"
    assert "unable to open database file" in raised.value.detail  # SQLite's OperationalError, as it said it


async def test_a_full_disk_is_recorded_on_the_channels_store_and_a_save_clears_it(tmp_path: Path) -> None:
    """Through a view (the queue) as through the store: the fault is the store's, read by /admin/status."""
    store = FeedbackStore(f"sqlite+aiosqlite:///{tmp_path / 'live.db'}", name="live")
    await store.migrate()
    queue = StructureQueue(store)

    class DiskFull(OSError):
        def __init__(self) -> None:
            super().__init__(28, "No space left on device")  # ENOSPC

    async def full(*_: Any, **__: Any) -> None:
        raise DiskFull()

    try:
        with pytest.raises(StoreFull):
            async with queue.transaction():
                await full()
        assert store.storage_fault == "[Errno 28] No space left on device"
        await store.insert(ITEM)  # a write that adds a row: there is room again
        assert store.storage_fault is None
    finally:
        await store.aclose()


async def test_a_refusal_and_a_bad_write_go_through_untranslated(tmp_path: Path) -> None:
    store = FeedbackStore(f"sqlite+aiosqlite:///{tmp_path / 'live.db'}", name="live")
    await store.migrate()
    try:
        await store.insert(ITEM)
        with pytest.raises(DuplicateId):
            await store.insert(ITEM)
        with pytest.raises(IntegrityError):  # a bad write is a bug, never an outage
            async with store.transaction() as conn:
                await conn.exec_driver_sql("INSERT INTO counters (name, value) VALUES (NULL, 1)")
    finally:
        await store.aclose()

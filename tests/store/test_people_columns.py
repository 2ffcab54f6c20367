"""Store-scoped reads (ADR 0035), on SQLite and PostgreSQL: an item's author is written and kept by the
worker's and a correction's writes, "mine" reads by author, and the case list and its counts narrow to
one store by the item's store; the account store's audit rows commit with their change."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import select

from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.records import StoredFeedback, Structure
from feedback_intelligence.store import cases
from feedback_intelligence.store.accounts import AccountStore, Grant
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.schema import audit_log
from tests.support.databases import migrated_url
from tests.support.kinds import DATABASE_KINDS

TS = "2026-11-01T08:00:00.0000000+00:00"
STRUCTURE = Structure("muu", "jono", "low", "complaint", "fi")


@pytest.fixture(params=DATABASE_KINDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[FeedbackStore]:
    if request.param == "sqlite":
        s = FeedbackStore(migrated_url(tmp_path), name="live")
        await s.migrate()
        yield s
        await s.aclose()
    else:
        async with postgres_database("fi_people") as url:
            s = FeedbackStore(url, name="live")
            await s.migrate()
            yield s
            await s.aclose()


def _item(feedback_id: str, store: str, author: str | None, minute: int) -> StoredFeedback:
    ts = TS.replace("08:00", f"08:{minute:02d}")
    return StoredFeedback(feedback_id, "desk", "teksti", ts, ts, STRUCTURE, store=store, author=author)


async def test_the_author_is_kept_by_later_writes_and_mine_reads_by_it(store: FeedbackStore) -> None:
    for n, (feedback_id, shop, author) in enumerate(
        [("a-1", "s1", "account:a"), ("b-1", "s1", "account:b"), ("a-2", "s2", "account:a")]
    ):
        await store.insert(_item(feedback_id, shop, author, n))
    await store.update_structure(
        "a-1", STRUCTURE, structure_failed=False, salvage_notes=[], needs_review=False, review_flags=[]
    )
    await store.correct("a-1", {"store": "s1"}, expected_revision=None, entries=[])
    assert (await store.get("a-1")).author == "account:a"  # type: ignore[union-attr]
    assert [i.id for i in await store.query(author="account:a")] == ["a-2", "a-1"]
    assert [i.id for i in await store.query(author="account:a", store="s1")] == ["a-1"]


async def test_cases_and_their_counts_narrow_to_the_items_store(store: FeedbackStore) -> None:
    for n, (feedback_id, shop) in enumerate([("c-1", "s1"), ("c-2", "s2"), ("c-3", "s1")]):
        await store.insert(_item(feedback_id, shop, None, n))
    async with store.engine.begin() as conn:
        for feedback_id in ("c-1", "c-2", "c-3"):
            await cases.open_case(conn, feedback_id, TS)
    async with store.engine.connect() as conn:
        assert [c.feedback_id for c in await cases.listed(conn, store="s1")] == ["c-1", "c-3"]
        assert (await cases.counts(conn, "s1"))["open"] == 2
        assert (await cases.counts(conn))["open"] == 3


async def test_account_changes_and_sessions_commit_their_audit_rows(store: FeedbackStore) -> None:
    accounts = AccountStore(store)
    account_id = await accounts.add_local("Kaisa", "Kaisa", "argon2-hash-not-a-password", (Grant("clerk", "s1"),))
    await accounts.change_grant("kaisa", Grant("manager", "s1"), add=True)
    await accounts.change_grant("kaisa", Grant("manager", "s1"), add=True)  # held already: no row
    await accounts.open_session(account_id, "f" * 64, 3600)
    assert await accounts.revoke_session("f" * 64)
    assert not await accounts.revoke_session("f" * 64)  # already ended: no second row
    async with store.engine.connect() as conn:
        rows = (await conn.execute(select(audit_log).order_by(audit_log.c.id))).all()
    assert [(r.action, r.field, r.new_value) for r in rows] == [
        ("account.add", account_id, "kaisa"),
        ("account.grant", account_id, "clerk:s1"),
        ("account.grant", account_id, "manager:s1"),
        ("session.signin", None, "local"),
        ("session.signout", None, None),
    ]
    assert all("f" * 16 not in str(tuple(r)) and "argon2" not in str(tuple(r)) for r in rows)


async def test_disabling_ends_the_sessions_and_writes_one_row_a_change(store: FeedbackStore) -> None:
    accounts = AccountStore(store)
    account_id = await accounts.add_local("Leena", "Leena", "argon2-hash-not-a-password", (Grant("clerk", "s1"),))
    await accounts.open_session(account_id, "a" * 64, 3600)
    await accounts.open_session(account_id, "b" * 64, 3600)
    assert await accounts.set_disabled("LEENA", True) == (True, 2)
    assert await accounts.set_disabled("leena", True) == (True, 0)  # already: no row
    assert await accounts.session_person("a" * 64) is None and await accounts.person(account_id) is None
    assert await accounts.set_disabled("leena", False) == (False, 0)
    assert await accounts.session_person("b" * 64) is None  # enabling again revives no ended session
    assert (await accounts.person(account_id)) is not None
    assert await accounts.set_disabled("nobody", True) is None
    async with store.engine.connect() as conn:
        rows = (await conn.execute(select(audit_log).order_by(audit_log.c.id))).all()
    assert [(r.action, r.field, r.new_value) for r in rows if r.action.startswith("account.")][-2:] == [
        ("account.disable", account_id, "leena"),
        ("account.enable", account_id, "leena"),
    ]


async def test_a_password_change_keeps_its_session_and_a_reset_ends_all(store: FeedbackStore) -> None:
    accounts = AccountStore(store)
    account_id = await accounts.add_local("Ｋａｉｓａ", "Kaisa", "hash-1", (Grant("clerk", "s1"),))
    assert (await accounts.by_username("KAISA")) is not None  # stored as NFKC, case folded: kaisa
    for session in ("a", "b", "c"):
        await accounts.open_session(account_id, session * 64, 3600)
    assert await accounts.change_password(account_id, "hash-2", keeps="a" * 64) == 2
    assert await accounts.session_person("a" * 64) is not None
    assert await accounts.session_person("b" * 64) is None and await accounts.session_person("c" * 64) is None
    assert (await accounts.by_username("kaisa")).password_hash == "hash-2"  # type: ignore[union-attr]
    assert await accounts.reset_password("ｋａｉｓａ", "hash-3") == 1
    assert await accounts.session_person("a" * 64) is None
    assert await accounts.reset_password("nobody", "hash-4") is None
    async with store.engine.connect() as conn:
        rows = (await conn.execute(select(audit_log).order_by(audit_log.c.id))).all()
    changes = [(r.action, r.actor_kind, r.new_value, r.reason) for r in rows if r.action.startswith("account.password")]
    assert changes == [
        ("account.password_change", "account", "kaisa", "sessions ended: 2"),
        ("account.password_reset", "operator", "kaisa", "sessions ended: 1"),
    ]
    assert not [r for r in rows if "hash-" in str(tuple(r))]

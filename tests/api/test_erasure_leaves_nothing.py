"""An erasure leaves nothing of the item (ADR 0039), on SQLite and PostgreSQL: no table of either channel's
database holds a word of it afterwards (the report's rollups, the audit log's old values and the cases
included), and its id is refused by both channels, a single save and a batch alike, with ``erased``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import MetaData, select

from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.schema import feedback_daily, feedback_hourly, theme_daily
from feedback_intelligence.store.tombstones import Tombstone
from tests.support.people import (
    ACCEPTED,
    LOOPBACK,
    add_user,
    client,
    csrf,
    desk_entry,
    people_settings,
    running_app,
    sign_in,
)
from tests.support.tcp_proxy import TcpProxy

#: A made-up surname: in the text, the theme ("vörskälän kaatua" in base form), a case note and a
#: dismissal's reason. Found nowhere after the erasure, in any spelling a column may keep it in.
SURNAME = "Vörskälä"
TEXT = f"Asiakas {SURNAME} kaatui kassalla, {SURNAME}n kaatuminen sattui märällä lattialla. Puh 0407654321."
THEME = f"{SURNAME}n kaatuminen"
NEEDLES = (SURNAME.casefold(), json.dumps(SURNAME.casefold())[1:-1], "0407654321")


async def tables_holding_the_item(store: FeedbackStore) -> dict[str, list[str]]:
    """Every table of the database (reflected, so a table added later is scanned too) → the rows of it
    in which a needle appears, each row as text: every column, text and JSON alike."""
    metadata = MetaData()
    async with store.engine.connect() as conn:
        await conn.run_sync(metadata.reflect)
        found: dict[str, list[str]] = {}
        for table in metadata.sorted_tables:
            for row in (await conn.execute(select(table))).all():
                shown = " | ".join(str(value) for value in row).casefold()
                if any(needle in shown for needle in NEEDLES):
                    found.setdefault(table.name, []).append(shown)
    return found


async def theme_is_shown(store: FeedbackStore) -> bool:
    return "theme_daily" in await tables_holding_the_item(store)


async def test_after_an_erasure_no_table_of_either_database_holds_a_word_of_the_item(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    settings = people_settings(tmp_path, rate_limit="1000/60seconds", **databases)
    async with running_app(settings) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        await add_user(app, "pia", ("manager", "*"))
        channels = app.state.runtime.channels
        async with client(app) as clerk, client(app) as manager:
            await sign_in(clerk, "kaisa")
            await sign_in(manager, "pia")
            entry = desk_entry("desk-whole-1", TEXT, acceptedStructure={**ACCEPTED, "theme": THEME})
            entry.pop("timestamp")  # now: a recent alert opens a case
            saved = await clerk.post("/live/feedback", json=entry, headers=csrf(clerk))
            assert saved.status_code == 201, saved.text
            ref = "live:desk-whole-1"
            note = await manager.post(
                f"/cases/{ref}/notes", json={"text": f"Soitin {SURNAME}lle."}, headers=csrf(manager)
            )
            assert note.status_code == 201, note.text
            dismissed = await manager.post(
                f"/cases/{ref}/actions",
                json={"action": "dismiss", "reason": f"{SURNAME} ei halua yhteydenottoa"},
                headers=csrf(manager),
            )
            assert dismissed.status_code == 200, dismissed.text
            assert await theme_is_shown(channels["live"].store)  # the scan sees the theme where it is
            # the clerk corrects the theme: the surname is the audit row's old value, the new theme's row
            # in the rollups is the item's alone
            fixed = await clerk.patch("/live/feedback/desk-whole-1", json={"theme": "kaatuminen"}, headers=csrf(clerk))
            assert fixed.status_code == 200, fixed.text
            holding = await tables_holding_the_item(channels["live"].store)
            assert {"feedback", "audit_log", "case_notes", "cases"} <= holding.keys(), holding.keys()

            erased = await manager.delete("/live/feedback/desk-whole-1", headers=csrf(manager))
            assert erased.status_code == 204

            for name, channel in channels.items():
                assert await tables_holding_the_item(channel.store) == {}, name
            async with channels["live"].store.engine.connect() as conn:
                for table in (theme_daily, feedback_daily, feedback_hourly):  # only the item was counted there
                    assert (await conn.execute(select(table))).all() == [], table.name
            audit = (await manager.get("/audit")).json()["entries"]
            item_rows = [e for e in audit if e["ref"] == ref]
            assert item_rows[0]["action"] == "item.erase"  # newest first
            theme_rows = [e for e in item_rows if e["field"] == "theme"]
            assert theme_rows and all(e["oldValue"] is None and e["newValue"] is None for e in theme_rows)
    if not databases:  # SQLite: the dump an operator takes carries none of it either
        for db in (tmp_path / "feedback.db", tmp_path / "live.db"):
            with sqlite3.connect(db) as conn:
                dump = "\n".join(conn.iterdump()).casefold()
            assert not [needle for needle in NEEDLES if needle in dump], db


# -- the id is refused in every channel ---------------------------------------------------------------

CHANNELS = {"live": ("/live/feedback", "/live/feedback/batch"), "corpus": ("/feedback", "/feedback/batch")}


def _item(feedback_id: str) -> dict[str, Any]:
    return {"id": feedback_id, "source": "email", "text": "Maito oli hapanta.", "acceptedStructure": ACCEPTED}


async def _refused_everywhere(operator: Any, feedback_id: str) -> None:
    """A single save and a batch (the id twice, as a retried line would) of ``feedback_id`` into each
    channel: 410 ``erased`` and a batch result ``erased`` for each, nothing stored."""
    for single, batch in CHANNELS.values():
        again = await operator.post(single, json=_item(feedback_id))
        assert (again.status_code, again.json()) == (410, {"error": "erased", "id": feedback_id}), single
        answer = (await operator.post(batch, json={"items": [_item(feedback_id), _item(feedback_id)]})).json()
        assert [r["status"] for r in answer["results"]] == ["erased", "erased"], batch
        assert (answer["erased"], answer["duplicate"], answer["accepted"], answer["created"]) == (2, 0, 0, 0)
        assert (await operator.get(f"{single}/{feedback_id}")).status_code == 410


async def test_an_erased_id_is_refused_by_both_channels_with_erased(tmp_path: Path, databases: dict[str, str]) -> None:
    settings = people_settings(tmp_path, rate_limit="1000/60seconds", **databases)
    async with running_app(settings) as app, client(app, LOOPBACK) as operator:
        for name, (single, _) in CHANNELS.items():
            feedback_id = f"gone-{name}"
            assert (await operator.post(single, json=_item(feedback_id))).status_code == 201
            assert (await operator.delete(f"{single}/{feedback_id}")).status_code == 204
        for name in CHANNELS:
            await _refused_everywhere(operator, f"gone-{name}")
        fresh = (await operator.post("/feedback/batch", json={"items": [_item("fresh-1")]})).json()
        assert [r["status"] for r in fresh["results"]] == ["created"]  # a batch still stores what is new


async def test_an_erasure_made_before_tombstones_were_shared_is_refused_everywhere_after_a_restart(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    """An id erased in one channel only (a tombstone in its database alone, as erasures left them before,
    or a spread an outage cut short): the next start gives every channel the tombstone."""
    settings = people_settings(tmp_path, rate_limit="1000/60seconds", **databases)
    async with running_app(settings) as app:
        live, corpus = (app.state.runtime.channels[name].store for name in ("live", "corpus"))
        await live.add_tombstones([Tombstone("gone-before", "2026-01-02T03:04:05.0000000+00:00", "s1")])
        assert not await corpus.erased("gone-before")
    async with running_app(settings) as app, client(app, LOOPBACK) as operator:
        await _refused_everywhere(operator, "gone-before")
        corpus = app.state.runtime.channels["corpus"].store
        assert await corpus.list_tombstones() == [Tombstone("gone-before", "2026-01-02T03:04:05.0000000+00:00", "s1")]


@pytest.mark.postgres
async def test_an_erasure_while_the_other_database_is_down_erases_nothing_and_a_retry_completes(
    tmp_path: Path,
) -> None:
    """The tombstone goes into the other channel's database first: with that database away the erasure
    answers 503 and the item is all there; once it is back the same erasure completes everywhere."""
    proxy = TcpProxy("127.0.0.1", 5432)
    proxy.start()
    try:
        async with postgres_database("fi_erase") as corpus, postgres_database("fi_erase") as live:
            through_proxy = corpus.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")
            settings = people_settings(
                tmp_path, rate_limit="1000/60seconds", database_url=through_proxy, live_database_url=live
            )
            async with running_app(settings) as app, client(app, LOOPBACK) as operator:
                assert (await operator.post("/live/feedback", json=_item("gone-later"))).status_code == 201
                proxy.cut()
                refused = await operator.delete("/live/feedback/gone-later")
                assert refused.status_code == 503, refused.text
                assert (await operator.get("/live/feedback/gone-later")).status_code == 200
                proxy.start()
                assert (await operator.delete("/live/feedback/gone-later")).status_code == 204
                await _refused_everywhere(operator, "gone-later")
    finally:
        proxy.close()

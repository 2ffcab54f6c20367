"""Correct and erase over the real app (FI_AUTH=local): who may, the statuses, the audit trail, and
after an erasure the text found nowhere (both SQLite databases as dumps and as bytes, the report,
the snapshot)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import select

from feedback_intelligence.store.schema import audit_log
from tests.support.clock import stamp
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

SECRET_TEXT = "Asiakas Ville Virtanen puh 0401234567 sai vatsakivun hapanta maitoa juotuaan."


def _dump(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return "\n".join(db.iterdump())


async def _audit(app, channel: str) -> list:
    """The item rows (the live log also holds the accounts' and sessions' rows)."""
    store = app.state.runtime.channels[channel].store
    async with store.engine.connect() as conn:
        statement = select(audit_log).where(audit_log.c.action.like("item.%")).order_by(audit_log.c.id)
        return (await conn.execute(statement)).all()


async def test_a_clerk_corrects_within_the_window_a_manager_erases_and_the_text_is_gone(tmp_path: Path) -> None:
    settings = people_settings(tmp_path, rate_limit="1000/60seconds")
    async with running_app(settings) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        await add_user(app, "pia", ("manager", "*"))
        async with client(app) as clerk, client(app) as manager, client(app, LOOPBACK) as operator:
            await sign_in(clerk, "kaisa")
            await sign_in(manager, "pia")
            saved = await clerk.post(
                "/live/feedback", json=desk_entry("desk-erase-1", SECRET_TEXT), headers=csrf(clerk)
            )
            assert saved.status_code == 201
            corpus = await operator.post(
                "/feedback",
                json={
                    "id": "corpus-erase-1",
                    "source": "email",
                    "text": SECRET_TEXT,
                    "timestamp": stamp(hours=25),
                    "acceptedStructure": ACCEPTED,
                },
            )
            assert corpus.status_code == 201, corpus.text
            assert (await operator.get("/report", params={"snapshot": "true"})).status_code == 200
            snapshot = tmp_path / "snapshots" / "report-latest.json"
            assert "corpus-erase-1" in snapshot.read_text()

            # the clerk corrects: a field with its values, the text as a fact; a stale If-Match is 412
            fixed = await clerk.patch(
                "/live/feedback/desk-erase-1", json={"severity": "critical"}, headers={**csrf(clerk), "If-Match": '"1"'}
            )
            assert fixed.status_code == 200, fixed.text
            assert fixed.json()["structure"]["severity"] == "critical" and fixed.headers["ETag"] == '"2"'
            stale = await clerk.patch(
                "/live/feedback/desk-erase-1", json={"severity": "low"}, headers={**csrf(clerk), "If-Match": '"1"'}
            )
            assert stale.status_code == 412 and stale.headers["ETag"] == '"2"'
            bad = await clerk.patch(
                "/live/feedback/desk-erase-1", json={"severity": "apocalyptic"}, headers=csrf(clerk)
            )
            assert bad.status_code == 400
            text_fix = await clerk.patch(
                "/live/feedback/desk-erase-1",
                json={"text": SECRET_TEXT.replace("Ville Virtanen", "X")},
                headers=csrf(clerk),
            )
            assert text_fix.status_code == 200
            rows = await _audit(app, "live")
            assert [(r.action, r.field, r.old_value, r.new_value) for r in rows] == [
                ("item.correct", "severity", "high", "critical"),
                ("item.correct", "text", None, None),  # the fact only: no copy of the words
            ]
            assert rows[0].actor_kind == "account" and rows[0].actor_name == "kaisa"

            # a manager erases: 204; then 410 on read, on a re-save, on a second erase
            assert (await manager.delete("/live/feedback/desk-erase-1", headers=csrf(manager))).status_code == 204
            assert (await operator.delete("/feedback/corpus-erase-1")).status_code == 204
            assert (await manager.get("/live/feedback/desk-erase-1")).status_code == 410
            assert (await operator.get("/feedback/corpus-erase-1")).status_code == 410
            again = await clerk.post(
                "/live/feedback", json=desk_entry("desk-erase-1", SECRET_TEXT), headers=csrf(clerk)
            )
            assert again.status_code == 410 and again.json() == {"error": "erased", "id": "desk-erase-1"}
            assert (
                await operator.post(
                    "/feedback",
                    json={"id": "corpus-erase-1", "source": "email", "text": "x", "acceptedStructure": ACCEPTED},
                )
            ).status_code == 410
            assert (await manager.delete("/live/feedback/desk-erase-1", headers=csrf(manager))).status_code == 410
            assert (await manager.delete("/live/feedback/nothing", headers=csrf(manager))).status_code == 404

            rows = await _audit(app, "live")
            assert [r.action for r in rows] == ["item.correct", "item.correct", "item.erase"]
            assert all(r.redacted and r.old_value is None and r.new_value is None for r in rows[:2])
            for path in ("/report", "/live/report"):
                answer = await manager.get(path)
                assert answer.status_code == 200 and "Virtanen" not in answer.text and "desk-erase-1" not in answer.text
        assert not (tmp_path / "snapshots" / "report-latest.json").exists()  # it cited the item
    for db in (tmp_path / "feedback.db", tmp_path / "live.db"):
        assert "Virtanen" not in _dump(db) and "0401234567" not in _dump(db)
        for file in db.parent.glob(db.name + "*"):  # the file, its WAL and shared memory, as bytes
            assert b"Virtanen" not in file.read_bytes(), file


async def test_who_may_change_an_entry(tmp_path: Path) -> None:
    settings = people_settings(tmp_path, correction_window_s=0, rate_limit="1000/60seconds")
    async with running_app(settings) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        await add_user(app, "pia", ("manager", "s1"))
        await add_user(app, "olli", ("manager", "s2"))
        async with client(app) as clerk, client(app) as manager, client(app) as other:
            await sign_in(clerk, "kaisa")
            await sign_in(manager, "pia")
            await sign_in(other, "olli")
            assert (
                await clerk.post("/live/feedback", json=desk_entry("desk-who-1"), headers=csrf(clerk))
            ).status_code == 201
            await app.state.runtime.channels["live"].store.correct(
                "desk-who-1", {"store": "s1"}, expected_revision=None, entries=[]
            )
            # the window is over: the clerk may not; the store's manager may; another store's may not (for
            # them it is out of reach, as for a read)
            late = await clerk.patch("/live/feedback/desk-who-1", json={"theme": "maito"}, headers=csrf(clerk))
            assert late.status_code == 403 and late.json()["error"] == "correction_window_passed"
            elsewhere = await other.patch("/live/feedback/desk-who-1", json={"theme": "maito"}, headers=csrf(other))
            assert elsewhere.status_code == 403 and elsewhere.json()["error"] == "store_forbidden"
            assert (await other.delete("/live/feedback/desk-who-1", headers=csrf(other))).status_code == 403
            assert (
                await manager.patch("/live/feedback/desk-who-1", json={"theme": "maito"}, headers=csrf(manager))
            ).status_code == 200
            no_csrf = await manager.delete("/live/feedback/desk-who-1")
            assert no_csrf.status_code == 403 and no_csrf.json()["error"] == "csrf_required"
            bad_match = await manager.patch(
                "/live/feedback/desk-who-1", json={"theme": "x"}, headers={**csrf(manager), "If-Match": "soon"}
            )
            assert bad_match.status_code == 400

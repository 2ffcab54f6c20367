"""Faults by name (ADR 0023): SQLite out of space reads as a storage fault, not as "cannot be reached".

The fault is SQLite's own ``SQLITE_FULL``: the live database's connections get ``PRAGMA
max_page_count`` at its current size, so the next write that needs a page fails exactly as on a full
disk ("database or disk is full"). The app is the real one in process (create_app, the whole edge).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI
from sqlalchemy import event

from feedback_intelligence.api.app import create_app
from feedback_intelligence.store.feedback_store import FeedbackStore
from tests.api.test_hardening import client, counting_backend, desk_entry, live_rows, running
from tests.edge.test_real_app import LOOPBACK, real_settings


class FullDisk:
    """Caps a SQLite store at its current page count on every (new) connection, until lifted."""

    def __init__(self, store: FeedbackStore) -> None:
        self.store = store
        self.pages: int | None = None

    def _cap(self, dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA page_count")
        pages = cursor.fetchone()[0]
        cursor.execute(f"PRAGMA max_page_count={pages}")
        cursor.close()

    async def fill(self) -> None:
        event.listen(self.store.engine.sync_engine, "connect", self._cap)
        await self.store.engine.dispose()  # every connection from now on is capped

    async def free(self) -> None:
        event.remove(self.store.engine.sync_engine, "connect", self._cap)
        await self.store.engine.dispose()


def live_store(app: FastAPI) -> FeedbackStore:
    return app.state.runtime.channels["live"].store


def big_entry(feedback_id: str) -> dict[str, Any]:
    return desk_entry(id=feedback_id, text="Maito oli hapanta. " * 40)  # needs new pages


async def test_a_full_disk_is_a_storage_fault_with_its_own_code_and_an_unhealthy_store(tmp_path: Path) -> None:
    settings = real_settings(tmp_path, structure_worker=False, rate_limit="1000/60seconds")
    app = create_app(settings, backend=counting_backend())
    async for _ in running(app):
        disk = FullDisk(live_store(app))
        async with client(app) as http, client(app, LOOPBACK) as operator:
            assert (await http.post("/live/feedback", json=big_entry("before"))).status_code == 201
            await disk.fill()
            answers = [await http.post("/live/feedback", json=big_entry(f"full-{n}")) for n in range(40)]
            codes = [a.status_code for a in answers]
            assert 503 in codes, "the capped database never filled"
            first_refusal = codes.index(503)
            assert set(codes[:first_refusal]) <= {201} and set(codes[first_refusal:]) == {503}, codes
            refused = answers[first_refusal:]
            body = refused[-1].json()
            assert body["error"] == "store_full" and body["store"] == "live"
            assert "disk" in body["message"] and "cannot be reached" not in body["message"]
            assert int(refused[-1].headers["Retry-After"]) >= 1
            status = (await operator.get("/admin/status")).json()["channels"]["live"]
            assert status["healthy"] is False and status["fault"] == "store_full"
            assert "full" in status["detail"]
            stored = {row["id"] for row in await live_rows(app)}  # reads still work, nothing half-written
            assert stored == {"before"} | {f"full-{n}" for n in range(first_refusal)}

            await disk.free()
            saved = await http.post("/live/feedback", json=big_entry("after"))
            assert saved.status_code == 201, saved.text
            status = (await operator.get("/admin/status")).json()["channels"]["live"]
            assert status["healthy"] is True and "fault" not in status
            assert {row["id"] for row in await live_rows(app)} == stored | {"after"}

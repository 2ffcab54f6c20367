"""The notify worker with its database cut and back: one warning when the store stops answering, one when it
answers again, no traceback, however many polls the cut lasts (workers/poll_loop.py)."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from tests.notify.support import rig
from tests.support.waiting import wait_for

WORKER_LOG = "feedback_intelligence.workers.notify_worker"


async def test_a_cut_database_is_one_line_and_its_return_one_more(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=WORKER_LOG)
    async with rig(tmp_path, []) as r:
        engine = r.channel.store.engine.sync_engine
        refused = 0

        def refuse(*_: Any) -> None:
            nonlocal refused
            refused += 1
            raise sqlite3.OperationalError("unable to open database file")

        async def cut_for_a_while() -> bool:
            return refused >= 10

        async def back() -> bool:
            return any("answers again" in record.getMessage() for record in caplog.records)

        await r.channel.store.engine.dispose()  # no pooled connection outlives the cut
        event.listen(engine, "do_connect", refuse)
        r.worker.start()
        await wait_for(cut_for_a_while, what="ten refused polls")
        event.remove(engine, "do_connect", refuse)
        await wait_for(back, what="the recovery line")
    lines = [record for record in caplog.records if record.name == WORKER_LOG and record.levelno >= logging.WARNING]
    assert len(lines) == 2, [record.getMessage() for record in lines]  # ten refused polls, two lines
    assert lines[0].getMessage().startswith("notify: store unavailable, retrying every 0.05 s")
    assert "unable to open database file" in lines[0].getMessage()
    assert lines[1].getMessage().startswith("notify: store answers again after ")
    assert all(record.exc_info is None for record in caplog.records)

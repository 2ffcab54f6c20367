"""Bulk import over HTTP with the batch pool on (docs/adr/0074): the runtime starts the workers with the
first batch, every item lands as through the service's thread, and the workers stop with the service."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.api.test_batch import app_with, item
from tests.api.test_hardening import STRUCTURE, client, counting_backend
from tests.edge.test_real_app import LOOPBACK

pytestmark = pytest.mark.process


async def test_a_batch_through_the_pool_is_stored_and_the_workers_stop_with_the_service(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    items = [item(n, **({"acceptedStructure": dict(STRUCTURE)} if n % 2 else {})) for n in range(250)]
    items.append(item(7, text="the same id again"))
    async for app in app_with(tmp_path, databases, counting_backend(), batch_processes=2):
        pool = app.state.runtime.batch_pool
        async with client(app, LOOPBACK) as operator:
            answer = await operator.post("/feedback/batch", json={"items": items})
            assert answer.status_code == 200, answer.text
            body = answer.json()
            assert (body["created"], body["accepted"], body["duplicate"]) == (125, 125, 1)
            workers = pool.worker_pids()
            assert len(workers) == 2
            stored = await app.state.runtime.channels["corpus"].store.get("h-7")
            assert stored is not None and stored.text == "Maito oli hapanta, kerta 7."
            assert await app.state.runtime.channels["corpus"].store.stale_count() == 0
    assert pool.worker_pids() == []
    assert all(map(_gone, workers))


def _gone(pid: int) -> bool:
    """No such process, or one that exited and waits to be reaped."""
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"

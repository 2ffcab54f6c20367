"""Faults by name (ADR 0023): the first save after PostgreSQL comes back succeeds.

The shared local PostgreSQL sits behind a TCP proxy this test cuts (every open connection reset, new
ones refused) and restores; the app's pooled connections all died meanwhile. The very first request
after the restore is a save, with no read before it to warm the pool.
"""

from __future__ import annotations

import httpx
import pytest

from feedback_intelligence.devtools.processes import app_server, sim_ollama
from tests.scale.conftest import desk_entry, replica_env, unique_gate_name
from tests.support.tcp_proxy import TcpProxy

pytestmark = [pytest.mark.redis, pytest.mark.postgres]


def test_the_first_save_after_postgresql_returns_is_stored(pg_databases: tuple[str, str]) -> None:
    proxy = TcpProxy("127.0.0.1", 5432)
    proxy.start()
    corpus, live = (url.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}") for url in pg_databases)
    try:
        with sim_ollama(parallel=2, service_ms=50) as sim:
            env = replica_env(sim, (corpus, live), gate_name=unique_gate_name())
            with app_server(env) as app:
                for n in range(5):  # several pooled connections in use
                    saved = httpx.post(app.url + "/live/feedback", json=desk_entry(f"before-{n}"), timeout=10)
                    assert saved.status_code == 201
                proxy.cut()
                down = httpx.post(app.url + "/live/feedback", json=desk_entry("while-down"), timeout=30)
                assert down.status_code == 503 and down.json()["error"] == "store_unavailable"
                proxy.start()
                first = httpx.post(app.url + "/live/feedback", json=desk_entry("first-after"), timeout=30)
                assert first.status_code == 201, first.text
                rows = httpx.get(app.url + "/live/feedback", timeout=10).json()
                assert {row["id"] for row in rows} == {f"before-{n}" for n in range(5)} | {"first-after"}
    finally:
        proxy.close()

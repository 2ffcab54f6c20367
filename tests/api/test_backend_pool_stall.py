"""A frozen GPU among two, over real HTTP: it reads ``stalled`` on its own while the other serves."""

from __future__ import annotations

import asyncio
import signal

import httpx
import pytest

from feedback_intelligence.devtools.processes import app_server, sim_ollama
from tests.api.test_backend_pool_over_http import INTERPRET, health, interprets, pool_env, stats
from tests.support.waiting import wait_for_sync

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)


def states(body: dict) -> dict[str, str]:
    return {row["name"]: row["state"] for row in body["backends"]}


def test_a_frozen_backend_reads_stalled_while_the_other_keeps_serving() -> None:
    with (
        sim_ollama(parallel=2, service_ms=1000, extra=["--probe-ms", "50"]) as one,  # four calls meet in flight
        sim_ollama(parallel=2, service_ms=1000, extra=["--probe-ms", "50"]) as two,
        # the threshold is max(3 x mean hold, FI_HEALTH_TIMEOUT_S): about 3 s here
        app_server(pool_env(one, two, FI_HEALTH_TIMEOUT_S="1", FI_LLM_CALL_TIMEOUT_S="60")) as app,
    ):
        assert [r.status_code for r in asyncio.run(interprets(app, 4))] == [200] * 4  # a mean hold is learnt
        two.proc.send_signal(signal.SIGSTOP)  # gpu2 freezes: it accepts connections, finishes nothing
        try:

            async def scenario() -> tuple[list[httpx.Response], list[int], dict]:
                async with httpx.AsyncClient(base_url=app.url, timeout=60) as http:
                    # two land on each backend; gpu2's two hang
                    stuck = [asyncio.create_task(http.post("/interpret", json=INTERPRET)) for _ in range(4)]
                    await asyncio.to_thread(
                        wait_for_sync, lambda: states(health(app).json())["gpu2"] == "stalled", 20, "gpu2 stalled"
                    )
                    body = health(app).json()
                    later = [r.status_code for r in await interprets(app, 2)]  # served by gpu1 meanwhile
                    two.proc.send_signal(signal.SIGCONT)
                    return list(await asyncio.gather(*stuck)), later, body

            stuck, later, body = asyncio.run(scenario())
        finally:
            two.proc.send_signal(signal.SIGCONT)
        assert body["status"] == "ok" and body["degraded"] is True
        assert states(body) == {"gpu1": "ok", "gpu2": "stalled"}
        assert later == [200, 200]
        assert [r.status_code for r in stuck] == [200] * 4  # the frozen calls finish once it thaws
        wait_for_sync(lambda: states(health(app).json()) == {"gpu1": "ok", "gpu2": "ok"}, 20, "gpu2 ok again")
        metrics = httpx.get(app.url + "/metrics", timeout=10).text
        assert 'fi_backend_stalled{backend="gpu2"} 0.0' in metrics
        assert stats(one)["maxConcurrency"] <= 2 and stats(two)["maxConcurrency"] <= 2

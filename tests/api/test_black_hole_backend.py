"""A backend that fails fast must not become a black hole. A pool of ``good`` (a
sim-ollama) and ``evil``, a real HTTP server that answers ``/api/chat`` with
``500 {"error": "model runner has unexpectedly stopped"}`` while ``/api/tags`` and ``/api/ps`` look
healthy, behind the app as a real process."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from starlette.responses import JSONResponse

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.web.fake_api import ThreadedServer

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

INTERPRETS = 20
MODEL = "sim-model"


class Evil:
    """Ollama's model and tag routes as a healthy server answers them; every chat a 500."""

    def __init__(self) -> None:
        self.chats = 0
        app = FastAPI()

        @app.get("/api/tags")
        async def tags() -> dict[str, Any]:
            return {"models": [{"name": f"{MODEL}:latest", "model": f"{MODEL}:latest"}]}

        @app.get("/api/ps")
        async def ps() -> dict[str, Any]:
            return {"models": [{"name": f"{MODEL}:latest", "model": f"{MODEL}:latest"}]}

        @app.post("/api/chat")
        async def chat() -> JSONResponse:
            self.chats += 1
            return JSONResponse({"error": "model runner has unexpectedly stopped"}, status_code=500)

        self.server = ThreadedServer(app)


@pytest.fixture()
def pool() -> Iterator[tuple[ServerProcess, Evil, ServerProcess]]:
    evil = Evil()
    evil.server.start()
    try:
        with sim_ollama(parallel=2, max_queue=8, service_ms=300) as good:
            backends = [  # evil first: ties in load go its way, as they would by bad luck
                {"name": "evil", "kind": "ollama", "url": evil.server.url, "model": MODEL, "slots": 2},
                {"name": "good", "kind": "ollama", "url": good.url, "model": MODEL, "slots": 2},
            ]
            env = {
                "FI_LLM_BACKENDS": json.dumps(backends),
                "FI_LLM_ACQUIRE_TIMEOUT_MS": "500",
                "FI_HEALTH_CACHE_S": "0",
                "FI_BREAKER_FAILURES": "3",
                "FI_BREAKER_COOLDOWN_S": "60",  # no probe back in while the test runs
                "FI_MAX_INFLIGHT_LLM_PER_CLIENT": "8",
            }
            with app_server(env) as app:
                yield app, evil, good
    finally:
        evil.server.stop()


def test_interprets_are_answered_by_the_good_backend_and_health_names_the_failing_one(
    pool: tuple[ServerProcess, Evil, ServerProcess],
) -> None:
    app, evil, good = pool

    async def run() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=app.url, timeout=60) as http:
            answers: list[httpx.Response] = []
            for _ in range(INTERPRETS // 2):  # two clerks at a time
                answers += await asyncio.gather(
                    *(http.post("/interpret", json={"text": "Maito oli hapanta."}) for _ in range(2))
                )
            return answers

    answers = asyncio.run(run())
    ok = sum(1 for r in answers if r.status_code == 200)
    assert all(r.status_code in (200, 503) for r in answers), [r.text for r in answers]  # never a 500
    completed = httpx.get(good.url + "/sim/stats", timeout=5).json()["completed"]
    print(f"black hole: {ok}/{INTERPRETS} interprets answered 200; evil saw {evil.chats} chats; good {completed}")
    assert ok >= 0.95 * INTERPRETS  # every 200 came from good: evil never answers a chat
    assert evil.chats <= 3  # its run of failures, then out: the good backend serves the rest

    body = httpx.get(app.url + "/health", timeout=30).json()
    rows = {row["name"]: row for row in body["backends"]}
    assert body["status"] == "ok" and body["degraded"] is True
    assert rows["evil"]["state"] == "failing" and rows["good"]["state"] == "ok"
    metrics = httpx.get(app.url + "/metrics", timeout=10).text
    assert f'fi_backend_failures_total{{backend="evil",outcome="error"}} {float(evil.chats)}' in metrics

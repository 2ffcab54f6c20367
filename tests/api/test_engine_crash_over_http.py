"""The embedded engine killed mid-call, over real HTTP (docs/adr/0019-engine-out-of-process.md): the
service lives on, the call in flight gets its clean 503, a desk save meanwhile is kept, the engine comes
back by itself, and stopping the service (even by SIGKILL) leaves no engine behind."""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid
from pathlib import Path

import httpx
import pytest

from feedback_intelligence.devtools.processes import ServerProcess, app_server
from tests.support.waiting import wait_for, wait_for_sync

pytestmark = pytest.mark.embedded

ACCEPTED = {
    "category": "maito_kylma",
    "theme": "hapan maito",
    "severity": "high",
    "type": "complaint",
    "language": "fi",
}


def engine_pids(app: ServerProcess) -> list[int]:
    status = httpx.get(app.url + "/admin/status", timeout=10).json()
    return [row["pid"] for row in status["backend"]["engines"] if row["pid"]]


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(") ")[1][0] == "Z"  # a zombie no longer runs
    except FileNotFoundError:
        return True


def healthy(app: ServerProcess) -> bool:
    return httpx.get(app.url + "/health", timeout=30).status_code == 200


@pytest.mark.parametrize(("engine_signal", "service_signal"), [(signal.SIGKILL, "kill"), (signal.SIGSEGV, "stop")])
def test_an_engine_killed_during_an_interpret_takes_down_only_that_call(
    engine_signal: signal.Signals, service_signal: str
) -> None:
    with app_server({"FI_LLM_BACKEND": "embedded", "FI_LLM_SLOTS": "1", "FI_LLM_MAX_OUTPUT_TOKENS": "160"}) as app:
        wait_for_sync(lambda: healthy(app), 120, "the embedded engine to load")
        [pid] = engine_pids(app)

        async def scenario() -> tuple[httpx.Response, list[int], httpx.Response]:
            async with httpx.AsyncClient(base_url=app.url, timeout=60) as http:
                liveness: list[int] = []
                stop = asyncio.Event()

                async def watch_liveness() -> None:
                    while not stop.is_set():
                        liveness.append((await http.get("/livez", timeout=5)).status_code)
                        await asyncio.sleep(0.05)

                watcher = asyncio.create_task(watch_liveness())
                os.kill(pid, signal.SIGSTOP)  # frozen: the interpret below is certainly in flight when it dies
                interpret = asyncio.create_task(http.post("/interpret", json={"text": "Maito oli hapanta."}))

                async def admitted() -> bool:
                    return (await http.get("/admin/status")).json()["gate"]["inUse"] == 1

                await wait_for(admitted, 30, "the interpret to take its slot", poll_s=0.02)
                os.kill(pid, engine_signal)
                os.kill(pid, signal.SIGCONT)
                answered = await interpret
                saved = await http.post(
                    "/live/feedback",
                    json={
                        "id": f"desk-{uuid.uuid4().hex}",
                        "source": "desk",
                        "text": "Maito oli hapanta, sain vatsakivun.",
                        "acceptedStructure": ACCEPTED,
                    },
                )
                stop.set()
                await watcher
                return answered, liveness, saved

        answered, liveness, saved = asyncio.run(scenario())
        assert answered.status_code == 503, answered.text
        assert answered.json()["error"] == "llm_unavailable" and "Retry-After" in answered.headers
        assert liveness and set(liveness) == {200}
        assert saved.status_code == 201, saved.text
        listed = httpx.get(app.url + "/live/feedback", params={"limit": 100}, timeout=10).json()
        assert saved.json()["id"] in [row["id"] for row in listed]

        restarted_at = time.monotonic()
        wait_for_sync(lambda: healthy(app), 60, "the engine to answer again")
        assert time.monotonic() - restarted_at < 60
        body = httpx.get(app.url + "/health", timeout=30).json()
        [engine] = body["engines"]
        assert engine["state"] == "running" and engine["restarts"] == 1
        assert engine["lastExit"] == f"killed by {engine_signal.name}"
        again = httpx.post(app.url + "/interpret", json={"text": "Leipä oli homeessa."}, timeout=120)
        assert again.status_code == 200, again.text
        metrics = httpx.get(app.url + "/metrics", timeout=10).text
        assert (
            f'fi_engine_restarts_total{{backend="embedded",cause="{engine_signal.name}",engine="engine-0"}} 1.0'
            in metrics
        )
        assert 'fi_engine_rss_bytes{backend="embedded",engine="engine-0"}' in metrics

        [new_pid] = engine_pids(app)
        assert new_pid != pid
        if service_signal == "kill":
            app.kill()  # no shutdown code runs: the kernel must take the engine down with it
        else:
            app.stop()
        wait_for_sync(lambda: gone(new_pid), 10, "the engine to end with the service")


def test_a_gguf_that_cannot_load_leaves_the_service_up_and_health_naming_the_cause(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + os.urandom(4096))
    with app_server({"FI_LLM_BACKEND": "embedded", "FI_LLM_SLOTS": "1", "FI_LLM_MODEL": str(broken)}) as app:

        def crash_loop() -> bool:
            health = httpx.get(app.url + "/health", timeout=30)
            return health.status_code == 503 and health.json()["status"] == "llm_unavailable"

        wait_for_sync(crash_loop, 60, "the engine's crash loop to be reported")
        body = httpx.get(app.url + "/health", timeout=30).json()
        [engine] = body["engines"]
        assert engine["state"] == "crash_loop" and "FI_LLM_MODEL" in engine["reason"]
        assert "keeps crashing" in body["detail"]
        assert httpx.get(app.url + "/livez", timeout=5).status_code == 200
        answered = httpx.post(app.url + "/interpret", json={"text": "Maito oli hapanta."}, timeout=30)
        assert answered.status_code == 503 and answered.json()["error"] == "llm_unavailable"
        saved = httpx.post(
            app.url + "/live/feedback",
            json={"id": "kept-1", "source": "desk", "text": "Maito oli hapanta.", "acceptedStructure": ACCEPTED},
            timeout=10,
        )
        assert saved.status_code == 201
        assert "is in a crash loop" in app.log() and "is FI_LLM_MODEL a valid GGUF file?" in app.log()

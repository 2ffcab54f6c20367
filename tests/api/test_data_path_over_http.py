"""The data path over real HTTP: each endpoint degrades its own way (docs/invariants.md, invariant 5)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import httpx
import pytest

from feedback_intelligence.devtools.processes import ServerProcess, app_server, free_port, sim_ollama
from tests.api.test_gate_over_http import INTERPRET, ollama_env, sim_stats
from tests.support.clock import stamp
from tests.support.waiting import wait_for_sync

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

ACCEPTED = {
    "category": "maito_kylma",
    "theme": "hapan maito",
    "severity": "high",
    "type": "complaint",
    "language": "fi",
}


def desk_entry(**extra: object) -> dict:
    return {
        "id": f"desk-{uuid.uuid4().hex}",
        "source": "desk",
        "text": "Maito oli hapanta, sain vatsakivun.",
        "timestamp": stamp(hours=24),
        "acceptedStructure": ACCEPTED,
        **extra,
    }


def rows(app: ServerProcess, path: str = "/live/feedback") -> int:
    return len(httpx.get(app.url + path, params={"limit": 1000}, timeout=10).json())


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with sim_ollama(parallel=2, max_queue=8, service_ms=1200) as sim, app_server(ollama_env(sim)) as app:
        yield sim, app


@pytest.fixture(scope="module")
def down_app() -> Iterator[ServerProcess]:
    with app_server({"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}"}) as app:
        yield app


def test_ingest_while_the_gate_is_saturated_sheds_and_stores_nothing(stack) -> None:
    sim, app = stack

    async def scenario() -> httpx.Response:
        async with httpx.AsyncClient(base_url=app.url, timeout=30) as http:
            holders = [asyncio.create_task(http.post("/interpret", json=INTERPRET)) for _ in range(2)]
            await asyncio.to_thread(wait_for_sync, lambda: sim_stats(sim)["inFlight"] == 2, 10, "two calls in the sim")
            before = rows(app, "/feedback")
            shed = await http.post("/feedback", json={"id": "shed-1", "source": "email", "text": "Leipä oli homeessa."})
            assert rows(app, "/feedback") == before
            await asyncio.gather(*holders)
            return shed

    shed = asyncio.run(scenario())
    assert shed.status_code == 503 and "Retry-After" in shed.headers
    assert httpx.get(app.url + "/feedback/shed-1", timeout=5).status_code == 404
    # The client retries with the same id once the GPU has room: stored exactly once.
    again = httpx.post(
        app.url + "/feedback", json={"id": "shed-1", "source": "email", "text": "Leipä oli homeessa."}, timeout=30
    )
    assert again.status_code == 201
    assert (
        httpx.post(app.url + "/feedback", json={"id": "shed-1", "source": "email", "text": "x"}, timeout=30).status_code
        == 409
    )


def test_a_desk_save_with_an_accepted_structure_never_reaches_the_backend(stack) -> None:
    sim, app = stack
    before = sim_stats(sim)["requestsSeen"]
    entry = desk_entry(corrections=[{"field": "theme", "modelValue": "maito", "humanValue": "hapan maito"}])
    saved = httpx.post(app.url + "/live/feedback", json=entry, timeout=10)
    assert saved.status_code == 201
    assert saved.headers["Location"] == f"/live/feedback/{entry['id']}"
    assert sim_stats(sim)["requestsSeen"] == before
    stored = httpx.get(app.url + saved.headers["Location"], timeout=5).json()
    assert stored["structure"] == ACCEPTED
    assert stored["corrections"] == entry["corrections"]
    # The same save retried (a flaky network) never makes a second row.
    assert httpx.post(app.url + "/live/feedback", json=entry, timeout=10).status_code == 409


def test_live_version_moves_with_every_live_save(stack) -> None:
    _, app = stack
    before = httpx.get(app.url + "/live/version", timeout=5).json()["version"]
    assert httpx.post(app.url + "/live/feedback", json=desk_entry(), timeout=10).status_code == 201
    assert httpx.get(app.url + "/live/version", timeout=5).json()["version"] == before + 1


def test_with_the_backend_down_ingest_keeps_the_feedback_and_its_alerts(down_app: ServerProcess) -> None:
    text = "Liukastuin märällä lattialla ja sain haavan, veloititte myös kahdesti."
    created = httpx.post(
        down_app.url + "/feedback", json={"id": "down-1", "source": "web_form", "text": text}, timeout=30
    )
    assert created.status_code == 201
    body = created.json()
    assert body["structureFailed"] is True and body["structure"] is None
    assert {a["category"] for a in body["alerts"]} >= {"injury_safety", "payment"}
    assert any("llm call failed" in note for note in body["salvageNotes"])
    stored = httpx.get(down_app.url + "/feedback/down-1", timeout=5).json()
    assert stored["text"] == text


def test_with_the_backend_down_desk_saves_lists_and_schema_still_work(down_app: ServerProcess) -> None:
    assert httpx.post(down_app.url + "/live/feedback", json=desk_entry(), timeout=10).status_code == 201
    for path in ("/live/feedback", "/feedback", "/schema", "/live/version"):
        assert httpx.get(down_app.url + path, timeout=10).status_code == 200, path
    report = httpx.get(down_app.url + "/live/report", timeout=30)
    assert report.status_code == 200
    assert report.json()["totalItems"] >= 1


def test_interpret_with_the_backend_down_is_a_503_with_retry_after(down_app: ServerProcess) -> None:
    response = httpx.post(down_app.url + "/interpret", json=INTERPRET, timeout=30)
    assert response.status_code == 503
    assert response.json()["error"] == "llm_unavailable"
    assert int(response.headers["Retry-After"]) >= 1


def test_bad_input_is_a_clear_400_naming_each_rule(stack) -> None:
    _, app = stack
    response = httpx.post(
        app.url + "/feedback",
        json={"id": "bad id!", "source": "fax", "text": " ", "timestamp": "yesterday-ish"},
        timeout=10,
    )
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors == [
        "text must be non-empty.",
        "source must be one of [google_review, email, web_form, desk], got 'fax'.",
        "timestamp must be a parseable ISO-8601 instant, got 'yesterday-ish'.",
        "id must match [A-Za-z0-9._-], max 100 chars.",
    ]
    malformed = httpx.post(
        app.url + "/interpret", content=b'{"text": ', headers={"content-type": "application/json"}, timeout=10
    )
    assert malformed.status_code == 400 and "JSON" in malformed.json()["errors"][0]
    too_big = httpx.post(
        app.url + "/interpret", content=b"x" * 20_000, headers={"content-type": "application/json"}, timeout=10
    )
    assert too_big.status_code == 413
    wrong_type = httpx.post(app.url + "/interpret", json={"text": 42}, timeout=10)
    assert wrong_type.status_code == 400
    long_text = httpx.post(app.url + "/interpret", json={"text": "a" * 801}, timeout=10)
    assert long_text.json()["errors"] == ["text exceeds the 800-character cap (801)."]


def test_restructure_never_takes_the_slot_a_clerk_leaves_free(stack) -> None:
    sim, app = stack
    # A text no keyword rule claims, so the catch-all category stays and the row needs a pass.
    catch_all = desk_entry(
        text="Mihin aikaan olette auki jouluaattona?", acceptedStructure={**ACCEPTED, "category": "muu"}
    )
    assert httpx.post(app.url + "/live/feedback", json=catch_all, timeout=10).status_code == 201
    httpx.post(sim.url + "/sim/reset", timeout=5)

    async def scenario() -> tuple[httpx.Response, int]:
        async with httpx.AsyncClient(base_url=app.url, timeout=60) as http:
            clerk = asyncio.create_task(http.post("/interpret", json=INTERPRET))
            await asyncio.to_thread(wait_for_sync, lambda: sim_stats(sim)["inFlight"] == 1, 10, "the clerk's call")
            batch = await http.post("/live/restructure")
            concurrency = sim_stats(sim)["maxConcurrency"]
            assert (await clerk).status_code == 200
            return batch, concurrency

    batch, concurrency = asyncio.run(scenario())
    assert batch.status_code == 503
    assert batch.json()["restructured"] == 0
    assert concurrency == 1
    # On an idle gate the same pass runs and fixes the catch-all row.
    done = httpx.post(app.url + "/live/restructure", timeout=60)
    assert done.status_code == 200
    assert done.json()["restructured"] + done.json()["failed"] >= 1


def test_live_version_survives_a_restart(tmp_path) -> None:
    env = {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}"}
    with app_server(env, data_dir=tmp_path) as app:
        for _ in range(3):
            assert httpx.post(app.url + "/live/feedback", json=desk_entry(), timeout=10).status_code == 201
        before = httpx.get(app.url + "/live/version", timeout=5).json()["version"]
    with app_server(env, data_dir=tmp_path) as app:
        assert httpx.get(app.url + "/live/version", timeout=5).json()["version"] == before == 3
        assert rows(app) == 3

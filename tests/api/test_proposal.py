"""The rules' proposal (``POST /interpret/proposal``): a whole structure without the model, whatever the GPU does.

Over real HTTP with the gate saturated, and in-process behind the edge for its public-route duties.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from feedback_intelligence.api.app import create_app
from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from feedback_intelligence.llm.testing import FakeBackend
from tests.api.test_gate_over_http import INTERPRET, ollama_env, sim_stats
from tests.edge.test_real_app import STRANGER, client, real_settings, running
from tests.support.waiting import wait_for_sync

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

SLIPPED = "Asiakas kaatui märällä lattialla pullonpalautuksen luona ja satutti polvensa."


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with sim_ollama(parallel=2, max_queue=8, service_ms=2000) as sim, app_server(ollama_env(sim)) as app:
        yield sim, app


def test_a_proposal_answers_while_the_gate_is_full_and_never_reaches_the_model(stack) -> None:
    sim, app = stack

    async def scenario() -> tuple[httpx.Response, httpx.Response, int, int]:
        async with httpx.AsyncClient(base_url=app.url, timeout=30) as http:
            holders = [asyncio.create_task(http.post("/interpret", json=INTERPRET)) for _ in range(2)]
            await asyncio.to_thread(wait_for_sync, lambda: sim_stats(sim)["inFlight"] == 2, 10, "two calls in the sim")
            seen = sim_stats(sim)["requestsSeen"]
            shed = await http.post("/interpret", json={"text": SLIPPED})
            proposal = await http.post("/interpret/proposal", json={"text": SLIPPED})
            after = sim_stats(sim)["requestsSeen"]
            await asyncio.gather(*holders)
            return shed, proposal, seen, after

    shed, proposal, seen, after = asyncio.run(scenario())
    assert shed.status_code == 503  # the model is busy…
    assert proposal.status_code == 200  # …the rules are not
    assert after == seen  # the proposal never reached the backend
    body = proposal.json()
    structure = body["structure"]
    assert set(structure) >= {"category", "theme", "severity", "type", "sentiment", "language"}
    assert structure["language"] == "fi"
    assert structure["theme"].strip()
    assert "injury_safety" in body["alertCategories"]
    schema = httpx.get(app.url + "/schema", timeout=10).json()
    assert structure["category"] in schema["categories"]
    assert structure["severity"] in schema["severities"] and structure["type"] in schema["types"]
    assert structure["sentiment"] == schema["typeSentiment"][structure["type"]]


def test_a_proposal_takes_the_same_text_rules_as_interpret(stack) -> None:
    _, app = stack
    for bad in ({"text": "   "}, {"text": "x" * 5000}, {}, {"text": 7}):
        response = httpx.post(app.url + "/interpret/proposal", json=bad, timeout=10)
        assert response.status_code == 400, (bad, response.text)
        assert response.json()["errors"], bad


async def test_the_proposal_is_public_and_rate_limited_like_the_other_routes(tmp_path: Path) -> None:
    backend = FakeBackend(reply="{}")
    app = create_app(real_settings(tmp_path, rate_limit="2/60seconds"), backend=backend)
    async for _ in running(app):
        async with client(app, STRANGER) as http:
            answers = [await http.post("/interpret/proposal", json={"text": "Leipä oli homeessa."}) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert answers[0].headers["ratelimit-policy"] == "2;w=60"
    assert backend.calls == 0

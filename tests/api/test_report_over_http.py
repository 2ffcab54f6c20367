"""The report always renders: backend down or gate saturated, it answers 200 with its deterministic layer."""

from __future__ import annotations

import asyncio
import time

import httpx

from feedback_intelligence.devtools.processes import ServerProcess, app_server, free_port, sim_ollama
from tests.api.test_gate_over_http import INTERPRET, ollama_env, sim_stats, wait_for

ITEMS = [
    ("r-1", "Maito oli hapanta ja päiväys vasta huomenna.", "maito_kylma", "high"),
    ("r-2", "Jogurtti vanhentunut hyllyssä.", "maito_kylma", "medium"),
    ("r-3", "Liukastuin märällä lattialla, polvessa haava.", "tilat_siisteys", "critical"),
    ("r-4", "Leipähylly tyhjä illalla.", "leipa", "low"),
]


def seed(app: ServerProcess) -> None:
    for feedback_id, text, category, severity in ITEMS:
        body = {"id": feedback_id, "source": "email", "text": text,
                "acceptedStructure": {"category": category, "theme": "aihe", "severity": severity,
                                      "type": "complaint", "language": "fi"}}
        assert httpx.post(app.url + "/feedback", json=body, timeout=10).status_code == 201


def assert_deterministic_parts(body: dict) -> None:
    assert body["totalItems"] == len(ITEMS)
    assert [a["feedbackId"] for a in body["alerts"] if a["deterministicHits"]] == ["r-3"]
    rated = [t for t in body["themes"] if not t["unrated"]]
    assert {t["category"] for t in rated} == {"maito_kylma", "tilat_siisteys", "leipa"}
    assert sorted(i for t in rated for i in t["feedbackIds"]) == ["r-1", "r-2", "r-3", "r-4"]
    assert all(t["narrative"] and not t["narrativeFromLlm"] for t in rated)
    assert body["llmFallbackCount"] == len(rated)


def test_report_with_the_backend_down_renders_every_deterministic_part() -> None:
    with app_server({"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}"}) as app:
        seed(app)
        response = httpx.get(app.url + "/report", timeout=60)
        assert response.status_code == 200
        assert_deterministic_parts(response.json())


def test_report_under_a_saturated_gate_returns_fast_and_never_takes_a_desk_slot() -> None:
    with sim_ollama(parallel=2, service_ms=4000) as sim, app_server(
        ollama_env(sim, FI_REPORT_LLM_BUDGET="4", FI_REPORT_CACHE_SECONDS="0")
    ) as app:
        seed(app)

        async def scenario() -> tuple[httpx.Response, float, int]:
            async with httpx.AsyncClient(base_url=app.url, timeout=60) as http:
                clerks = [asyncio.create_task(http.post("/interpret", json=INTERPRET)) for _ in range(2)]
                await asyncio.to_thread(wait_for, lambda: sim_stats(sim)["inFlight"] == 2, 10, "two clerks' calls")
                seen = sim_stats(sim)["requestsSeen"]
                started = time.perf_counter()
                report = await http.get("/report")
                elapsed = time.perf_counter() - started
                extra_calls = sim_stats(sim)["requestsSeen"] - seen
                await asyncio.gather(*clerks)
                return report, elapsed, extra_calls

        report, elapsed, extra_calls = asyncio.run(scenario())
        assert report.status_code == 200
        assert_deterministic_parts(report.json())
        assert report.json()["llm"]["shed"] >= 1
        assert elapsed < 4 * 0.5  # within budget × acquire timeout
        assert extra_calls == 0

"""The report answers at once over real HTTP; prose arrives later, falls back honestly, never crosses windows."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from feedback_intelligence.devtools.processes import ServerProcess, app_server, free_port, sim_ollama
from tests.api.test_gate_over_http import INTERPRET, ollama_env, sim_stats
from tests.support.waiting import wait_for_sync

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

ITEMS = [
    ("r-1", "Maito oli hapanta ja päiväys vasta huomenna.", "maito_kylma", "high"),
    ("r-2", "Jogurtti vanhentunut hyllyssä.", "maito_kylma", "medium"),
    ("r-3", "Liukastuin märällä lattialla, polvessa haava.", "tilat_siisteys", "critical"),
    ("r-4", "Leipähylly tyhjä illalla.", "leipa", "low"),
]
RATED = {"maito_kylma", "tilat_siisteys", "leipa"}
SLOW_CALL_MS = 20_000  # a slow backend: each model call takes 20 s
FIRST_ANSWER_S = 0.3


def seed(app: ServerProcess) -> None:
    for feedback_id, text, category, severity in ITEMS:
        body = {
            "id": feedback_id,
            "source": "email",
            "text": text,
            "acceptedStructure": {
                "category": category,
                "theme": "aihe",
                "severity": severity,
                "type": "complaint",
                "language": "fi",
            },
        }
        assert httpx.post(app.url + "/feedback", json=body, timeout=10).status_code == 201


def window(days: float) -> dict[str, str]:
    """A window ending an hour from now (so seeded items fall in it), ``days`` long: one per cache bucket."""
    to = datetime.now(UTC) + timedelta(hours=1)
    return {"from": (to - timedelta(days=days)).isoformat(), "to": to.isoformat()}


def assert_deterministic_parts(body: dict) -> None:
    assert body["totalItems"] == len(ITEMS)
    assert [a["feedbackId"] for a in body["alerts"] if a["deterministicHits"]] == ["r-3"]
    hit = next(a for a in body["alerts"] if a["feedbackId"] == "r-3")["deterministicHits"]
    assert {"Liukastuin", "haava"} <= {w for h in hit for w in h["words"]}  # the customer's words, not stems
    assert {h["categoryLabel"] for h in hit} == {"loukkaantuminen tai turvallisuus"}
    rated = [t for t in body["themes"] if not t["unrated"]]
    assert {t["category"] for t in rated} == RATED
    assert all(t["categoryLabel"] and t["categoryLabel"] != t["category"] for t in rated)
    assert sorted(i for t in rated for i in t["feedbackIds"]) == ["r-1", "r-2", "r-3", "r-4"]
    assert all(t["narrative"] and t["title"] for t in rated)


def prose_states(body: dict) -> dict[str, dict]:
    return {t["category"]: t["prose"] for t in body["themes"] if not t["unrated"]}


def poll_until_done(http: httpx.Client, params: dict[str, str], timeout_s: float) -> tuple[dict, int]:
    """Ask again with If-None-Match until the prose is no longer pending; returns (report, 304s seen)."""
    first = http.get("/report", params=params)
    etag, body, not_modified = first.headers["etag"], first.json(), 0
    deadline = time.monotonic() + timeout_s
    while body["llm"]["status"] == "pending":
        assert time.monotonic() < deadline, f"prose still pending after {timeout_s} s"
        time.sleep(0.25)
        again = http.get("/report", params=params, headers={"If-None-Match": etag})
        if again.status_code == 304:
            not_modified += 1
            continue
        assert again.status_code == 200
        etag, body = again.headers["etag"], again.json()
    return body, not_modified


def test_a_new_window_answers_at_once_with_prose_pending_and_a_later_request_gets_the_prose() -> None:
    with (
        sim_ollama(parallel=2, service_ms=SLOW_CALL_MS) as sim,
        app_server(ollama_env(sim, FI_REPORT_LLM_BUDGET="1", FI_REPORT_ALERT_VERIFY_BUDGET="0")) as app,
    ):
        seed(app)
        with httpx.Client(base_url=app.url, timeout=30) as http:
            http.get("/schema")  # the process is warm; the report for these windows is not
            timings, answers = [], []
            for days in (7, 3):  # two windows never asked before
                started = time.perf_counter()
                response = http.get("/report", params=window(days))
                timings.append(time.perf_counter() - started)
                answers.append(response)
            for response in answers:
                assert response.status_code == 200 and response.headers["etag"]
                body = response.json()
                assert_deterministic_parts(body)
                # budget 1: only the biggest theme waits for the model; the others show their automatic
                # summary at once, with no "being written" (ADR 0028)
                assert body["llm"]["status"] == "pending" and body["llm"]["pending"] == ["maito_kylma"]
                states = prose_states(body)
                assert states["maito_kylma"]["status"] == "pending"
                assert {states[c]["status"] for c in RATED - {"maito_kylma"}} == {"automatic"}
            assert min(timings) < FIRST_ANSWER_S, timings  # the model takes 20 s per call
            assert max(timings) < SLOW_CALL_MS / 1000 / 4, timings

            done, not_modified = poll_until_done(http, window(7), timeout_s=90)
            assert not_modified >= 1  # asking again while nothing changed costs a 304
            assert_deterministic_parts(done)
            states = prose_states(done)
            assert all(state["status"] != "pending" for state in states.values())
            # budget 1: the biggest theme went to the model; the sim's one-word prose fails the length
            # guard, so the automatic summary stands with the reason; the others ran out of budget
            assert states["maito_kylma"] == {"status": "automatic", "reason": "too_short"}
            assert {states[c]["reason"] for c in RATED - {"maito_kylma"}} == {"budget"}
            assert done["llm"]["rejected"] == {"too_short": 1}
            assert sim_stats(sim)["requestsSeen"] >= 1

            metrics = http.get("/metrics").text
            assert 'fi_report_prose_rejected_total{reason="too_short"} 1.0' in metrics


def test_the_cache_never_serves_one_windows_prose_for_another() -> None:
    with (
        sim_ollama(parallel=2, service_ms=300) as sim,
        app_server(ollama_env(sim, FI_REPORT_LLM_BUDGET="1", FI_REPORT_ALERT_VERIFY_BUDGET="0")) as app,
    ):
        seed(app)
        with httpx.Client(base_url=app.url, timeout=30) as http:
            week, _ = poll_until_done(http, window(7), timeout_s=30)
            assert week["llm"]["status"] == "done"
            seen = sim_stats(sim)["requestsSeen"]
            fresh = http.get("/report", params=window(2)).json()
            assert fresh["llm"]["status"] == "pending"  # its own generation, not the week's prose
            assert fresh["windowFrom"] != week["windowFrom"]
            wait_for_sync(lambda: sim_stats(sim)["requestsSeen"] > seen, 10, "the second window's own model call")


def test_with_the_backend_down_the_report_renders_and_the_prose_falls_back_saying_why() -> None:
    with app_server({"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}"}) as app:
        seed(app)
        with httpx.Client(base_url=app.url, timeout=30) as http:
            first = http.get("/report", params=window(7))
            assert first.status_code == 200
            assert_deterministic_parts(first.json())
            done, _ = poll_until_done(http, window(7), timeout_s=30)
            assert_deterministic_parts(done)
            assert done["llm"]["stopped"] == "unavailable"
            assert all(
                state == {"status": "automatic", "reason": "unavailable"} for state in prose_states(done).values()
            )
            assert done["llmFallbackCount"] == len(RATED)
            assert all(not t["narrativeFromLlm"] for t in done["themes"])

            # The answer is typed in the API's own schema: a client can generate its model from it.
            schema = http.get("/openapi.json").json()
            for path in ("/report", "/live/report"):
                ok = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
                assert ok == {"$ref": "#/components/schemas/Report"}
            components = schema["components"]["schemas"]
            assert set(components["ProseState"]["properties"]["status"]["enum"]) == {"pending", "model", "automatic"}
            assert "prose" in components["Theme"]["required"] and "words" in components["AlertMatch"]["required"]


def test_report_under_a_saturated_gate_answers_at_once_never_takes_a_desk_slot_and_writes_later() -> None:
    with (
        sim_ollama(parallel=2, service_ms=4000) as sim,
        app_server(
            ollama_env(sim, FI_REPORT_LLM_BUDGET="4", FI_REPORT_ALERT_VERIFY_BUDGET="0", FI_REPORT_CACHE_SECONDS="0")
        ) as app,
    ):
        seed(app)

        async def scenario() -> tuple[httpx.Response, float, int, dict]:
            async with httpx.AsyncClient(base_url=app.url, timeout=60) as http:
                clerks = [asyncio.create_task(http.post("/interpret", json=INTERPRET)) for _ in range(2)]
                await asyncio.to_thread(wait_for_sync, lambda: sim_stats(sim)["inFlight"] == 2, 10, "two clerks' calls")
                seen = sim_stats(sim)["requestsSeen"]
                started = time.perf_counter()
                report = await http.get("/report")
                elapsed = time.perf_counter() - started
                await asyncio.sleep(1.0)  # the background generation tries the gate meanwhile and is shed
                during = (await http.get("/report")).json()
                extra_calls = sim_stats(sim)["requestsSeen"] - seen if sim_stats(sim)["inFlight"] == 2 else -1
                await asyncio.gather(*clerks)
                later = during
                while later["llm"]["status"] == "pending":  # retried once the desk's calls are done
                    await asyncio.sleep(0.25)
                    later = (await http.get("/report")).json()
                return report, elapsed, extra_calls, {"during": during, "later": later}

        report, elapsed, extra_calls, bodies = asyncio.run(scenario())
        assert report.status_code == 200
        assert_deterministic_parts(report.json())
        assert elapsed < 2.0  # never waits for the gate: the prose is background work
        assert extra_calls == 0  # while the clerks held both slots, the report took none
        assert bodies["during"]["llm"]["status"] == "pending"  # shed: pending, not given up
        later = bodies["later"]
        assert later["llm"]["stopped"] is None
        assert all(state["status"] != "pending" and state["reason"] != "busy" for state in prose_states(later).values())


# The broken prose a small model wrote into real reports, scripted per theme (matched by an item's words).
BROKEN_PROSE = {
    "maito_kylma": (
        "Maito oli hapanta",
        {
            "title": "Maito",
            "narrative": "Ottamio kielen kielen kielen kielen kielen kielen kielen.",
            "citedIds": ["r-1"],
        },
        "repetition",
    ),
    "tilat_siisteys": (
        "Liukastuin märällä",
        {
            "title": "keskustilä",
            "narrative": "keskustilä, keskustilä, keskustilä, keskustilä, keskustilä, keskustilä.",
            "citedIds": ["r-3"],
        },
        "repetition",
    ),
    "leipa": (
        "Leipähylly tyhjä",
        {
            "title": "leipa: PALAUTE_LOPPU",
            "narrative": "PALAUTE_LOPPU <<<ASIAKASPALAUTE>>> leipä.",
            "citedIds": ["r-4"],
        },
        "echo",
    ),
}


def test_broken_prose_from_the_model_never_reaches_the_manager(tmp_path) -> None:
    """Scripted over real HTTP: each broken reply is rejected; the automatic summary stands with its reason."""
    script = tmp_path / "prose.jsonl"
    script.write_text(
        "".join(
            json.dumps({"match": match, "reply": json.dumps(reply, ensure_ascii=False)}, ensure_ascii=False) + "\n"
            for match, reply, _ in BROKEN_PROSE.values()
        ),
        encoding="utf-8",
    )
    with (
        sim_ollama(parallel=2, service_ms=50, extra=["--replies", str(script)]) as sim,
        app_server(ollama_env(sim, FI_REPORT_LLM_BUDGET="3", FI_REPORT_ALERT_VERIFY_BUDGET="0")) as app,
    ):
        seed(app)
        with httpx.Client(base_url=app.url, timeout=30) as http:
            done, _ = poll_until_done(http, window(7), timeout_s=60)
            assert_deterministic_parts(done)
            states = prose_states(done)
            assert states == {
                category: {"status": "automatic", "reason": reason} for category, (_, _, reason) in BROKEN_PROSE.items()
            }
            shown = json.dumps(done["themes"], ensure_ascii=False).lower()
            for broken in ("kielen kielen", "keskustilä, keskustilä", "palaute_loppu", "<<<"):
                assert broken not in shown
            assert done["llm"]["rejected"] == {"repetition": 2, "echo": 1}
            metrics = http.get("/metrics").text
            assert 'fi_report_prose_rejected_total{reason="repetition"} 2.0' in metrics
            assert 'fi_report_prose_rejected_total{reason="echo"} 1.0' in metrics

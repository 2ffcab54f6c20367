"""Hardening the edges (ADR 0012), the real app in process: each test reproduces one finding of the hostile probe.

The app is the real one (create_app, the whole edge, SQLite or the local PostgreSQL); the LLM is a
backend double that counts its calls, so "before the gate" and "before the store" can be asserted.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from feedback_intelligence.api.app import create_app
from feedback_intelligence.api.models import CrossSiteBody
from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.llm.errors import LlmUnavailable
from feedback_intelligence.llm.testing import FakeBackend
from tests.edge.test_real_app import LOOPBACK, STRANGER, real_settings
from tests.support.kinds import DATABASE_KINDS
from tests.support.waiting import wait_for

STRUCTURE = {
    "category": "maito_kylma",
    "theme": "hapan maito",
    "severity": "high",
    "type": "complaint",
    "language": "fi",
}
REPLY = json.dumps(STRUCTURE)


def counting_backend(*, hold: bool = False, failure: BaseException | None = None) -> FakeBackend:
    """Answers a valid structure (or fails); counts calls; optionally holds every call until thawed."""
    return FakeBackend(
        reply=failure or REPLY,
        hold=asyncio.Event() if hold else None,
        kind="counting",
        model="counting",
        base_url="http://10.9.8.7:11434",
    )


async def running(app: FastAPI) -> AsyncIterator[FastAPI]:
    async with app.router.lifespan_context(app):
        yield app


def client(app: FastAPI, peer: tuple[str, int] = STRANGER, host: str = "fi.test") -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=peer), base_url=f"http://{host}")


def desk_entry(**extra: Any) -> dict[str, Any]:
    return {"source": "desk", "text": "Maito oli hapanta.", "acceptedStructure": dict(STRUCTURE), **extra}


async def post_json(http: httpx.AsyncClient, path: str, body: Any) -> httpx.Response:
    """POST with ASCII-escaped JSON, so lone surrogates travel as \\udXXX escapes, as a hostile client sends them."""
    return await http.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


async def live_rows(app: FastAPI) -> list[dict[str, Any]]:
    async with client(app, LOOPBACK) as operator:
        return (await operator.get("/live/feedback")).json()


# ── 1. NUL and lone surrogates: 400 naming the rule, before the gate and the store ──────────────


@pytest.mark.parametrize("raw", ['{"text":"abc \\ud800"}', '{"text":"maito\\u0000loppui"}', '{"text":"\\udfff"}'])
async def test_nul_and_lone_surrogates_in_an_interpret_are_400_before_the_gate(tmp_path: Path, raw: str) -> None:
    backend = counting_backend()
    app = create_app(real_settings(tmp_path), backend=backend)
    async for _ in running(app):
        async with client(app) as http:
            answer = await http.post("/interpret", content=raw, headers={"content-type": "application/json"})
    assert answer.status_code == 400
    (message,) = answer.json()["errors"]
    assert message.startswith("text: must not contain") and "U+" in message
    assert answer.json()["codes"] == [
        {"code": "text_nul_character" if "0000" in raw else "text_lone_surrogate", "field": "text"}
    ]
    assert backend.calls == 0


@pytest.mark.parametrize("store", DATABASE_KINDS)
async def test_nul_in_a_save_and_in_an_id_path_is_400_and_stores_nothing(tmp_path: Path, store: str) -> None:
    backend = counting_backend()
    if store == "postgres":
        async with postgres_database() as corpus, postgres_database() as live:
            await _nul_scenario(
                create_app(real_settings(tmp_path, database_url=corpus, live_database_url=live), backend=backend),
                backend,
            )
    else:
        await _nul_scenario(create_app(real_settings(tmp_path), backend=backend), backend)


async def _nul_scenario(app: FastAPI, backend: FakeBackend) -> None:
    async for _ in running(app):
        async with client(app) as http:
            llm_save = await http.post("/live/feedback", json={"source": "desk", "text": "maito\x00loppui"})
            desk_save = await post_json(http, "/live/feedback", desk_entry(text="abc \ud800"))
            by_id = await http.get("/live/feedback/%00")
            by_newline_id = await http.get("/live/feedback/abc%0A")
        assert [r.status_code for r in (llm_save, desk_save, by_id, by_newline_id)] == [400, 400, 400, 400]
        assert "U+0000" in llm_save.json()["errors"][0] and "surrogate" in desk_save.json()["errors"][0]
        assert by_id.json()["errors"] == ["id must match [A-Za-z0-9._-], max 100 chars."]
        assert backend.calls == 0 and await live_rows(app) == []


# ── 2. any failure of structuring but a shed stores the row structureFailed ──────────────────────


async def test_a_non_llm_exception_from_structuring_stores_the_row_structure_failed(tmp_path: Path) -> None:
    backend = counting_backend(failure=ValueError("invalid literal for int() with base 10: 'many'"))
    app = create_app(real_settings(tmp_path), backend=backend)
    async for _ in running(app):
        async with client(app) as http:
            saved = await http.post(
                "/live/feedback", json={"id": "odd-reply", "source": "desk", "text": "Maito oli hapanta."}
            )
        assert saved.status_code == 201, saved.text
        assert saved.json()["structureFailed"] is True
        (row,) = await live_rows(app)
        assert row["id"] == "odd-reply" and row["text"] == "Maito oli hapanta." and row["structureFailed"]
        assert "int()" not in json.dumps(row)  # the exception's text is logged, not published
        async with client(app, LOOPBACK) as operator:
            outcome = (await operator.post("/live/restructure")).json()
        assert outcome["failed"] == 1  # the pass kept going and said so, no 500


# ── 4. /health: one probe at a time, a short cache, charged like any public route ───────────────


async def test_concurrent_anonymous_health_checks_share_one_probe_and_leave_the_slots_to_clerks(tmp_path: Path) -> None:
    backend = counting_backend(hold=True)
    app = create_app(real_settings(tmp_path, llm_slots=2), backend=backend)
    async for _ in running(app):
        async with client(app) as http:
            checks = [
                asyncio.create_task(http.get("/health", headers={"X-Forwarded-For": f"198.51.100.{n}"}))
                for n in range(4)
            ]
            await wait_for(lambda: backend.running >= 1, what="the probe's call to reach the backend")
            probe_held, backend.hold = backend.hold, None  # the probe stays held; new calls pass
            clerk = await http.post("/interpret", json={"text": "Maito oli hapanta."})
            assert probe_held is not None
            probe_held.set()
            answers = await asyncio.gather(*checks)
            again = await http.get("/health")
        assert clerk.status_code == 200, clerk.text
        assert [a.status_code for a in answers] == [200] * 4
        assert again.json()["probe"] == "completed"
        assert backend.calls == 2  # one probe for the five checks, one interpret
        assert int(again.headers["ratelimit-remaining"]) < int(again.headers["ratelimit-limit"])


async def test_health_is_charged_to_a_strangers_rate_limit(tmp_path: Path) -> None:
    app = create_app(real_settings(tmp_path, rate_limit="3/60seconds"), backend=counting_backend())
    async for _ in running(app):
        async with client(app) as http:
            codes = [(await http.get("/health")).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]


# ── 6. allowed hosts and cross-site requests against the loopback operator ──────────────────────


async def test_a_rebound_host_name_is_refused_even_from_loopback(tmp_path: Path) -> None:
    app = create_app(real_settings(tmp_path, allowed_hosts=[]), backend=counting_backend())
    async for _ in running(app):
        async with client(app, LOOPBACK, host="evil.example") as rebound:
            restructure = await rebound.post("/live/restructure", headers={"Origin": "http://evil.example"})
            listing = await rebound.get("/feedback")
        async with client(app, LOOPBACK, host="127.0.0.1:8080") as operator:
            assert (await operator.get("/feedback")).status_code == 200
        async with client(app, LOOPBACK, host="localhost") as operator:
            assert (await operator.post("/live/restructure")).status_code == 200
    assert (restructure.status_code, listing.status_code) == (400, 400)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Origin": "http://evil.example"}, 403),
        ({"Origin": "null"}, 403),
        ({"Sec-Fetch-Site": "cross-site"}, 403),
        ({"Sec-Fetch-Site": "same-site"}, 403),
        ({"Origin": "http://127.0.0.1:8080", "Sec-Fetch-Site": "same-origin"}, 200),
        ({"Origin": "https://shop.example"}, 200),  # listed in FI_CORS_ORIGINS
        ({}, 200),  # a program: feedctl, curl
    ],
)
async def test_state_changes_from_another_site_are_refused(
    tmp_path: Path, headers: dict[str, str], expected: int
) -> None:
    app = create_app(
        real_settings(tmp_path, allowed_hosts=[], cors_origins=["https://shop.example"]), backend=counting_backend()
    )
    async for _ in running(app):
        async with client(app, LOOPBACK, host="127.0.0.1:8080") as operator:
            answer = await operator.post("/live/restructure", headers=headers)
            read = await operator.get("/feedback", headers=headers)  # reads are not state changes
    assert answer.status_code == expected, answer.text
    assert read.status_code == 200
    if expected == 403:
        assert CrossSiteBody.model_validate(answer.json()).error == "cross_site_request"


def test_every_state_change_documents_the_cross_site_refusal(tmp_path: Path) -> None:
    schema = create_app(real_settings(tmp_path), backend=counting_backend()).openapi()
    unsafe = [(path, op) for path, ops in schema["paths"].items() for method, op in ops.items() if method == "post"]
    assert len(unsafe) >= 5
    for path, operation in unsafe:
        refusal = operation["responses"].get("403")
        assert refusal is not None, f"POST {path} does not document the cross-site 403"
        assert refusal["content"]["application/json"]["schema"]["$ref"].endswith("/CrossSiteBody")
    assert "CrossSiteBody" in schema["components"]["schemas"]


# ── 8. a trailing newline is not a valid id ──────────────────────────────────────────────────────


async def test_an_id_with_a_trailing_newline_is_refused_and_not_stored(tmp_path: Path) -> None:
    app = create_app(real_settings(tmp_path), backend=counting_backend())
    async for _ in running(app):
        async with client(app) as http:
            answer = await http.post("/live/feedback", json=desk_entry(id="desk-1\n"))
            retry = await http.post("/live/feedback", json=desk_entry(id="desk-1"))
        assert answer.status_code == 400
        assert retry.status_code == 201 and retry.headers["location"] == "/live/feedback/desk-1"
        assert [row["id"] for row in await live_rows(app)] == ["desk-1"]


# ── 9. public bodies without internal addresses ─────────────────────────────────────────────────


async def test_an_unreachable_backend_is_described_without_its_address(tmp_path: Path) -> None:
    address = "http://10.9.8.7:11434"
    backend = counting_backend(failure=LlmUnavailable(f"Ollama at {address} is unreachable: ConnectError"))
    app = create_app(real_settings(tmp_path), backend=backend)
    async for _ in running(app):
        async with client(app) as http:
            health = await http.get("/health")
            interpret = await http.post("/interpret", json={"text": "Maito oli hapanta."})
            saved = await http.post("/live/feedback", json={"source": "desk", "text": "Maito oli hapanta."})
            listed = await http.get("/live/feedback")
        async with client(app, LOOPBACK) as operator:
            board = await operator.get("/admin/status")
    assert (health.status_code, interpret.status_code, saved.status_code) == (503, 503, 201)
    assert health.json()["status"] == "llm_unavailable"
    assert interpret.json()["detail"] == "the language model backend cannot be reached"
    assert listed.json()[0]["salvageNotes"] == ["llm call failed: the language model backend cannot be reached"]
    for public in (health, interpret, saved, listed):
        assert "10.9.8.7" not in public.text, public.text
    assert "10.9.8.7" in board.text  # the operator still sees where


# ── 10. bounds on stored free text ──────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "structure",
    [
        {"theme": "x" * 15_000},
        {"language": "<script>alert(1)</script>"},
        {"language": "fi; en"},
        {"theme": "\u200b\u200b"},
        {"category": "k" * 5_000},
    ],
)
async def test_a_desk_save_with_an_unbounded_or_malformed_field_is_refused(
    tmp_path: Path, structure: dict[str, str]
) -> None:
    app = create_app(real_settings(tmp_path), backend=counting_backend())
    async for _ in running(app):
        async with client(app) as http:
            answer = await http.post("/live/feedback", json=desk_entry(acceptedStructure={**STRUCTURE, **structure}))
        assert answer.status_code == 400, answer.text
        assert len(answer.text) < 2_000  # the refusal does not echo the 15,000 characters back
        assert await live_rows(app) == []


async def test_bidi_and_zero_width_characters_are_dropped_from_a_saved_text(tmp_path: Path) -> None:
    app = create_app(real_settings(tmp_path), backend=counting_backend())
    async for _ in running(app):
        async with client(app) as http:
            blank = await http.post("/live/feedback", json=desk_entry(text="\u200b\u2060\ufeff"))
            saved = await http.post(
                "/live/feedback",
                json=desk_entry(
                    text="Maito\u202e oli\u200b hapanta", acceptedStructure={**STRUCTURE, "theme": "hapan\u2066 maito"}
                ),
            )
        assert blank.status_code == 400 and blank.json()["errors"] == ["text must be non-empty."]
        assert saved.status_code == 201
        (row,) = await live_rows(app)
        assert (row["text"], row["structure"]["theme"]) == ("Maito oli hapanta", "hapan maito")


# ── 12. HEAD on the probes ──────────────────────────────────────────────────────────────────────


async def test_head_on_health_and_livez_answers_like_get_without_a_body(tmp_path: Path) -> None:
    app = create_app(real_settings(tmp_path), backend=counting_backend())
    async for _ in running(app):
        async with client(app) as http:
            answers = [await http.head(path) for path in ("/health", "/livez")]
    assert [a.status_code for a in answers] == [200, 200]
    assert all(a.headers["content-type"] == "application/json" for a in answers)


async def test_the_operator_board_names_whose_calls_held_the_slots(tmp_path: Path) -> None:
    app = create_app(real_settings(tmp_path), backend=counting_backend())
    async for _ in running(app):
        async with client(app) as http:
            assert (await http.post("/interpret", json={"text": "Maito oli hapanta."})).status_code == 200
            assert (await http.get("/health")).status_code == 200  # its probe is nobody's own call
        async with client(app, LOOPBACK) as operator:
            board = (await operator.get("/admin/status")).json()
        async with client(app) as http:
            hidden = await http.get("/admin/status")
    shares = board["gate"]["largestShares"]
    assert sorted(share["visitor"] for share in shares) == sorted([f"client:{STRANGER[0]}", "probe:health"])
    assert shares[0]["slotSeconds"] >= 0
    assert hidden.status_code == 404  # an operator route: a stranger does not learn who else is here

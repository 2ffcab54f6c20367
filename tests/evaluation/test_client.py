"""The HTTP runner: retries a shed after Retry-After, never exceeds the gate's slots, keeps item order."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from feedback_intelligence.evaluation import client as client_module
from feedback_intelligence.evaluation.client import RunOptions, interpret_one, run_set
from feedback_intelligence.evaluation.dataset import EvalItem

GOLD = {"category": "hevi", "severity": "low", "type": "complaint", "sentiment": "negative", "language": "fi"}
BODY = {
    "structure": {"category": "hevi", "theme": "banaanit", "severity": "low", "type": "complaint", "language": "fi"},
    "failed": False,
    "salvaged": False,
    "notes": [],
    "alertCategories": [],
}


def items(n: int) -> list[EvalItem]:
    return [EvalItem(f"i{k}", "dev", f"banaanit {k}", GOLD, frozenset()) for k in range(n)]


async def test_a_shed_is_retried_after_its_retry_after(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    async def no_sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(client_module.asyncio, "sleep", no_sleep)
    answers = iter(
        [
            httpx.Response(503, headers={"Retry-After": "2"}, json={"error": "busy"}),
            httpx.Response(429, headers={"Retry-After": "99"}, json={"error": "rate_limited"}),
            httpx.Response(200, json=BODY),
        ]
    )
    transport = httpx.MockTransport(lambda request: next(answers))
    async with httpx.AsyncClient(base_url="http://svc", transport=transport) as http:
        seen = await interpret_one(http, items(1)[0], RunOptions())
    assert seen.structure == BODY["structure"] and seen.retries == 2 and seen.error is None
    assert waits == [2.0, client_module.MAX_RETRY_WAIT_S]  # a huge Retry-After is capped


async def test_a_persistent_error_is_an_error_not_a_structure() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(400, json={"errors": ["text is empty"]}))
    async with httpx.AsyncClient(base_url="http://svc", transport=transport) as http:
        seen = await interpret_one(http, items(1)[0], RunOptions())
    assert seen.structure is None and seen.error is not None and "400" in seen.error


async def test_concurrency_never_exceeds_the_gates_slots(monkeypatch: pytest.MonkeyPatch) -> None:
    in_flight = peak = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, peak
        if request.url.path == "/admin/status":
            return httpx.Response(200, json={"gate": {"slots": 2}})
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        text = json.loads(request.content)["text"]
        return httpx.Response(200, json=BODY | {"notes": [text]})

    real_client = httpx.AsyncClient

    def mocked(**kwargs):
        return real_client(transport=httpx.MockTransport(handler), **kwargs)

    monkeypatch.setattr(client_module.httpx, "AsyncClient", mocked)
    done: list[str] = []
    observations, concurrency = await run_set(
        "http://svc", items(7), RunOptions(concurrency=5), on_done=lambda o: done.append(o.item_id)
    )
    assert concurrency == 2 and peak <= 2
    assert [o.item_id for o in observations] == [f"i{k}" for k in range(7)] and sorted(done) == sorted(
        o.item_id for o in observations
    )

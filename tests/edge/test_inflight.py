"""One LLM request in flight per client: a double-click cannot take a second slot of the room."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import httpx
import pytest

from feedback_intelligence.edge.inflight import LocalInflight, RedisInflight
from tests.edge.support import LOOPBACK, PROXY, PUBLIC_PEER, build_edge_app, via_proxy
from tests.support.redis import REDIS_URL
from tests.support.waiting import wait_for

TEXT = {"text": "Maito oli hapanta."}
SHOP = "198.51.100.80"


async def test_one_visitor_two_interprets_at_once_the_second_is_429_while_the_first_runs() -> None:
    edge = build_edge_app(llm_slots=4)  # room for two calls from one address (half the slots; ADR 0032)
    _, alice = edge.edge.visitors.issue(SHOP)
    _, bob = edge.edge.visitors.issue(SHOP)
    async with edge.client((PROXY, 1)) as http:
        first = asyncio.create_task(http.post("/interpret", json=TEXT, headers=via_proxy(SHOP, alice)))
        await asyncio.wait_for(edge.llm.started.wait(), 5)

        # the double click: answered at once, without waiting for the first one
        second = await asyncio.wait_for(http.post("/interpret", json=TEXT, headers=via_proxy(SHOP, alice)), 5)
        assert second.status_code == 429
        assert second.json()["error"] == "too_many_inflight"
        assert second.headers["retry-after"] == "3" and second.json()["retryAfterSeconds"] == 3
        assert not first.done() and edge.llm.calls == 1
        # and a save of the same visitor counts as an LLM route too
        save = await http.post("/live/feedback", json={"id": "x"}, headers=via_proxy(SHOP, alice))
        assert save.status_code == 429

        # another visitor behind the same proxy address is not held up by Alice
        other = asyncio.create_task(http.post("/interpret", json=TEXT, headers=via_proxy(SHOP, bob)))

        async def two_calls() -> bool:
            return edge.llm.calls == 2

        await wait_for(two_calls, what="Bob's call to reach the LLM")
        edge.llm.release.set()
        assert (await first).status_code == 200 and (await other).status_code == 200

        # once her first request is done, Alice may send the next
        assert (await http.post("/interpret", json=TEXT, headers=via_proxy(SHOP, alice))).status_code == 200
    assert edge.rate_limited("inflight") == 2


async def test_direct_clients_are_limited_by_address_and_loopback_operators_are_exempt() -> None:
    edge = build_edge_app()
    async with edge.client(PUBLIC_PEER) as http:
        first = asyncio.create_task(http.post("/interpret", json=TEXT))
        await asyncio.wait_for(edge.llm.started.wait(), 5)
        assert (await http.post("/interpret", json=TEXT)).status_code == 429
        async with edge.client(LOOPBACK) as operator:  # e.g. the crowd benchmark on the same host
            both = [asyncio.create_task(operator.post("/interpret", json=TEXT)) for _ in range(2)]

            async def three_calls() -> bool:
                return edge.llm.calls == 3

            await wait_for(three_calls, what="both operator calls to reach the LLM")
            edge.llm.release.set()
            assert [r.status_code for r in await asyncio.gather(*both)] == [200, 200]
        assert (await first).status_code == 200


async def test_get_routes_and_non_llm_posts_are_not_counted() -> None:
    edge = build_edge_app()
    async with edge.client(PUBLIC_PEER) as http:
        first = asyncio.create_task(http.post("/interpret", json=TEXT))
        await asyncio.wait_for(edge.llm.started.wait(), 5)
        assert (await http.get("/live/feedback/x")).status_code == 200
        assert (await http.get("/report")).status_code == 200
        edge.llm.release.set()
        await first


async def test_a_client_that_disconnects_gives_its_place_back() -> None:
    edge = build_edge_app()
    inflight = edge.edge.inflight
    assert isinstance(inflight, LocalInflight)
    gone = asyncio.Event()
    body = json.dumps(TEXT).encode()
    sent: list[dict[str, Any]] = []
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/interpret",
        "raw_path": b"/interpret",
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"host", b"edge.test"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": PUBLIC_PEER,
        "server": ("edge.test", 80),
    }
    task = asyncio.create_task(edge.app(scope, receive, send))
    await asyncio.wait_for(edge.llm.started.wait(), 5)
    assert inflight.held(f"client:{PUBLIC_PEER[0]}") == 1
    gone.set()
    await asyncio.wait_for(task, 5)
    assert inflight.held(f"client:{PUBLIC_PEER[0]}") == 0
    assert sent[0]["status"] == 499  # the route saw the disconnect (the edge did not hide it)
    assert not edge.llm.release.is_set()  # the LLM call was cancelled, not finished


async def test_a_route_that_raises_gives_its_place_back() -> None:
    edge = build_edge_app()
    transport = httpx.ASGITransport(app=edge.app, client=PUBLIC_PEER, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://edge.test") as http:
        for _ in range(2):  # the test route's json.loads raises: a 500 each time, never a 429
            response = await http.post("/interpret", content=b"{", headers={"content-type": "application/json"})
            assert response.status_code == 500


@pytest.mark.redis
async def test_redis_counter_is_shared_between_replicas() -> None:
    prefix = f"fi-test-inflight-{uuid.uuid4().hex[:8]}:"
    replicas = [RedisInflight(REDIS_URL, limit=1, expiry_s=5, prefix=prefix) for _ in range(2)]
    try:
        assert await replicas[0].acquire("visitor:a")  # the redis marker made sure Redis answers
        assert not await replicas[1].acquire("visitor:a")  # the other replica sees the place taken
        assert await replicas[1].acquire("visitor:b")
        await replicas[0].release("visitor:a")
        assert await replicas[1].acquire("visitor:a")
        ttl = await replicas[0]._redis.ttl(prefix + "visitor:a")
        assert 0 < ttl <= 5  # a replica that dies holding it cannot block the visitor for longer
    finally:
        for r in replicas:
            await r.aclose()


def test_local_counter_never_goes_negative() -> None:
    async def run() -> None:
        counter = LocalInflight(2)
        assert await counter.acquire("k") and await counter.acquire("k") and not await counter.acquire("k")
        for _ in range(3):
            await counter.release("k")
        assert counter.held("k") == 0

    asyncio.run(run())

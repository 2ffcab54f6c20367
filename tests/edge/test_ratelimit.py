"""Fair limits: per-client fixed windows, per-visitor buckets behind a proxy, the audience ceiling."""

from __future__ import annotations

import uuid

import pytest

from feedback_intelligence.edge.visitor import COOKIE_NAME
from feedback_intelligence.instants.clock import ManualClock
from tests.edge.support import LOOPBACK, PROXY, PUBLIC_PEER, build_edge_app, via_proxy
from tests.support.redis import REDIS_URL


async def test_spoofed_forwarded_for_is_charged_to_the_peer_and_is_not_exempt(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time, rate_limit="3/60seconds")
    spoofs = ["127.0.0.1", "198.51.100.1", "::1", "127.0.0.1, 10.0.0.7"]
    async with edge.client(PUBLIC_PEER) as http:
        remaining = []
        for spoof in spoofs:
            response = await http.get("/health", headers={"X-Forwarded-For": spoof, "X-Real-IP": "127.0.0.1"})
            remaining.append((response.status_code, response.headers.get("ratelimit-remaining")))
    assert remaining == [(200, "2"), (200, "1"), (200, "0"), (429, "0")]
    async with edge.client(("203.0.113.6", 1)) as other:
        assert (await other.get("/health")).status_code == 200
    assert edge.rate_limited("client") == 1


async def test_static_assets_do_not_spend_a_visitors_window(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time, rate_limit="2/60seconds")
    async with edge.client(PUBLIC_PEER) as http:
        assets = [(await http.get("/static/app.js")).status_code for _ in range(6)]
        api = [(await http.get("/health")).status_code for _ in range(3)]
    assert assets == [200] * 6
    assert api == [200, 200, 429]


async def test_retry_after_is_the_time_left_in_the_window(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time, rate_limit="3/60seconds")
    async with edge.client(PUBLIC_PEER) as http:
        first = await http.get("/health")
        assert first.headers["ratelimit-policy"] == "3;w=60"
        assert (first.headers["ratelimit-limit"], first.headers["ratelimit-reset"]) == ("3", "60")
        clock.advance(17)
        assert (await http.get("/health")).headers["ratelimit-reset"] == "43"
        assert (await http.get("/health")).status_code == 200
        refused = await http.get("/health")
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "43" == refused.headers["ratelimit-reset"]
        assert refused.json()["error"] == "rate_limited" and refused.json()["retryAfterSeconds"] == 43
        clock.advance(42.5)
        assert (await http.get("/health")).headers["retry-after"] == "1"  # 0.5 s left, rounded up
        clock.advance(0.5)
        again = await http.get("/health")
        assert again.status_code == 200 and again.headers["ratelimit-remaining"] == "2"


async def test_direct_loopback_is_exempt_unless_configured_otherwise(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time, rate_limit="2/60seconds")
    async with edge.client(LOOPBACK) as http:
        for _ in range(5):
            response = await http.get("/health")
            assert response.status_code == 200 and "ratelimit-limit" not in response.headers
    strict = build_edge_app(clock.time, rate_limit="2/60seconds", rate_limit_exempt_loopback=False)
    async with strict.client(LOOPBACK) as http:
        codes = [(await http.get("/health")).status_code for _ in range(3)]
    assert codes == [200, 200, 429]


async def test_loopback_client_through_the_proxy_is_not_exempt(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time, rate_limit="2/60seconds")
    async with edge.client((PROXY, 1)) as http:
        codes = [(await http.get("/health", headers=via_proxy("127.0.0.1"))).status_code for _ in range(3)]
    assert codes == [200, 200, 429]


async def test_two_visitors_behind_one_proxy_keep_their_own_buckets_under_the_audience_ceiling(
    clock: ManualClock,
) -> None:
    edge = build_edge_app(clock.time, rate_limit="3/60seconds", audience_rate_limit="5/60seconds")
    shop = "198.51.100.50"  # the shared address (say, the shop's NAT) the proxy saw for all of them
    _, alice = edge.edge.visitors.issue(shop)
    _, bob = edge.edge.visitors.issue(shop)
    _, carol = edge.edge.visitors.issue(shop)
    async with edge.client((PROXY, 1)) as http:
        for _ in range(3):
            assert (await http.get("/health", headers=via_proxy(shop, alice))).status_code == 200
        clock.advance(10)
        # Alice spent her bucket; hammering on does not eat the ceiling the others share
        for _ in range(5):
            refused = await http.get("/health", headers=via_proxy(shop, alice))
            assert refused.status_code == 429 and refused.json()["reason"] == "client"
            assert refused.headers["retry-after"] == "50"
        # Bob is still served: his own bucket, and the ceiling has 2 left (5 - Alice's 3)
        served = await http.get("/health", headers=via_proxy(shop, bob))
        assert served.status_code == 200 and served.headers["ratelimit-remaining"] == "1"  # the ceiling's
        assert (await http.get("/health", headers=via_proxy(shop, bob))).status_code == 200
        # the audience ceiling holds for everybody behind that address, key or not
        for cookie in (bob, carol, None):
            refused = await http.get("/health", headers=via_proxy(shop, cookie))
            assert refused.status_code == 429 and refused.json()["reason"] == "audience"
            assert refused.headers["retry-after"] == "50"  # the ceiling's window opened with Alice's first
        # another address behind the same proxy has a ceiling of its own
        assert (await http.get("/health", headers=via_proxy("198.51.100.51", carol))).status_code == 200
    assert edge.rate_limited("client") == 5
    assert edge.rate_limited("audience") == 3


async def test_forged_or_absent_visitor_key_falls_back_to_the_address_bucket(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time, rate_limit="3/60seconds", audience_rate_limit="100/60seconds")
    _, genuine = edge.edge.visitors.issue("198.51.100.60")
    visitor_id = genuine.split(".")[1]
    forgeries = [f"v1.{visitor_id}.AAAAAAAAAAAAAAAAAAAAAAAA", "v1.made-up.sig", "garbage", genuine + "x", None]
    async with edge.client((PROXY, 1)) as http:
        codes = [
            (await http.get("/health", headers=via_proxy("198.51.100.60", forged))).status_code for forged in forgeries
        ]
        # the genuine key still has its own, untouched bucket
        assert (await http.get("/health", headers=via_proxy("198.51.100.60", genuine))).status_code == 200
    assert codes == [200, 200, 200, 429, 429]


async def test_a_direct_client_gains_nothing_from_visitor_keys(clock: ManualClock) -> None:
    """Without a trusted proxy in between, the address is the client: fresh keys do not buy fresh buckets."""
    edge = build_edge_app(clock.time, rate_limit="2/60seconds")
    async with edge.client(PUBLIC_PEER) as http:
        codes = []
        for _ in range(3):
            _, key = edge.edge.visitors.issue(PUBLIC_PEER[0])
            codes.append((await http.get("/health", headers={"Cookie": f"{COOKIE_NAME}={key}"})).status_code)
    assert codes == [200, 200, 429]


async def test_pages_issue_the_signed_visitor_key(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time)
    async with edge.client((PROXY, 1)) as http:
        page = await http.get("/desk.html", headers=via_proxy("198.51.100.70"))
        cookie = page.headers["set-cookie"]
        value = cookie.split(";")[0].split("=", 1)[1]
        assert edge.edge.visitors.verify(value, "198.51.100.70") is not None
        attributes = {part.strip().split("=")[0].lower() for part in cookie.split(";")[1:]}
        assert {"path", "max-age", "httponly", "samesite", "secure"} <= attributes
        assert "SameSite=Lax" in cookie
        # a visitor who has a valid key is not handed another; API answers never hand one out
        again = await http.get("/desk.html", headers=via_proxy("198.51.100.70", value))
        assert "set-cookie" not in again.headers
        assert "set-cookie" not in (await http.get("/health", headers=via_proxy("198.51.100.70"))).headers
        assert "set-cookie" in (await http.get("/schema", headers=via_proxy("198.51.100.70"))).headers
    async with edge.client(PUBLIC_PEER) as http:  # plain http: no Secure attribute
        assert "secure" not in (await http.get("/desk.html")).headers["set-cookie"].lower()


async def test_a_storage_failure_lets_requests_through(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time, rate_limit="1/60seconds")

    async def broken(*_: object, **__: object) -> int:
        raise ConnectionError("redis is down")

    edge.edge.limiter.storage.incr = broken  # type: ignore[method-assign]
    async with edge.client(PUBLIC_PEER) as http:
        for _ in range(3):
            response = await http.get("/health")
            assert response.status_code == 200 and "ratelimit-limit" not in response.headers


@pytest.mark.redis
async def test_replicas_share_windows_through_redis() -> None:
    from feedback_intelligence.edge.ratelimit import EdgeRateLimiter, build_storage

    replicas = [EdgeRateLimiter(build_storage(REDIS_URL), "3/60seconds", "240/60seconds") for _ in range(2)]
    key = f"client:test-{uuid.uuid4().hex}"
    first = await replicas[0].charge(key, None)  # the redis marker made sure Redis answers
    assert first.allowed and first.remaining == 2
    assert (await replicas[1].charge(key, None)).remaining == 1  # the other replica sees the same window
    assert (await replicas[0].charge(key, None)).allowed
    refused = await replicas[1].charge(key, None)
    assert not refused.allowed and 1 <= refused.reset_s <= 60

"""Identity that costs something to rotate (ADR 0032): keys bound to the aggregate that was
issued them, issuance limited per aggregate, IPv6 counted by its /64, and the in-flight limit and the
gate's fair share held per aggregate whatever keys it holds."""

from __future__ import annotations

import asyncio

from feedback_intelligence.auth.principal import STATE_KEY as PRINCIPAL_KEY
from feedback_intelligence.auth.principal import Principal
from feedback_intelligence.edge.identity import STATE_KEY as IDENTITY_KEY
from feedback_intelligence.edge.identity import Aggregation, ClientIdentity
from feedback_intelligence.edge.inflight import visitor_of
from feedback_intelligence.edge.ratelimit import ClientPolicy
from feedback_intelligence.edge.surface import OperatorAuth
from feedback_intelligence.edge.visitor import COOKIE_MAX_AGE_S, VisitorKeys
from feedback_intelligence.instants.clock import ManualClock
from tests.edge.support import PROXY, EdgeApp, build_edge_app, via_proxy
from tests.support.waiting import wait_for

TEXT = {"text": "Maito oli hapanta."}
SHOP = "198.51.100.80"


def test_a_key_verifies_only_from_the_aggregate_it_was_issued_to_and_only_for_its_lifetime() -> None:
    keys = VisitorKeys("secret")
    _, value = keys.issue("2001:db8:1:2::/64", now_s=1_000_000)
    assert keys.verify(value, "2001:db8:1:2::/64", now_s=1_000_010) is not None
    assert keys.verify(value, "2001:db8:1:3::/64", now_s=1_000_010) is None  # another subscriber
    assert keys.verify(value, "2001:db8:1:2::/64", now_s=1_000_000 + COOKIE_MAX_AGE_S + 3600) is None  # expired
    assert keys.verify(value, "2001:db8:1:2::/64", now_s=999_000) is None  # issued "in the future"
    # the issue time is signed: moving it forward does not extend a key
    version, visitor_id, _issued, signature = value.split(".")
    assert keys.verify(f"{version}.{visitor_id}.1000500.{signature}", "2001:db8:1:2::/64", now_s=1_000_600) is None


def test_ipv6_aggregates_by_its_prefix_and_ipv4_by_its_address() -> None:
    default = Aggregation()
    assert default.of("2001:db8:1:2:aaaa::1") == default.of("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert default.of("2001:db8:1:3::1") != default.of("2001:db8:1:2::1")
    assert default.of("192.0.2.7") == "192.0.2.7" and default.of("192.0.2.8") == "192.0.2.8"
    assert Aggregation(ipv6_prefix=48).of("2001:db8:1:2::1") == "2001:db8:1::/48"


async def test_a_key_taken_to_another_address_counts_as_that_address(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time, rate_limit="2/60seconds", audience_rate_limit="100/60seconds")
    _, alice = edge.edge.visitors.issue(SHOP)
    async with edge.client((PROXY, 1)) as http:
        # at the shop the key has a bucket of its own; the address's own bucket is untouched
        codes = [(await http.get("/health", headers=via_proxy(SHOP, alice))).status_code for _ in range(2)]
        assert codes == [200, 200]
        assert (await http.get("/health", headers=via_proxy(SHOP))).status_code == 200
        # carried to another address, the key is not used: it shares that address's bucket
        elsewhere = "198.51.100.99"
        codes = [(await http.get("/health", headers=via_proxy(elsewhere, alice))).status_code for _ in range(2)]
        assert codes == [200, 200]
        assert (await http.get("/health", headers=via_proxy(elsewhere))).status_code == 429


async def test_one_address_is_issued_a_bounded_number_of_keys(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time, visitor_issue_limit="3/hour")
    async with edge.client((PROXY, 1)) as http:
        issued = ["set-cookie" in (await http.get("/desk.html", headers=via_proxy(SHOP))).headers for _ in range(5)]
        assert issued == [True, True, True, False, False]
        # the page itself is still served, and another address gets keys of its own
        page = await http.get("/desk.html", headers=via_proxy(SHOP))
        assert page.status_code == 200
        assert "set-cookie" in (await http.get("/desk.html", headers=via_proxy("198.51.100.81"))).headers


async def test_ipv6_rotation_through_a_trusted_proxy_shares_one_bucket(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time, rate_limit="3/60seconds")
    async with edge.client((PROXY, 1)) as http:
        codes = [
            (await http.get("/health", headers=via_proxy(f"2001:db8:5:6::{n:x}"))).status_code for n in range(1, 6)
        ]
        assert codes == [200, 200, 200, 429, 429]  # five addresses of one /64: one client
        assert (await http.get("/health", headers=via_proxy("2001:db8:5:7::1"))).status_code == 200  # next /64


async def test_many_keys_of_one_address_hold_at_most_half_the_gates_slots() -> None:
    edge = build_edge_app(llm_slots=4)  # two for one address
    keys = [edge.edge.visitors.issue(SHOP)[1] for _ in range(4)]
    async with edge.client((PROXY, 1)) as http:
        running = [
            asyncio.create_task(http.post("/interpret", json=TEXT, headers=via_proxy(SHOP, key))) for key in keys[:2]
        ]
        await wait_for(lambda: _calls(edge, 2), what="two calls running")
        third = await http.post("/interpret", json=TEXT, headers=via_proxy(SHOP, keys[2]))
        assert third.status_code == 429 and third.json()["error"] == "too_many_inflight"
        assert "network" in third.json()["message"]
        # another address is not held up
        other = asyncio.create_task(http.post("/interpret", json=TEXT, headers=via_proxy("198.51.100.81")))
        await wait_for(lambda: _calls(edge, 3), what="the other address's call running")
        edge.llm.release.set()
        assert [r.status_code for r in await asyncio.gather(*running, other)] == [200, 200, 200]
        # and once they are done, the address may run calls again
        assert (await http.post("/interpret", json=TEXT, headers=via_proxy(SHOP, keys[3]))).status_code == 200
    # every call counted against the address's one fair share at the gate, whichever key it carried
    assert set(edge.llm.visitors) == {f"client:{SHOP}", "client:198.51.100.81"}


async def _calls(edge: EdgeApp, n: int) -> bool:
    return edge.llm.calls >= n


def test_a_signed_in_person_is_a_fair_share_of_their_own_and_others_count_as_their_address() -> None:
    identity = ClientIdentity("198.51.100.7", PROXY, True, "https", False, aggregate="198.51.100.7")
    policy = ClientPolicy(OperatorAuth(None), exempt_loopback=True)
    base = {"type": "http", "method": "POST", "path": "/interpret", "headers": [], "query_string": b""}
    anonymous = {**base, "state": {IDENTITY_KEY: identity, "visitor_id": "k1"}}
    person = Principal("acct1", "kaisa", "Kaisa", (), "session")
    signed_in = {**base, "state": {IDENTITY_KEY: identity, "visitor_id": "k1", PRINCIPAL_KEY: person}}
    assert visitor_of(anonymous, policy) == "client:198.51.100.7"  # the key buys no share of its own
    assert visitor_of(signed_in, policy) == "person:acct1"  # an account does

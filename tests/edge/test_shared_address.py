"""Fifty stores behind one NAT address, through the trusted proxy, on the default limits: an hour of a busy
morning's desk traffic, compressed on the limiter's clock, ends in no 429, and with accounts fifty clerks
sign in; one address that abuses the same defaults is still held to them."""

from __future__ import annotations

import heapq
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from limits import parse

from feedback_intelligence.config import load_settings
from feedback_intelligence.edge.visitor import COOKIE_NAME
from feedback_intelligence.instants.clock import ManualClock
from tests.edge.support import PROXY, EdgeApp, build_edge_app
from tests.support.people import add_user, people_settings, running_app, sign_in

NAT = "198.51.100.50"  # the chain's one outbound address, as the trusted proxy forwards it
CLERKS = 50
HOUR_S = 3600.0
SAVE_EVERY_S = (120.0, 240.0)  # a busy morning: a desk saves every two to four minutes
POLL_EVERY_S = (20.0, 30.0)  # the desk's /live/version poll (retry-policy.js pollDelay)

# What the desk page asks for (desk.js): when it opens, after each save, and on each poll.
PAGE_LOAD = [
    ("GET", "/desk.html"),
    ("GET", "/schema"),
    ("GET", "/live/desk-store"),
    ("GET", "/live/version"),
    ("GET", "/live/feedback"),
    ("GET", "/live/report"),
    ("GET", "/live/feedback?mine=true"),
]
SAVE = [
    ("POST", "/interpret"),
    ("POST", "/live/feedback"),
    ("GET", "/live/version"),
    ("GET", "/live/feedback"),
    ("GET", "/live/report"),
    ("GET", "/live/feedback?mine=true"),
]
POLL = [("GET", "/live/version")]


def desk_app(clock: ManualClock) -> EdgeApp:
    """The support app on the product's default limits, with the desk's read routes it lacks."""
    edge = build_edge_app(clock.time)
    edge.llm.release.set()  # the model answers at once: this is about the limits, not the gate

    @edge.app.get("/live/version")
    async def version() -> dict[str, int]:
        return {"version": 1}

    @edge.app.get("/live/desk-store")
    async def desk_store() -> dict[str, Any]:
        return {"store": None}

    @edge.app.get("/live/feedback")
    async def items() -> list[dict[str, Any]]:
        return []

    @edge.app.get("/live/report")
    async def live_report() -> dict[str, int]:
        return {"total": 0}

    return edge


@dataclass(order=True)
class Visit:
    at_s: float
    clerk: int
    what: str = field(compare=False)


def morning(rng: random.Random) -> list[Visit]:
    """Every clerk opens the desk within the first minute, then polls and saves until the hour ends."""
    visits: list[Visit] = []
    for clerk in range(CLERKS):
        opened = rng.uniform(0, 60)
        visits.append(Visit(opened, clerk, "page"))
        at = opened + rng.uniform(*POLL_EVERY_S)
        while at < HOUR_S:
            visits.append(Visit(at, clerk, "poll"))
            at += rng.uniform(*POLL_EVERY_S)
        at = opened + rng.uniform(10, 60)
        while at < HOUR_S:
            visits.append(Visit(at, clerk, "save"))
            at += rng.uniform(*SAVE_EVERY_S)
    heapq.heapify(visits)
    return [heapq.heappop(visits) for _ in range(len(visits))]


def behind_the_nat(edge: EdgeApp, clerk: int) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=edge.app, client=(PROXY, 20000 + clerk))
    return httpx.AsyncClient(transport=transport, base_url="http://edge.test", headers={"X-Forwarded-For": NAT})


async def test_fifty_clerks_behind_one_address_save_an_hour_without_a_429(clock: ManualClock) -> None:
    edge = desk_app(clock)
    desks = [behind_the_nat(edge, clerk) for clerk in range(CLERKS)]
    started = clock.time()
    statuses: Counter[tuple[str, int]] = Counter()
    saves = 0
    try:
        for visit in morning(random.Random(39)):
            clock.advance(max(0.0, started + visit.at_s - clock.time()))
            desk = desks[visit.clerk]
            for method, path in {"page": PAGE_LOAD, "save": SAVE, "poll": POLL}[visit.what]:
                body = {"text": "Maito oli hapanta."} if method == "POST" else None
                answer = await desk.request(method, path, json=body)
                statuses[(path, answer.status_code)] += 1
            saves += visit.what == "save"
    finally:
        for desk in desks:
            await desk.aclose()
    refused = {key: n for key, n in statuses.items() if key[1] == 429}
    assert not refused, f"429s behind one address: {refused}"
    assert all(status < 400 for _, status in statuses), statuses
    assert all(desk.cookies.get(COOKIE_NAME) for desk in desks)  # every desk was issued a key of its own
    assert saves > CLERKS * 15 and edge.rate_limited("client") == edge.rate_limited("audience") == 0


async def test_one_abusive_address_is_still_held_to_the_defaults(clock: ManualClock) -> None:
    """Keys minted from one address stop at the issue limit; what they buy together stops at the audience
    ceiling; a caller that keeps no key is one bucket of FI_RATE_LIMIT."""
    edge = desk_app(clock)
    defaults = load_settings().edge
    issue, ceiling, own = (
        parse(r).amount for r in (defaults.visitor_issue_limit, defaults.audience_rate_limit, defaults.rate_limit)
    )
    abuser = "203.0.113.66"
    transport = httpx.ASGITransport(app=edge.app, client=(PROXY, 30000))
    minted: list[str] = []
    async with httpx.AsyncClient(transport=transport, base_url="http://edge.test") as http:
        for _ in range(issue + 5):
            page = await http.get("/desk.html", headers={"X-Forwarded-For": abuser})
            if key := page.cookies.get(COOKIE_NAME):
                minted.append(key)
            http.cookies.clear()
        assert len(minted) <= issue  # the sixth past the limit was served without a key
        clock.advance(60)  # a fresh minute: the page loads above spent part of the last one
        answered = Counter()
        for n in range(ceiling + 50):
            key = minted[n % len(minted)]
            reply = await http.get(
                "/live/version", headers={"X-Forwarded-For": abuser, "Cookie": f"{COOKIE_NAME}={key}"}
            )
            answered[reply.status_code] += 1
        assert answered[200] <= ceiling and answered[429] >= 50
        clock.advance(60)
        keyless = Counter()
        for _ in range(own + 10):
            keyless[(await http.get("/live/version", headers={"X-Forwarded-For": "203.0.113.67"})).status_code] += 1
        assert keyless == {200: own, 429: 10}


async def test_fifty_clerks_behind_one_address_sign_in_on_the_first_morning(tmp_path: Path) -> None:
    """FI_AUTH=local, as the chain's compose ships it: fifty accounts sign in through the trusted proxy from
    one NAT address within a minute, on the default sign-in limits; the address's window still holds a
    guesser there (its failures count)."""
    settings = people_settings(tmp_path, trusted_proxies=[PROXY])
    async with running_app(settings) as app:
        for clerk in range(CLERKS):
            await add_user(app, f"kassa-{clerk:02d}", ("clerk", "s1"))
        answers = Counter()
        for clerk in range(CLERKS):
            transport = httpx.ASGITransport(app=app, client=(PROXY, 40000 + clerk))
            async with httpx.AsyncClient(
                transport=transport, base_url="http://fi.test", headers={"X-Forwarded-For": NAT}
            ) as desk:
                answers[(await desk.get("/signin")).status_code] += 1
                answers[(await sign_in(desk, f"kassa-{clerk:02d}")).status_code] += 1
        assert answers == {200: 2 * CLERKS}, answers
        transport = httpx.ASGITransport(app=app, client=(PROXY, 41000))
        async with httpx.AsyncClient(
            transport=transport, base_url="http://fi.test", headers={"X-Forwarded-For": NAT}
        ) as guesser:
            limit = parse(settings.auth.login_address_rate_limit).amount
            guesses = [
                (await sign_in(guesser, f"kassa-{n % CLERKS:02d}", f"arvaus-{n:06d}")).status_code
                for n in range(limit + 1)
            ]
        assert guesses == [401] * limit + [429]  # the address's failures are still bounded

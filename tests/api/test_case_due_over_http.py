"""A case's due time over HTTP (ADR 0061): ``dueAt`` from the incident's own time by tier, ``overdue`` and
``ageSeconds`` by the runtime's clock, and an overdue case listed first among the open ones."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.instants.timestamps import format_instant
from tests.support.people import (
    LOOPBACK,
    PASSWORD,
    add_user,
    client,
    csrf,
    desk_entry,
    people_settings,
    running_app,
    sign_in,
)

START = datetime(2027, 2, 1, 9, 30, tzinfo=UTC)
FALL = "Asiakas liukastui märällä lattialla ja löi päänsä, ambulanssi haettiin."
LAWYER = "Kassa kohteli minua törkeästi, otan yhteyttä lakimieheen."


async def test_due_at_and_overdue_follow_the_tier_and_the_clock(tmp_path: Path) -> None:
    clock = ManualClock(START)
    settings = people_settings(tmp_path, rate_limit="1000/60seconds")
    async with running_app(settings, clock=clock) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        await add_user(app, "pia", ("manager", "s1"))
        async with client(app) as clerk, client(app) as manager:
            await sign_in(clerk, "kaisa")
            await sign_in(manager, "pia")
            # the legal threat happened three days less two hours before the fall: due two hours before it
            lawyer_at = START - timedelta(days=3) + timedelta(hours=2)
            for feedback_id, text, at in [("lawyer-1", LAWYER, lawyer_at), ("fall-1", FALL, START)]:
                entry = desk_entry(feedback_id, text, timestamp=format_instant(at), store="s1")
                saved = await clerk.post("/live/feedback", json=entry, headers=csrf(clerk))
                assert saved.status_code == 201, saved.text

            async def listed() -> dict[str, dict]:
                answer = await manager.get("/cases", params={"state": ["open"]})
                assert answer.status_code == 200, answer.text
                return {c["ref"]: c for c in answer.json()["cases"]}

            clock.advance(2 * 3600 - 1)
            before = await listed()
            assert list(before) == ["live:fall-1", "live:lawyer-1"]  # the most serious first while none is late
            fall, lawyer = before["live:fall-1"], before["live:lawyer-1"]
            assert (fall["dueAt"], fall["overdue"], fall["safety"]) == (
                format_instant(START + timedelta(hours=4)),
                False,
                True,
            )
            assert (lawyer["dueAt"], lawyer["overdue"], lawyer["safety"]) == (
                format_instant(START + timedelta(hours=2)),
                False,
                False,
            )
            assert fall["ageSeconds"] == 2 * 3600 - 1

            clock.advance(1)  # the legal threat's due time: overdue, so first though less serious
            after = await listed()
            assert list(after) == ["live:lawyer-1", "live:fall-1"]
            assert after["live:lawyer-1"]["overdue"] is True and after["live:fall-1"]["overdue"] is False

            clock.advance(2 * 3600)  # both late: the most serious first again
            both = await listed()
            assert list(both) == ["live:fall-1", "live:lawyer-1"]
            assert all(c["overdue"] for c in both.values())
            one = await manager.get("/cases/live:lawyer-1")
            assert one.status_code == 200 and one.json()["overdue"] is True


async def test_a_managers_address_given_at_add_is_where_an_overdue_case_is_mailed(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path)) as app:
        async with client(app, LOOPBACK) as operator:

            async def add(username: str, grant: tuple[str, str], address: str | None) -> httpx.Response:
                body = {
                    "username": username,
                    "password": PASSWORD,
                    "email": address,
                    "grants": [dict(zip(("role", "store"), grant, strict=True))],
                }
                return await operator.post("/admin/users", json=body)

            assert (await add("pia", ("manager", "s1"), "pia@shop.example")).status_code == 201
            assert (await add("olli", ("manager", "s2"), "olli@shop.example")).status_code == 201
            assert (await add("kaisa", ("clerk", "s1"), "kaisa@shop.example")).status_code == 201
            assert (await add("ville", ("manager", "s1"), None)).status_code == 201
            refused = await add("eve", ("manager", "s1"), "not an address")
            assert refused.status_code == 400, refused.text
        managers = app.state.runtime.notify.managers
        assert await managers("s1") == ("pia@shop.example",)
        assert await managers("s2") == ("olli@shop.example",)
        assert await managers(None) == ()  # a store-less item is the chain's: nobody here manages the chain

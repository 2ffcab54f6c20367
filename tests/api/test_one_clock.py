"""The runtime's one clock, over HTTP: what a save writes and the change rule's window both read it, so a
test moves time instead of waiting out the window (or backdating rows)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.instants.timestamps import format_instant
from tests.support.people import add_user, client, csrf, desk_entry, people_settings, running_app, sign_in

START = datetime(2027, 2, 1, 9, 30, tzinfo=UTC)


async def test_the_runtime_hands_its_one_clock_to_every_part_whose_behaviour_time_decides(tmp_path: Path) -> None:
    clock = ManualClock(START)
    async with running_app(people_settings(tmp_path), clock=clock) as app:
        rt = app.state.runtime
        parts = {
            "router": rt.gate.router.clock,
            "fairness ledger": next(iter(rt.gate.pool.members.values())).ledger.clock,
            "health": rt.health.clock,
            "structure-later worker": rt.worker.clock,
            "notify worker": rt.notify.clock,
            "alert intake": rt.intake.clock,
            "cases": rt.cases.clock,
            "ingest": rt.ingest.clock,
            "re-derivation": rt.rederive.clock,
            "people": app.state.edge.people.clock,
            **{f"report {name}": report.clock for name, report in rt.reports.items()},
            **{f"store {name}": channel.store.clock for name, channel in rt.channels.items()},
        }
        assert {part: found is clock for part, found in parts.items()} == dict.fromkeys(parts, True)


async def test_a_clerk_may_correct_their_entry_until_the_window_passes_on_the_runtimes_clock(tmp_path: Path) -> None:
    clock = ManualClock(START)
    settings = people_settings(tmp_path, correction_window_s=600, rate_limit="1000/60seconds")
    async with running_app(settings, clock=clock) as app:
        assert app.state.runtime.clock is clock  # built once, handed to every part
        await add_user(app, "kaisa", ("clerk", "s1"))
        async with client(app) as clerk:
            await sign_in(clerk, "kaisa")
            saved = await clerk.post("/live/feedback", json=desk_entry("desk-clock-1"), headers=csrf(clerk))
            assert saved.status_code == 201
            stored = await app.state.runtime.channels["live"].store.get("desk-clock-1")
            assert stored is not None and stored.created_at == format_instant(START)

            clock.advance(599)  # within the window: the clerk may
            early = await clerk.patch("/live/feedback/desk-clock-1", json={"theme": "maito"}, headers=csrf(clerk))
            assert early.status_code == 200, early.text

            clock.advance(2)  # past it: no longer
            late = await clerk.patch("/live/feedback/desk-clock-1", json={"theme": "juusto"}, headers=csrf(clerk))
            assert late.status_code == 403 and late.json()["error"] == "correction_window_passed"


async def test_a_session_ends_at_its_maximum_age_on_the_runtimes_clock(tmp_path: Path) -> None:
    clock = ManualClock(START)
    settings = people_settings(tmp_path, session_max_age_s=3600, rate_limit="1000/60seconds")
    async with running_app(settings, clock=clock) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        async with client(app) as clerk:
            await sign_in(clerk, "kaisa")
            clock.advance(3599)
            assert (await clerk.get("/auth/me")).json()["signedIn"] is True
            clock.advance(1)  # the session's last moment has passed
            assert (await clerk.get("/auth/me")).json()["signedIn"] is False

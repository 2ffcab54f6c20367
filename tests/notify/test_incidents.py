"""One incident, N reports (ADR 0060): paging reports of one alert category in one store within
``FI_CASE_INCIDENT_WINDOW_H`` join one case, which counts them, audits each as ``case.report`` and pages each
route once; a report of a closed case reopens it and pages again; another store, another category, a report
outside the window, or a window of 0 opens a case of its own. On SQLite and PostgreSQL, time moved by the
injected clock."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import select

from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.records import AlertHit, StoredFeedback, Structure
from feedback_intelligence.services.alert_intake import AlertIntake
from feedback_intelligence.services.cases import Actor, CaseService, closure_for
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.schema import outbox
from tests.notify.support import routes
from tests.support.databases import migrated_url
from tests.support.kinds import DATABASE_KINDS

ROUTES = routes(
    {"name": "duty", "kind": "webhook", "url": "http://127.0.0.1:9/duty", "unsigned": True},
    {"name": "chat", "kind": "webhook", "url": "http://127.0.0.1:9/chat", "unsigned": True},
)
MANAGER = Actor.typed_or_operator("Pia")


@dataclass
class Incidents:
    channel: Channel
    clock: ManualClock
    cases: CaseService

    async def report(self, feedback_id: str, *, store: str = "S1", category: str = "food_safety") -> None:
        await self.channel.insert(self.item(feedback_id, store=store, category=category))

    async def batch(self, *items: StoredFeedback) -> None:
        """Reports saved together, as an import's batch saves them."""
        assert await self.channel.insert_batch(list(items)) == {item.id for item in items}

    def item(self, feedback_id: str, *, store: str = "S1", category: str = "food_safety") -> StoredFeedback:
        now = format_instant(self.clock.now())
        return StoredFeedback(
            id=feedback_id,
            source="desk",
            text=f"Kylmäallas on rikki, liha lämmintä ({feedback_id}).",
            timestamp=now,
            created_at=now,
            structure=Structure("liha_kala", "jauheliha", "critical", "complaint", "fi"),
            alerts=(AlertHit(category, "lämmin"),),
            store=store,
        )

    async def pages(self) -> Counter[tuple[str, str]]:
        """(item, route) -> how many alert rows the outbox holds."""
        async with self.channel.store.connection() as conn:
            rows = (await conn.execute(select(outbox.c.feedback_id, outbox.c.route, outbox.c.event))).all()
        return Counter((r.feedback_id, r.route) for r in rows if r.event == "alert")

    async def listed(self) -> dict[str, dict]:
        return {v.ref: self.cases.as_json(v) for v in await self.cases.listed()}


@asynccontextmanager
async def incidents(tmp_path: Path, kind: str, window_h: float) -> AsyncIterator[Incidents]:
    async with _url(tmp_path, kind) as url:
        domain = load_domain("retail")
        store = FeedbackStore(url, name="live", derive=DomainDeriver(domain))  # the alerts rows, as the service writes
        await store.migrate()
        clock = ManualClock()
        intake = AlertIntake(domain, tuple(ROUTES), 7, clock, window_h)
        channel = Channel("live", store, on_save=intake.hook("live"))
        try:
            yield Incidents(channel, clock, CaseService(domain, {"live": channel}, intake, 1800, clock=clock))
        finally:
            await store.aclose()


@asynccontextmanager
async def _url(tmp_path: Path, kind: str) -> AsyncIterator[str]:
    if kind == "sqlite":
        yield migrated_url(tmp_path)
        return
    async with postgres_database("fi_incidents") as url:
        yield url


@pytest.mark.parametrize("kind", DATABASE_KINDS)
async def test_three_reports_in_one_store_make_one_case_paged_once(tmp_path: Path, kind: str) -> None:
    async with incidents(tmp_path, kind, 24) as rig:
        await rig.report("r1")
        rig.clock.advance(3600)
        await rig.report("r2")
        rig.clock.advance(5 * 3600)
        await rig.report("r3")

        listed = await rig.listed()
        assert list(listed) == ["live:r1"]
        case = listed["live:r1"]
        assert case["reports"] == 3
        assert case["reportRefs"] == ["live:r1", "live:r2", "live:r3"]
        assert await rig.pages() == Counter({("r1", "duty"): 1, ("r1", "chat"): 1})

        view, _, log = await rig.cases.detail("live:r1")
        joined = [(e.action, e.new_value, e.actor_kind) for e in log if e.action == "case.report"]
        assert joined == [("case.report", "r2", "system"), ("case.report", "r3", "system")]
        assert [ref for ref, _ in await rig.cases.report_items(view)] == ["live:r2", "live:r3"]
        # the report's alert section counts each report in its case's state, none as an item without a case
        by_state = await rig.cases.counts_by_item([("live", "r1"), ("live", "r2"), ("live", "r3")])
        assert (by_state["open"], by_state["none"]) == (3, 0)

        # a correction of a report is a save (ADR 0041): the report has its case, so it opens none and pages nobody
        assert await rig.channel.correct(
            "r2", {"text": "Kylmäallas rikki, liha lämmintä."}, expected_revision=None, entries=[]
        )
        assert list(await rig.listed()) == ["live:r1"]
        assert await rig.pages() == Counter({("r1", "duty"): 1, ("r1", "chat"): 1})


@pytest.mark.parametrize("kind", DATABASE_KINDS)
async def test_reports_of_one_incident_saved_in_one_batch_make_one_case_paged_once(tmp_path: Path, kind: str) -> None:
    async with incidents(tmp_path, kind, 24) as rig:
        await rig.batch(rig.item("b1"), rig.item("b2"), rig.item("elsewhere", store="S2"), rig.item("b3"))

        listed = await rig.listed()
        assert set(listed) == {"live:b1", "live:elsewhere"}
        assert listed["live:b1"]["reports"] == 3
        assert listed["live:b1"]["reportRefs"] == ["live:b1", "live:b2", "live:b3"]
        assert await rig.pages() == Counter(
            {("b1", "duty"): 1, ("b1", "chat"): 1, ("elsewhere", "duty"): 1, ("elsewhere", "chat"): 1}
        )
        view, _, log = await rig.cases.detail("live:b1")
        actions = [(e.action, e.new_value) for e in log if e.action in ("case.open", "case.report")]
        assert actions == [("case.open", "open"), ("case.report", "b2"), ("case.report", "b3")]
        assert view.case.revision == 3  # each report a change of the case

        # closed, the case reopens once for a batch of two more reports, and pages once, with the first
        await rig.cases.act("live:b1", "dismiss", MANAGER, expected_revision=None, reason="Väärä hälytys.")
        rig.clock.advance(3600)
        await rig.batch(rig.item("b4"), rig.item("b5"))
        listed = await rig.listed()
        assert set(listed) == {"live:b1", "live:elsewhere"}
        assert (listed["live:b1"]["state"], listed["live:b1"]["reports"]) == ("open", 5)
        assert {item for item, _ in await rig.pages()} == {"b1", "elsewhere", "b4"}
        _, _, log = await rig.cases.detail("live:b1")
        assert [e.new_value for e in log if e.action == "case.reopen"] == ["open"]


@pytest.mark.parametrize("kind", DATABASE_KINDS)
async def test_another_store_category_or_a_report_outside_the_window_opens_its_own_case(
    tmp_path: Path, kind: str
) -> None:
    async with incidents(tmp_path, kind, 24) as rig:
        await rig.report("first")
        await rig.report("other-store", store="S2")
        await rig.report("other-category", category="injury_safety")
        rig.clock.advance(25 * 3600)
        await rig.report("next-day")

        listed = await rig.listed()
        assert set(listed) == {"live:first", "live:other-store", "live:other-category", "live:next-day"}
        assert {ref: c["reports"] for ref, c in listed.items()} == dict.fromkeys(listed, 1)
        pages = await rig.pages()
        assert {item for item, _ in pages} == {"first", "other-store", "other-category", "next-day"}
        assert set(pages.values()) == {1}


@pytest.mark.parametrize("kind", DATABASE_KINDS)
async def test_a_report_of_a_handled_case_reopens_it_and_pages_again(tmp_path: Path, kind: str) -> None:
    async with incidents(tmp_path, kind, 24) as rig:
        await rig.report("r1")
        await rig.cases.act("live:r1", "acknowledge", MANAGER, expected_revision=None)
        closure = closure_for(rig.cases.domain, "cold_chain", None, "Kylmäallas korjattiin.")
        await rig.cases.act("live:r1", "handle", MANAGER, expected_revision=None, closure=closure)
        rig.clock.advance(2 * 3600)
        await rig.report("r2")

        listed = await rig.listed()
        assert list(listed) == ["live:r1"]
        assert listed["live:r1"]["state"] == "open"
        assert listed["live:r1"]["reports"] == 2
        assert await rig.pages() == Counter(
            {("r1", "duty"): 1, ("r1", "chat"): 1, ("r2", "duty"): 1, ("r2", "chat"): 1}
        )
        _, _, log = await rig.cases.detail("live:r1")
        reopened = [e for e in log if e.action == "case.reopen"]
        assert [(e.actor_kind, e.old_value, e.new_value, e.reason) for e in reopened] == [
            ("system", "handled", "open", "a new report of the same incident")
        ]


@pytest.mark.parametrize("kind", DATABASE_KINDS)
async def test_a_window_of_zero_opens_one_case_per_item(tmp_path: Path, kind: str) -> None:
    async with incidents(tmp_path, kind, 0) as rig:
        for n in range(3):
            await rig.report(f"r{n}")
        listed = await rig.listed()
        assert set(listed) == {"live:r0", "live:r1", "live:r2"}
        assert all(c["reports"] == 1 and c["reportRefs"] == [ref] for ref, c in listed.items())
        assert sum((await rig.pages()).values()) == 6

"""An overdue case told to its store's managers (ADR 0061), through a real SMTP server (aiosmtpd): once when it
passes its due time, by one outbox row whatever the replicas, to the managers granted its store or the chain
who have an e-mail address, never to a manager of another store, a clerk or the route's own recipients; the
audit log says so. Time moved by the injected clock."""

from __future__ import annotations

import asyncio
import email
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select

from feedback_intelligence.devtools.processes import free_port
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.records import AlertHit, StoredFeedback, Structure
from feedback_intelligence.services.case_due import DueTerms
from feedback_intelligence.services.cases import CaseService
from feedback_intelligence.store.accounts import AccountStore, Grant
from feedback_intelligence.store.schema import outbox
from tests.notify.support import rig, routes

HAPPENED = datetime(2026, 12, 3, 8, 0, tzinfo=UTC)
TEXT = "Lapsi sai vatsataudin jauhelihasta. Soittakaa: Maija 040 123 4567."


class Inbox:
    def __init__(self) -> None:
        self.messages: list[tuple[list[str], EmailMessage]] = []  # (RCPT TO, the message)

    async def handle_DATA(self, server, session, envelope) -> str:
        mail = email.message_from_bytes(envelope.content, _class=EmailMessage, policy=policy.default)
        self.messages.append((sorted(envelope.rcpt_tos), mail))
        return "250 OK"

    def overdue(self) -> list[tuple[list[str], EmailMessage]]:
        return [(to, m) for to, m in self.messages if str(m["X-FI-Delivery"]).endswith(":overdue")]


@pytest.fixture
def smtp_server() -> Iterator[tuple[Controller, Inbox]]:
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield controller, inbox
    controller.stop()


def food_alert(feedback_id: str, store: str) -> StoredFeedback:
    at = format_instant(HAPPENED)
    return StoredFeedback(
        id=feedback_id,
        source="desk",
        text=TEXT,
        timestamp=at,
        created_at=at,
        structure=Structure("liha_kala", "jauheliha", "critical", "complaint", "fi"),
        alerts=(AlertHit("food_safety", "vatsatau"),),
        store=store,
    )


async def test_an_overdue_case_is_mailed_once_to_its_stores_managers(tmp_path: Path, smtp_server) -> None:
    controller, inbox = smtp_server
    mail = routes(
        {
            "name": "mail",
            "kind": "smtp",
            "url": f"smtp://127.0.0.1:{controller.port}",
            "from": "fi@shop.example",
            "to": ["duty@shop.example"],
            "starttls": False,
            "categories": ["legal_threat"],  # what it routes does not matter: its transport carries the mail
        }
    )
    clock = ManualClock(HAPPENED)
    async with rig(tmp_path, mail, clock=clock) as r:
        people = AccountStore(r.channel.store, clock)
        for username, address, grant in [
            ("pia", "pia@shop.example", Grant("manager", "S1")),
            ("maija", "maija@shop.example", Grant("manager", "*")),  # the chain's
            ("olli", "olli@shop.example", Grant("manager", "S2")),  # another store's
            ("kaisa", "kaisa@shop.example", Grant("clerk", "S1")),  # not a manager
            ("ville", None, Grant("manager", "S1")),  # no address: not mailed
        ]:
            await people.add_local(username, username, "x", (grant,), email=address)
        r.worker.managers = people.manager_addresses
        replicas = [
            CaseService(r.domain, {"live": r.channel}, r.intake, 1800, clock=clock, due_terms=DueTerms(4, 3))
            for _ in range(2)
        ]
        await r.channel.insert(food_alert("late-1", "S1"))

        clock.advance(4 * 3600 - 1)  # a second before its due time
        assert [await each.escalate_overdue() for each in replicas] == [0, 0]
        [listed] = await replicas[0].listed()
        assert replicas[0].as_json(listed)["overdue"] is False
        revision = listed.case.revision

        clock.advance(1)  # due: both replicas check at once, one tells
        told = await asyncio.gather(*(each.escalate_overdue() for each in replicas))
        assert sorted(told) == [0, 1]
        await drain(r.worker)
        [(recipients, message)] = inbox.overdue()
        assert recipients == ["maija@shop.example", "pia@shop.example"]
        assert message["Subject"] == "Myöhässä: ruokaturvallisuus – myymälä S1"
        assert message["X-FI-Delivery"] == "live:late-1:mail:overdue"
        body = message.get_content()
        assert "http://fi.example/#case=live:late-1" in body and "vatsataudin" in body

        # later checks and another drain send nothing more
        clock.advance(24 * 3600)
        assert [await each.escalate_overdue() for each in replicas] == [0, 0]
        await drain(r.worker)
        assert len(inbox.overdue()) == 1
        assert all("olli@shop.example" not in to and "kaisa@shop.example" not in to for to, _ in inbox.messages)

        async with r.channel.store.connection() as conn:
            rows = (await conn.execute(select(outbox.c.event, outbox.c.state).where(outbox.c.event == "overdue"))).all()
        assert [tuple(row) for row in rows] == [("overdue", "delivered")]
        view, _, log = await replicas[0].detail("live:late-1")
        assert [(e.action, e.actor_kind, e.new_value) for e in log if e.action == "case.overdue"] == [
            ("case.overdue", "system", format_instant(HAPPENED + timedelta(hours=4)))
        ]
        assert view.case.revision == revision  # a manager acting meanwhile is not refused as stale
        shown = replicas[0].as_json(view)
        assert shown["overdue"] is True and shown["overdueNotifiedAt"] == format_instant(HAPPENED + timedelta(hours=4))


async def test_a_store_without_a_mailable_manager_is_audited_and_nobody_is_mailed(tmp_path: Path, smtp_server) -> None:
    controller, inbox = smtp_server
    mail = routes(
        {
            "name": "mail",
            "kind": "smtp",
            "url": f"smtp://127.0.0.1:{controller.port}",
            "from": "fi@shop.example",
            "to": ["duty@shop.example"],
            "starttls": False,
            "categories": ["legal_threat"],
        }
    )
    clock = ManualClock(HAPPENED)
    async with rig(tmp_path, mail, clock=clock) as r:
        people = AccountStore(r.channel.store, clock)
        await people.add_local("olli", "olli", "x", (Grant("manager", "S2"),), email="olli@shop.example")
        r.worker.managers = people.manager_addresses
        cases = CaseService(r.domain, {"live": r.channel}, r.intake, 1800, clock=clock)
        await r.channel.insert(food_alert("late-2", "S1"))
        clock.advance(5 * 3600)
        assert await cases.escalate_overdue() == 1
        await drain(r.worker)
        assert inbox.messages == []
        async with r.channel.store.connection() as conn:
            rows = (await conn.execute(select(outbox.c.state, outbox.c.last_error))).all()
        assert [tuple(row) for row in rows] == [("cancelled", "no manager of its store has an e-mail address")]
        _, _, log = await cases.detail("live:late-2")
        assert [e.action for e in log if e.action == "case.overdue"] == ["case.overdue"]


async def drain(worker) -> None:
    """Deliver every due row (the worker's own turn, run by the test)."""
    while await worker.drain_once() is None:
        pass

"""The brief by mail through a real SMTP server (aiosmtpd) from the real app: two managers of different
stores each get their own stores' brief, in their own language, once however often (and by however many
replicas) the hour is noticed; a person who did not opt in gets nothing; no customer text is in it."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

from fastapi import FastAPI

from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.store import outbox as ob
from tests.notify.smtp_servers import Inbox, smtp_server
from tests.support.people import LOOPBACK, add_user, client, csrf, desk_entry, people_settings, running_app, sign_in

MONDAY_8_HELSINKI = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)  # a Monday, 08.00 in Helsinki
STORES = [{"id": "s1", "name": "Espoo Iso Omena"}, {"id": "s2", "name": "Tampere Koskikeskus"}]
FALL = "Asiakas liukastui märällä lattialla ja löi päänsä, ambulanssi haettiin."


def settings(tmp_path: Path, smtp_port: int) -> object:
    route = {"name": "mail", "kind": "smtp", "url": f"smtp://127.0.0.1:{smtp_port}", "starttls": False}
    route |= {"from": "fi@shop.example", "to": ["ops@shop.example"]}
    return people_settings(
        tmp_path,
        rate_limit="1000/60seconds",
        stores=json.dumps(STORES),
        notify_channels=json.dumps([route]),
        notify_brief_route="mail",
        notify_brief_hour=7,
        notify_public_url="http://fi.test",
        notify_worker=False,  # the test drives the worker's steps itself
    )


async def report_a_fall(app: FastAPI, clerk_name: str, feedback_id: str) -> None:
    async with client(app) as clerk:
        await sign_in(clerk, clerk_name)
        saved = await clerk.post("/live/feedback", json=desk_entry(feedback_id, FALL), headers=csrf(clerk))
        assert saved.status_code == 201, saved.text


async def deliver_all(app: FastAPI) -> None:
    while await app.state.runtime.notify.drain_once() is None:  # None: a row was settled, look again
        pass


def only(inbox: Inbox, address: str) -> EmailMessage:
    [mail] = inbox.to(address)
    return mail


def parts(mail: EmailMessage) -> tuple[str, str]:
    text = mail.get_body(("plain",))
    html = mail.get_body(("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


async def test_two_managers_get_their_own_stores_brief_in_their_language_once(tmp_path: Path) -> None:
    clock = ManualClock(MONDAY_8_HELSINKI)
    with smtp_server() as (controller, inbox):
        async with running_app(settings(tmp_path, controller.port), clock=clock) as app:
            await add_user(app, "pia", ("manager", "s1"))
            await add_user(app, "ben", ("manager", "s2"))
            await add_user(app, "olli", ("manager", "s1"))
            await add_user(app, "kaisa", ("clerk", "s1"))
            await add_user(app, "kalle", ("clerk", "s2"))
            await report_a_fall(app, "kaisa", "fall-s1")
            await report_a_fall(app, "kalle", "fall-s2")

            async with client(app) as pia:  # the person themself opts in
                await sign_in(pia, "pia")
                chosen = await pia.patch(
                    "/auth/me/mail", json={"email": "pia@shop.example", "briefMail": "weekly"}, headers=csrf(pia)
                )
                assert chosen.status_code == 200, chosen.text
                assert chosen.json()["briefMail"] == "weekly" and chosen.json()["language"] is None
            async with client(app, LOOPBACK) as operator:  # an operator for another person
                for name, body in (
                    ("ben", {"email": "ben@shop.example", "language": "en", "briefMail": "daily"}),
                    ("olli", {"email": "olli@shop.example"}),  # an address, and no brief: not opted in
                ):
                    answer = await operator.patch(f"/admin/users/{name}/mail", json=body)
                    assert answer.status_code == 200, answer.text

            rt = app.state.runtime
            replica = dataclasses.replace(rt.notify.briefs)  # another replica's: nothing enqueued yet
            assert await rt.notify.briefs.enqueue_due() == 2
            assert await rt.notify.briefs.enqueue_due() == 0  # the same hour noticed again
            assert await replica.enqueue_due() == 0  # and by another replica: the rows are there
            await deliver_all(app)
            rows = await ob.Outbox(rt.channels["live"].store).stats()
            assert rows.by_state == {ob.DELIVERED: 4}  # the two briefs, and the two falls' alerts to the route's `to`

    briefs = [to for envelope in inbox.recipients for to in envelope if to != "ops@shop.example"]
    assert sorted(briefs) == ["ben@shop.example", "pia@shop.example"]  # once each; olli, not opted in: nothing

    pia_mail, ben_mail = only(inbox, "pia@shop.example"), only(inbox, "ben@shop.example")
    assert pia_mail["Subject"] == "Viikon katsaus 7.12.2026" and pia_mail["Content-Language"] == "fi"
    assert ben_mail["Subject"] == "The day's brief 7 Dec 2026" and ben_mail["Content-Language"] == "en"
    pia_text, pia_html = parts(pia_mail)
    ben_text, ben_html = parts(ben_mail)

    assert "Espoo Iso Omena" in pia_text and "Tampere Koskikeskus" not in pia_text
    assert "http://fi.test/#case=live:fall-s1" in pia_text and "fall-s2" not in pia_text
    assert "Toimi nyt" in pia_text and "ei vielä vastuuhenkilöä" in pia_text
    assert "Tampere Koskikeskus" in ben_text and "Espoo Iso Omena" not in ben_text
    assert "http://fi.test/#case=live:fall-s2" in ben_text and "fall-s1" not in ben_text
    assert "Act on now" in ben_text and "no owner yet" in ben_text
    assert 'href="http://fi.test/#case=live:fall-s2"' in ben_html and "Espoo" not in ben_html
    assert 'href="http://fi.test/#case=live:fall-s1"' in pia_html
    for content in (pia_text, pia_html, ben_text, ben_html):  # no customer text in an inbox
        assert "liukastui" not in content and "ambulanssi" not in content


async def test_before_the_hour_and_on_a_day_without_a_weekly_nothing_is_enqueued(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 12, 7, 4, 0, tzinfo=UTC))  # Monday 06.00 in Helsinki: before 07
    with smtp_server() as (controller, _inbox):
        async with running_app(settings(tmp_path, controller.port), clock=clock) as app:
            await add_user(app, "pia", ("manager", "s1"))
            async with client(app, LOOPBACK) as operator:
                answer = await operator.patch(
                    "/admin/users/pia/mail", json={"email": "pia@shop.example", "briefMail": "weekly"}
                )
                assert answer.status_code == 200, answer.text
            briefs = app.state.runtime.notify.briefs
            assert await briefs.enqueue_due() == 0
            clock.advance(3600)  # 07.00: the hour
            assert await briefs.enqueue_due() == 1
            clock.advance(24 * 3600)  # Tuesday: no weekly brief
            assert await briefs.enqueue_due() == 0


async def test_the_choice_is_validated(tmp_path: Path) -> None:
    with smtp_server() as (controller, _inbox):
        async with running_app(settings(tmp_path, controller.port)) as app:
            await add_user(app, "pia", ("manager", "s1"))
            async with client(app, LOOPBACK) as operator:
                no_address = await operator.patch("/admin/users/pia/mail", json={"briefMail": "weekly"})
                bad = await operator.patch("/admin/users/pia/mail", json={"email": "pia@x\r\nBcc: e@evil.example"})
                nobody = await operator.patch("/admin/users/nobody/mail", json={"briefMail": None})
                language = await operator.patch("/admin/users/pia/mail", json={"language": "sv"})
            async with client(app) as stranger:
                anonymous = await stranger.patch("/auth/me/mail", json={"briefMail": "weekly"}, headers=csrf(stranger))
    assert no_address.status_code == 400 and no_address.json()["codes"][0]["code"] == "email_required"
    assert bad.status_code == 400 and bad.json()["codes"][0]["code"] == "email_invalid"
    assert nobody.status_code == 404 and language.status_code == 400
    assert anonymous.status_code in (401, 403)

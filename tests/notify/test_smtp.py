"""E-mail through a real SMTP server (aiosmtpd) that requires STARTTLS and a login."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from feedback_intelligence.config.notify_routes import NotifyRoute
from tests.notify.smtp_servers import Inbox, self_signed
from tests.notify.smtp_servers import smtp_server as running
from tests.notify.support import HOSTILE_TEXT, alert_item, rig, routes


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    return self_signed(tmp_path)


@pytest.fixture
def smtp_server(certificate: tuple[Path, Path]) -> Iterator[tuple[Controller, Inbox]]:
    with running(certificate, require_starttls=True, login=True) as server:
        yield server


def mail_route(controller: Controller, certificate: tuple[Path, Path]) -> list[NotifyRoute]:
    return routes(
        {
            "name": "mail",
            "kind": "smtp",
            "url": f"smtp://127.0.0.1:{controller.port}",
            "from": "fi@shop.example",
            "to": ["manager@shop.example"],
            "username": "fi",
            "password": "s3cret",
            "caFile": str(certificate[0]),
        }
    )


async def test_the_alert_mail_arrives_over_starttls_with_a_login(tmp_path: Path, smtp_server, certificate) -> None:
    controller, inbox = smtp_server
    async with rig(tmp_path, mail_route(controller, certificate)) as r:
        await r.channel.insert(alert_item("mail-1"))
        r.worker.start()
        assert await asyncio.to_thread(inbox.arrived.wait, 30)
    [mail] = inbox.messages
    assert mail["To"] == "manager@shop.example" and "ruokaturvallisuus" in mail["Subject"]
    assert mail["X-FI-Delivery"] == "live:mail-1:mail:alert"
    text = mail.get_content()
    assert "vatsataudin" in text and "http://fi.example/#case=live:mail-1" in text


async def test_the_mail_shows_customer_text_as_typed_and_data_starts_no_header(
    tmp_path: Path, smtp_server, certificate
) -> None:
    controller, inbox = smtp_server
    # A store id from the data that would end the Subject and add a Bcc, and a right-to-left override
    # that would show what follows it backwards (an address, a name).
    store = "S1\r\nBcc: eve@evil.example"
    text = HOSTILE_TEXT + " \u202eelpmaxe.live"
    async with rig(tmp_path, mail_route(controller, certificate)) as r:
        await r.channel.insert(alert_item("mail-evil", store=store, text=text))
        r.worker.start()
        assert await asyncio.to_thread(inbox.arrived.wait, 30)
    [mail] = inbox.messages
    assert inbox.recipients == [["manager@shop.example"]] and mail["Bcc"] is None
    assert mail["Subject"] == "Hälytys: ruokaturvallisuus – myymälä S1 Bcc: eve@evil.example"
    assert mail.get_content_type() == "text/plain" and not mail.is_multipart()  # no HTML part to render markup
    lines = mail.get_content().splitlines()
    assert f"Palaute: ”{HOSTILE_TEXT} elpmaxe.live”" in lines  # as typed, less the invisible override
    assert [line for line in lines if line.startswith("Avaa tapaus")] == [
        "Avaa tapaus: http://fi.example/#case=live:mail-evil"
    ]

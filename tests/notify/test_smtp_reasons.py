"""Mail's one-line reasons, from real SMTP servers (aiosmtpd): with and without STARTTLS, and each refusal
(a login, a recipient, no TLS offered, TLS that fails, no server) names its step and the server's words."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from feedback_intelligence.config.notify_routes import NotifyRoute
from feedback_intelligence.devtools.processes import free_port
from feedback_intelligence.notify.message import trial_message
from feedback_intelligence.notify.senders import SendFailed, send
from feedback_intelligence.store import outbox as ob
from tests.notify.smtp_servers import LOGIN, REFUSED_RECIPIENT, self_signed, smtp_server
from tests.notify.support import FAST, alert_item, rig, routes


def mail_route(port: int, **keys: Any) -> NotifyRoute:
    [route] = routes(
        {
            "name": "mail",
            "kind": "smtp",
            "url": f"smtp://127.0.0.1:{port}",
            "from": "fi@shop.example",
            "to": ["manager@shop.example"],
            **keys,
        }
    )
    return route


async def outcome(route: NotifyRoute) -> SendFailed | None:
    """The test message's send: None when the server took it, else its failure."""
    async with httpx.AsyncClient() as http:
        try:
            await send(route, trial_message(route.name, None, "2026-12-07T06:00:00.000Z"), http, timeout_s=5)
        except SendFailed as failure:
            return failure
    return None


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    return self_signed(tmp_path)


async def test_a_plain_local_server_takes_mail_when_the_route_says_no_starttls() -> None:
    with smtp_server() as (controller, inbox):
        assert await outcome(mail_route(controller.port, starttls=False)) is None
    [mail] = inbox.messages
    assert inbox.recipients == [["manager@shop.example"]] and mail["Subject"].startswith("Testiviesti")


async def test_a_plain_server_and_the_default_starttls_say_tls_is_not_offered_and_how_to_go_on() -> None:
    with smtp_server() as (controller, inbox):
        failure = await outcome(mail_route(controller.port))
    assert failure is not None and not failure.retryable and not inbox.messages
    assert failure.detail.startswith(f"SMTP TLS not offered by 127.0.0.1:{controller.port}: ")
    assert '"starttls": false' in failure.detail and "\n" not in failure.detail


async def test_starttls_with_a_login_delivers(certificate: tuple[Path, Path]) -> None:
    with smtp_server(certificate, require_starttls=True, login=True) as (controller, inbox):
        route = mail_route(controller.port, username=LOGIN[0], password=LOGIN[1], caFile=str(certificate[0]))
        assert await outcome(route) is None
    assert len(inbox.messages) == 1


async def test_a_wrong_password_is_a_refused_login(certificate: tuple[Path, Path]) -> None:
    with smtp_server(certificate, require_starttls=True, login=True) as (controller, inbox):
        route = mail_route(controller.port, username=LOGIN[0], password="wrong", caFile=str(certificate[0]))
        failure = await outcome(route)
    assert failure is not None and not failure.retryable and not inbox.messages
    assert failure.detail.startswith("SMTP login refused: 535 ")


async def test_a_login_without_tls_is_impossible_and_says_so(certificate: tuple[Path, Path]) -> None:
    with smtp_server(certificate, login=True) as (controller, inbox):
        route = mail_route(controller.port, username=LOGIN[0], password=LOGIN[1], starttls=False)
        failure = await outcome(route)
    assert failure is not None and not failure.retryable and not inbox.messages
    assert failure.detail.startswith(f"SMTP login impossible at 127.0.0.1:{controller.port}: ")


async def test_a_server_that_requires_tls_of_a_route_without_it_says_so(certificate: tuple[Path, Path]) -> None:
    with smtp_server(certificate, require_starttls=True) as (controller, inbox):
        failure = await outcome(mail_route(controller.port, starttls=False))
    assert failure is not None and not failure.retryable and not inbox.messages
    assert failure.detail.startswith(f"SMTP TLS required by 127.0.0.1:{controller.port}: 530 ")
    assert failure.detail.endswith('(set "starttls": true)')


async def test_a_certificate_the_route_does_not_trust_fails_tls(certificate: tuple[Path, Path]) -> None:
    with smtp_server(certificate) as (controller, inbox):
        failure = await outcome(mail_route(controller.port))  # no caFile: the self-signed one is not trusted
    assert failure is not None and not failure.retryable and not inbox.messages
    assert failure.detail.startswith(f"SMTP TLS failed with 127.0.0.1:{controller.port}: ")
    assert "certificate verify failed" in failure.detail


async def test_a_refused_recipient_is_named_with_the_servers_words() -> None:
    with smtp_server() as (controller, inbox):
        route = mail_route(controller.port, starttls=False, to=[REFUSED_RECIPIENT])
        failure = await outcome(route)
    assert failure is not None and not failure.retryable and not inbox.messages
    assert failure.detail == f"SMTP recipient refused: {REFUSED_RECIPIENT} 550 5.1.1 No such mailbox here"


async def test_no_server_is_a_refused_connection_worth_another_try() -> None:
    port = free_port()  # nothing listens there
    failure = await outcome(mail_route(port, starttls=False))
    assert failure is not None and failure.retryable
    assert failure.detail.startswith(f"SMTP connection refused: 127.0.0.1:{port}: ")


async def test_the_reason_is_the_outbox_rows_last_error_and_the_logs_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "feedback_intelligence.workers.notify_worker")
    with smtp_server() as (controller, _inbox):
        route = mail_route(controller.port, starttls=False, to=[REFUSED_RECIPIENT])
        async with rig(tmp_path, [route], FAST) as r:
            await r.channel.insert(alert_item("mail-refused"))
            assert await r.worker.drain_once() is None  # one row claimed and settled, in this task
            [row] = await ob.Outbox(r.channel.store).rows_for("mail-refused")
    reason = f"SMTP recipient refused: {REFUSED_RECIPIENT} 550 5.1.1 No such mailbox here"
    assert (row.state, row.attempts, row.last_error) == (ob.FAILED, 1, reason)
    assert any(reason in record.getMessage() for record in caplog.records)
